// Shards read with pread keep their row groups' raw parts (the scalar fields)
// once a group's rows have been read one by one often enough: a shuffled pass
// is then one read per row instead of two, within a byte budget, with the
// same values and the same errors as the mapping gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <thread>

#include "readers/shard_reader.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ProcSelfIo;
using testing::TempDir;

// `rows` rows (id, name, a small img, v) on 1 MiB pages: several row groups.
std::string WriteGroupDataset(const TempDir& dir, int rows, bool checksums = true) {
  WriterOptions o;
  o.checksums = checksums;
  o.header_size = kMinHeaderSize;
  o.page_size = 1 << 20;
  auto w = *ShardWriter::Create(dir.Join("r.mindrecord"), testing::IdNameImgSchema(), o);
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) {
    batch.push_back(testing::IdNameImgRow(i, 100 + i % 37));
  }
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

std::unique_ptr<ShardReader> OpenReader(const std::string& path, IoMode mode) {
  ReaderOptions o;
  o.io_mode = mode;
  auto r = ShardReader::Open(path, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::vector<uint64_t> Shuffled(uint64_t n) {
  std::vector<uint64_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(7));
  return ids;
}

// Every row's status text and values, in `ids` order.
std::vector<std::string> ReadOutcomes(const ShardReader& r, const std::vector<uint64_t>& ids) {
  std::vector<std::string> out(ids.size());
  Status st = r.ReadRows(ids, nullptr, [&](size_t i, Result<Row>&& row) {
    out[i] = row.ok() ? "ok " + row->DebugString() : row.status().ToString();
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(RawGroupCacheTest, ShuffledPreadIsOneReadPerRowOnceGroupsAreKept) {
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000);
  auto r = OpenReader(path, IoMode::kPread);
  ASSERT_NE(r, nullptr);
  ASSERT_GE(r->header(0).pages.size(), 4u);
  const auto ids = Shuffled(r->num_rows());
  ReadOutcomes(*r, ids);  // walks the groups, reads them whole once their rows ask often enough
  const uint64_t before = ProcSelfIo("syscr:");
  if (before == 0) GTEST_SKIP() << "/proc/self/io gives no syscr";
  const auto got = ReadOutcomes(*r, ids);
  const uint64_t calls = ProcSelfIo("syscr:") - before;
  // One read per row (its blob part), not two.
  EXPECT_LE(calls, r->num_rows() + 100) << calls;
  EXPECT_GT(r->raw_group_bytes(), 0u);
  // The same rows as the mapping gives.
  EXPECT_EQ(got, ReadOutcomes(*OpenReader(path, IoMode::kMmap), ids));
}

TEST(RawGroupCacheTest, ThreadsReadingAtOnceKeepEachGroupOnce) {
  // Threads reach a group's threshold together: one set of bytes is kept
  // (the others' dropped and their budget given back), every row reads right
  // (run under TSan in CI's tsan preset).
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000);
  const auto ids = Shuffled(20000);
  const auto want = ReadOutcomes(*OpenReader(path, IoMode::kMmap), ids);
  auto r = OpenReader(path, IoMode::kPread);
  ASSERT_NE(r, nullptr);
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> threads;
  for (auto& g : got) threads.emplace_back([&] { g = ReadOutcomes(*r, ids); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
  auto one = OpenReader(path, IoMode::kPread);
  ReadOutcomes(*one, ids);
  EXPECT_EQ(r->raw_group_bytes(), one->raw_group_bytes());
}

TEST(RawGroupCacheTest, KeptBytesStayWithinTheBudget) {
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000);
  const auto ids = Shuffled(20000);
  for (uint64_t budget : {uint64_t{0}, uint64_t{1000}, uint64_t{300} << 10, uint64_t{64} << 20}) {
    SCOPED_TRACE(budget);
    ReaderOptions o;
    o.io_mode = IoMode::kPread;
    o.raw_group_cache_bytes = budget;
    auto r = *ShardReader::Open(path, o);
    ReadOutcomes(*r, ids);
    ReadOutcomes(*r, ids);
    EXPECT_LE(r->raw_group_bytes(), budget);
    if (budget >= (uint64_t{64} << 20)) EXPECT_GT(r->raw_group_bytes(), 0u);
    if (budget == 0) EXPECT_EQ(r->raw_group_bytes(), 0u);
  }
}

TEST(RawGroupCacheTest, AFewRowsNeverReadAGroupWhole) {
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000);
  auto r = OpenReader(path, IoMode::kPread);
  ASSERT_NE(r, nullptr);
  for (uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(r->ReadRow(i * 1999).ok());
  EXPECT_EQ(r->raw_group_bytes(), 0u);
}

TEST(RawGroupCacheTest, DamagedRawPartsGiveTheMappingsErrors) {
  // A raw part's length prefix and another's bytes damaged in the middle of
  // a group (no checksums): read twice in a shuffled order with pread (the
  // second pass from the kept group), every row gives what the mapping
  // gives: the one with the bad prefix a Corruption naming the file, page
  // and offset (the index locates the others), the other its decoded bytes
  // or its error.
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000, false);
  std::string bytes = testing::ReadFile(path);
  auto r0 = *ShardReader::Open(path);
  const ShardHeader h = r0->header(0);
  r0.reset();
  const PageInfo* raw = nullptr;
  for (const auto& p : h.pages) {
    if (!p.is_blob && !raw) raw = &p;
  }
  ASSERT_NE(raw, nullptr);
  const uint64_t off = h.PageOffset(raw->page_id);
  uint64_t pos = 0;
  for (int row = 0; row < 40; ++row) {
    uint64_t len;
    std::memcpy(&len, bytes.data() + off + pos, 8);
    if (row == 25) bytes[off + pos + 8 + 1] ^= 0x5a;  // a value's bytes
    if (row == 30) {
      const uint64_t wrong = len + 3;  // ends inside the next row
      std::memcpy(bytes.data() + off + pos, &wrong, 8);
    }
    pos += 8 + len;
  }
  testing::WriteFile(path, bytes);
  const auto ids = Shuffled(20000);
  const auto want = ReadOutcomes(*OpenReader(path, IoMode::kMmap), ids);
  const size_t bad = std::count_if(want.begin(), want.end(), [](const std::string& s) { return s.rfind("ok", 0); });
  EXPECT_GE(bad, 1u);
  const auto at = std::find_if(want.begin(), want.end(), [](const std::string& s) { return s.rfind("ok", 0); });
  EXPECT_NE(at->find(path), std::string::npos) << *at;
  auto r = OpenReader(path, IoMode::kPread);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(ReadOutcomes(*r, ids), want);
  EXPECT_GT(r->raw_group_bytes(), 0u);
  EXPECT_EQ(ReadOutcomes(*r, ids), want);
}

TEST(RawGroupCacheTest, AGroupThatCannotBeReadWholeLeavesItsRowsToBeReadAlone) {
  // The file loses its tail after the reader walked group 0: the group's raw
  // parts can no longer be read whole, and each row whose own bytes are
  // still there reads as before.
  TempDir dir;
  const std::string path = WriteGroupDataset(dir, 20000, false);
  auto r = OpenReader(path, IoMode::kPread);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->ReadRow(0).ok());  // walks group 0
  const ShardHeader& h = r->header(0);
  const PageInfo* raw = nullptr;
  for (const auto& p : h.pages) {
    if (!p.is_blob && !raw) raw = &p;
  }
  ASSERT_NE(raw, nullptr);
  const std::string bytes = testing::ReadFile(path);
  const uint64_t off = h.PageOffset(raw->page_id);
  uint64_t pos = 0;
  for (int row = 0; row < 100; ++row) {
    uint64_t len;
    std::memcpy(&len, bytes.data() + off + pos, 8);
    pos += 8 + len;
  }
  std::filesystem::resize_file(path, off + pos + 4);  // in the middle of row 100's raw part
  auto proj = *r->MakeProjection({"id"});
  std::vector<uint64_t> ids(200);
  std::iota(ids.begin(), ids.end(), 0);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<bool> ok(ids.size());
    ASSERT_TRUE(r->ReadRows(ids, &proj, [&](size_t i, Result<Row>&& row) {
                  ok[i] = row.ok() && row->Get("id").as_int() == static_cast<int64_t>(i);
                  return Status::OK();
                }).ok());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ok[i], i < 100) << i;
  }
  EXPECT_EQ(r->raw_group_bytes(), 0u);
}

}  // namespace
}  // namespace mindrecord
