// Mapped shard files shared by the readers of one process
// (readers/mapping_cache.h): a reader opened after another closed reuses its
// mapping (with its page tables) while the file is unchanged; a changed,
// replaced or deleted file is never handed out and its kept mapping is
// dropped; the kept mappings are capped.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "readers/mapping_cache.h"
#include "readers/shard_reader.h"
#include "readers/verified_pages.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

std::string WriteMappedDataset(const TempDir& dir, const std::string& name, int rows) {
  auto w = *ShardWriter::Create(dir.Join(name), testing::IdNameImgSchema(), WriterOptions{});
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) {
    batch.push_back(testing::IdNameImgRow(i, 200 + i % 31));
  }
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

void WaitQuiet() { std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200)); }

std::unique_ptr<ShardReader> OpenMapped(const std::string& path) {
  ReaderOptions o;
  o.io_mode = IoMode::kMmap;
  auto r = ShardReader::Open(path, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

// The owner of the mapping the reader's rows lie in (row `row`'s view).
std::shared_ptr<const void> MappingOf(const ShardReader& r, uint64_t row = 0) {
  std::shared_ptr<const void> out;
  Status st = r.ReadRowViews({row}, nullptr, [&](size_t, const Status& s, const RowView& v) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    out = v.mapping();
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(MappingCacheTest, NextReaderOfTheSameFileReusesTheMappingAfterTheFirstCloses) {
  TempDir dir;
  const std::string path = WriteMappedDataset(dir, "a.mindrecord", 500);
  WaitQuiet();
  ReleaseRetainedMappings();
  auto a = OpenMapped(path);
  std::weak_ptr<const void> first = MappingOf(*a);
  ASSERT_FALSE(first.expired());
  a.reset();
  EXPECT_FALSE(first.expired()) << "the mapping went with its reader";
  auto b = OpenMapped(path);
  EXPECT_EQ(MappingOf(*b, 499), first.lock());
  for (int i : {0, 250, 499}) {
    auto row = b->ReadRow(i);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_EQ(row->Get("id").as_int(), i);
  }
  // Released, the mapping lives as long as its last reader.
  ReleaseRetainedMappings();
  EXPECT_FALSE(first.expired());
  b.reset();
  EXPECT_TRUE(first.expired());
}

TEST(MappingCacheTest, ChangedOrDeletedFilesAreNotReusedAndTheirMappingsGo) {
  TempDir dir;
  const std::string path = WriteMappedDataset(dir, "a.mindrecord", 300);
  const std::string other = WriteMappedDataset(dir, "b.mindrecord", 300);
  WaitQuiet();
  ReleaseRetainedMappings();
  std::weak_ptr<const void> kept = MappingOf(*OpenMapped(path));
  ASSERT_FALSE(kept.expired());
  // The same bytes written again: another ctime, so another file to readers.
  WriteFile(path, ReadFile(path));
  auto fresh = OpenMapped(path);
  EXPECT_NE(MappingOf(*fresh), kept.lock());
  EXPECT_EQ(fresh->ReadRow(299)->Get("id").as_int(), 299);
  // The changed file's old mapping was dropped by that open.
  EXPECT_TRUE(kept.expired());
  fresh.reset();
  // A deleted file's mapping goes at the next open of any dataset.
  WaitQuiet();
  kept = MappingOf(*OpenMapped(path));
  ASSERT_FALSE(kept.expired());
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".db");
  OpenMapped(other);
  EXPECT_TRUE(kept.expired()) << "a deleted file stays open";
  ReleaseRetainedMappings();
}

TEST(MappingCacheTest, KeptMappingsAreCappedInBytes) {
  TempDir dir;
  const std::string path = WriteMappedDataset(dir, "a.mindrecord", 300);
  WaitQuiet();
  ReleaseRetainedMappings();
  SetMappingRetentionBytes(0);
  std::weak_ptr<const void> kept = MappingOf(*OpenMapped(path));
  EXPECT_TRUE(kept.expired());
  SetMappingRetentionBytes(kRetainedMappingBytes);
  kept = MappingOf(*OpenMapped(path));
  EXPECT_FALSE(kept.expired());
  ReleaseRetainedMappings();
  EXPECT_TRUE(kept.expired());
}

TEST(MappingCacheTest, ReadersOpenedAtOnceShareOneMapping) {
  TempDir dir;
  const std::string path = WriteMappedDataset(dir, "a.mindrecord", 400);
  WaitQuiet();
  ReleaseRetainedMappings();
  std::vector<std::shared_ptr<const void>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto r = OpenMapped(path);
      for (int i = t; i < 400; i += 4) ASSERT_EQ(r->ReadRow(i)->Get("id").as_int(), i);
      seen[t] = MappingOf(*r, t);
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
  ReleaseRetainedMappings();
}

}  // namespace
}  // namespace mindrecord
