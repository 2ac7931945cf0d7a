// A refused or failed `mindrecord convert --append` leaves the dataset as it
// was: the same files, bytes, sizes and disk blocks. The issue saw each shard
// of a refused append take 2.6 MB -> 33 MB on disk: the rollback wrote zeros
// over the page tails the append had filled, where the shard had holes.
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "tests/util/test_util.h"
#include "writers/convert/image_codec.h"

namespace mindrecord {
namespace {

using testing::Cli;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// A small JPEG with content depending on `seed`.
std::string Jpeg(int seed) {
  std::vector<uint8_t> px(32 * 24 * 3);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 7 + seed * 31) % 251);
  auto jpeg = convert::EncodePixels(px.data(), 24, 32, 3, convert::EncodeMode::kJpeg);
  EXPECT_TRUE(jpeg.ok()) << jpeg.status().ToString();
  return jpeg.ok() ? *jpeg : std::string();
}

void ImageFolder(const std::string& root, const std::vector<std::string>& classes, int per_class, int seed) {
  for (const auto& c : classes) {
    std::filesystem::create_directories(root + "/" + c);
    for (int i = 0; i < per_class; ++i) WriteFile(root + "/" + c + "/" + std::to_string(100 + i) + ".jpg", Jpeg(seed++));
  }
}

struct FileState {
  std::string bytes;
  off_t size = 0;
  blkcnt_t blocks = 0;  // 512-byte blocks allocated on disk
  bool operator==(const FileState& o) const { return bytes == o.bytes && size == o.size && blocks == o.blocks; }
};

// Every file in `dir`: its bytes, apparent size and allocated blocks.
std::map<std::string, FileState> Snapshot(const std::string& dir) {
  std::map<std::string, FileState> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    struct stat st;
    EXPECT_EQ(stat(e.path().c_str(), &st), 0);
    out[e.path().filename()] = FileState{ReadFile(e.path()), st.st_size, st.st_blocks};
  }
  return out;
}

void ExpectUnchanged(const std::map<std::string, FileState>& before, const std::map<std::string, FileState>& after) {
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [name, b] : before) {
    ASSERT_TRUE(after.count(name)) << name << " is gone";
    const FileState& a = after.at(name);
    EXPECT_TRUE(a.bytes == b.bytes) << name << ": bytes differ";
    EXPECT_EQ(a.size, b.size) << name << ": apparent size";
    EXPECT_EQ(a.blocks * 512, b.blocks * 512) << name << ": bytes allocated on disk";
  }
}

TEST(RefusedAppendTest, FailedConvertAppendLeavesFilesAndDiskSpaceAsTheyWere) {
  TempDir dir;
  const std::vector<std::string> classes = {"cat", "dog", "fox"};
  ImageFolder(dir.Join("src"), classes, 40, 0);
  std::filesystem::create_directories(dir.Join("out"));
  const std::string out = dir.Join("out/flowers.mindrecord");
  std::string log;
  ASSERT_EQ(Cli("convert imagefolder " + dir.Join("src") + " " + out + " --shards 2 --quiet", &log), 0) << log;
  const auto before = Snapshot(dir.Join("out"));
  ASSERT_EQ(before.size(), 4u);

  // Same classes, but an undecodable image after some rows were written in
  // place (batches of 3 rows): the append fails and is rolled back.
  ImageFolder(dir.Join("more"), classes, 12, 500);
  WriteFile(dir.Join("more/fox/zzz.jpg"), Jpeg(1).substr(0, 100));
  EXPECT_EQ(Cli("convert imagefolder " + dir.Join("more") + " " + out + " --append --batch-rows 3 --workers 1", &log),
            2);
  EXPECT_NE(log.find("zzz.jpg"), std::string::npos) << log;
  ExpectUnchanged(before, Snapshot(dir.Join("out")));

  // Another class map: refused before a row is written.
  ImageFolder(dir.Join("other"), {"cat", "dog", "zebra"}, 3, 900);
  EXPECT_EQ(Cli("convert imagefolder " + dir.Join("other") + " " + out + " --append", &log), 1);
  EXPECT_NE(log.find("differs from the dataset's"), std::string::npos) << log;
  ExpectUnchanged(before, Snapshot(dir.Join("out")));

  // The same append without the bad image succeeds afterwards.
  std::filesystem::remove(dir.Join("more/fox/zzz.jpg"));
  EXPECT_EQ(Cli("convert imagefolder " + dir.Join("more") + " " + out + " --append", &log), 0) << log;
  EXPECT_EQ(Cli("verify " + out + "0", &log), 0) << log;
  EXPECT_EQ(Cli("inspect " + out + "0 --json", &log), 0);
  EXPECT_NE(log.find("\"num_rows\": 156"), std::string::npos) << log;
}

}  // namespace
}  // namespace mindrecord
