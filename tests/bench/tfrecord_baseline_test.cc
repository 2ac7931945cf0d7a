// The benchmark's TFRecord baseline: the framing, both checksums, the .idx
// sidecar and tf.train.Example parsing, on the compat file TensorFlow wrote
// and on round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "benchmarks/baselines/crc32c_hw.h"
#include "benchmarks/baselines/plain_files.h"
#include "benchmarks/baselines/tf_example.h"
#include "benchmarks/baselines/tfrecord_io.h"
#include "mindrecord/crc32c.h"
#include "tests/util/compat_dir.h"

namespace mindrecord::bench {
namespace {

const std::string kDummy = testing::CompatDir() + "/sources/tfrecord/dummy.tfrecord";

std::string TempDir() {
  std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-bench-test-XXXXXX";
  return std::string(mkdtemp(tmpl.data()));
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(TfRecordBaseline, ReadsTensorFlowsFile) {
  if (!std::filesystem::exists(kDummy)) GTEST_SKIP() << "no compat file " << kDummy;
  auto r = TfRecordReader::Open(kDummy, 64);  // a small buffer exercises refills and growth
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::string_view rec;
  tf::Example ex;
  int count = 0;
  for (;;) {
    auto more = (*r)->Next(&rec);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ASSERT_TRUE(ParseExample(rec, &ex).ok());
    EXPECT_FALSE(ex.features().feature().empty());
    ++count;
  }
  EXPECT_EQ(count, 10);

  // The index built by scanning agrees with the sequential reader; positional
  // reads give the same records.
  auto index = ScanIndex(kDummy);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_EQ(index->size(), 10u);
  uint64_t end = 0;
  for (const auto& loc : *index) {
    EXPECT_EQ(loc.offset, end);
    end = loc.offset + loc.size;
  }
  EXPECT_EQ(end, std::filesystem::file_size(kDummy));
  auto rr = TfRecordRandomReader::Open(kDummy, *index);
  ASSERT_TRUE(rr.ok());
  auto seq = TfRecordReader::Open(kDummy);
  std::string scratch;
  for (size_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(*(*seq)->Next(&rec));
    auto got = (*rr)->Read(i, &scratch);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, rec);
  }
}

TEST(TfRecordBaseline, RoundTripWithIndexSidecar) {
  const std::string dir = TempDir(), path = dir + "/t.tfrecord";
  {
    auto w = TfRecordWriter::Create(path, path + ".idx", 100);  // records larger than the buffer too
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE((*w)->Append(MakeExample("text", std::string(i * 7, 'a' + i % 26), "label", i)).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto idx = ReadIndexFile(path + ".idx");
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  auto scanned = ScanIndex(path);
  ASSERT_TRUE(scanned.ok());
  ASSERT_EQ(idx->size(), 50u);
  for (size_t i = 0; i < 50; ++i) {
    EXPECT_EQ((*idx)[i].offset, (*scanned)[i].offset);
    EXPECT_EQ((*idx)[i].size, (*scanned)[i].size);
  }
  auto rr = TfRecordRandomReader::Open(path, *idx);
  std::string scratch;
  tf::Example ex;
  for (int i = 49; i >= 0; --i) {
    auto rec = (*rr)->Read(static_cast<size_t>(i), &scratch);
    ASSERT_TRUE(rec.ok());
    ASSERT_TRUE(ParseExample(*rec, &ex).ok());
    EXPECT_EQ(*Int64Feature(ex, "label"), i);
    EXPECT_EQ(BytesFeature(ex, "text")->size(), static_cast<size_t>(i * 7));
  }
  EXPECT_FALSE(BytesFeature(ex, "label").ok());
  EXPECT_FALSE(Int64Feature(ex, "missing").ok());
  std::filesystem::remove_all(dir);
}

TEST(TfRecordBaseline, DetectsCorruption) {
  if (!std::filesystem::exists(kDummy)) GTEST_SKIP() << "no compat file";
  const std::string bytes = Slurp(kDummy);
  auto index = *ScanIndex(kDummy);
  const std::string dir = TempDir();
  auto check = [&](size_t flip_at, const char* expect) {
    std::string bad = bytes;
    bad[flip_at] ^= 0x01;
    const std::string path = dir + "/bad.tfrecord";
    std::ofstream(path, std::ios::binary) << bad;
    auto r = *TfRecordReader::Open(path);
    std::string_view rec;
    Status s;
    for (;;) {
      auto more = r->Next(&rec);
      if (!more.ok()) {
        s = more.status();
        break;
      }
      if (!*more) break;
    }
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << flip_at;
    EXPECT_NE(s.ToString().find(expect), std::string::npos) << s.ToString();
    auto rr = *TfRecordRandomReader::Open(path, index);
    std::string scratch;
    EXPECT_FALSE(rr->Read(3, &scratch).ok());
  };
  check(index[3].offset + 2, "length checksum");       // the length
  check(index[3].offset + 12 + 5, "data checksum");    // the data
  check(index[3].offset + index[3].size - 1, "data checksum");  // the data CRC
  // Truncation.
  const std::string path = dir + "/short.tfrecord";
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  auto r = *TfRecordReader::Open(path);
  std::string_view rec;
  Status s;
  for (;;) {
    auto more = r->Next(&rec);
    if (!more.ok() || !*more) {
      s = more.status();
      break;
    }
  }
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_FALSE(ScanIndex(path).ok());
  std::filesystem::remove_all(dir);
}

TEST(PlainFilesBaseline, WriteListReadCat) {
  const std::string dir = TempDir();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(WriteWholeFile(PlainFilePath(dir, i, i, ".txt"), std::string(i, 'x')).ok());
  auto files = ListFiles(dir);
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[2], dir + "/class_02/0000002.txt");
  std::string got;
  ASSERT_TRUE(ReadWholeFile(files[4], &got).ok());
  EXPECT_EQ(got, "xxxx");
  EXPECT_EQ(*CatFiles(files), 10u);
  EXPECT_FALSE(ReadWholeFile(dir + "/none", &got).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mindrecord::bench

namespace mindrecord::bench {
namespace {

TEST(FastCrc32c, MatchesThePortableOne) {
  EXPECT_EQ(FastCrc32c("123456789", 9), 0xE3069283u);
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 131 + 7));
  for (size_t n : {0, 1, 7, 8, 9, 63, 64, 999, 1000})
    for (size_t off : {0, 1, 3})
      if (off + n <= data.size()) EXPECT_EQ(FastCrc32c(data.data() + off, n), Crc32c(data.data() + off, n)) << n;
  EXPECT_EQ(FastCrc32c(data.data() + 5, 100, FastCrc32c(data.data(), 5)), Crc32c(data.data(), 105));
}

}  // namespace
}  // namespace mindrecord::bench
