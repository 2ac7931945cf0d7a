// Rows located without the SQLite index: from the header's page list and the
// pages' length prefixes, walked lazily per row group. MindSpore's files read
// the same with and without their .db; corrupt prefixes are Corruption naming
// the file, page and offset; the reader's structures stay small; concurrent
// first reads of a group are safe (run under TSan in CI's tsan preset).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <tuple>

#include "mindrecord/checksum.h"
#include "readers/header_io.h"
#include "readers/row_map.h"
#include "readers/row_map_cache.h"
#include "readers/shard_reader.h"
#include "readers/verified_pages.h"
#include "tests/util/smaps.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::CompatDir;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

std::string WriteMapDataset(const TempDir& dir, const std::string& name, int rows, bool checksums, uint32_t shards = 1,
                  int img_bytes = 300, uint64_t header_size = kMinHeaderSize, uint64_t page_size = kMinPageSize) {
  WriterOptions o;
  o.shard_count = shards;
  o.header_size = header_size;
  o.page_size = page_size;
  o.checksums = checksums;
  // RowMap locates the rows of files without piece tables (MindSpore's, ours
  // written without them); piece_index_test.cc covers files with them.
  o.piece_tables = false;
  auto w = *ShardWriter::Create(dir.Join(name), testing::IdNameImgSchema(), o);
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) {
    batch.push_back(testing::IdNameImgRow(i, img_bytes + i % 97));
  }
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

std::vector<Row> ReadAllRows(const std::string& path, std::vector<std::string>* warnings = nullptr) {
  auto r = ShardReader::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  if (warnings) *warnings = (*r)->warnings();
  std::vector<Row> rows;
  for (uint64_t i = 0; i < (*r)->num_rows(); ++i) {
    auto row = (*r)->ReadRow(i);
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    rows.push_back(row.ok() ? *row : Row());
  }
  // A scan of a fresh reader walks from the pages it loads.
  auto fresh = *ShardReader::Open(path);
  uint64_t n = 0;
  EXPECT_TRUE(fresh
                  ->Scan(0, fresh->num_rows(), nullptr,
                         [&](uint64_t id, Row&& row) {
                           EXPECT_EQ(row, rows[id]) << "row " << id;
                           ++n;
                           return Status::OK();
                         })
                  .ok());
  EXPECT_EQ(n, rows.size());
  return rows;
}

TEST(RowMapTest, MindSporeFilesReadTheSameWithoutTheirIndex) {
  const std::string compat = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  for (const char* rel : {"imagenet", "graph", "twobytes"}) {
    TempDir dir;
    const std::string src = compat + "/mindrecord/" + rel;
    for (const auto& e : std::filesystem::directory_iterator(src)) {
      std::filesystem::copy_file(e.path(), dir.Join(e.path().filename().string()));
    }
    const std::string first = std::string(rel) == "imagenet" ? "imagenet.mindrecord2"
                              : std::string(rel) == "graph"  ? "testdata"
                                                             : "twobytes.mindrecord";
    std::vector<std::string> warnings;
    const std::vector<Row> with = ReadAllRows(dir.Join(first), &warnings);
    ASSERT_FALSE(with.empty()) << rel;
    EXPECT_TRUE(warnings.empty());
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      if (e.path().extension() == ".db") std::filesystem::remove(e.path());
    }
    const std::vector<Row> without = ReadAllRows(dir.Join(first), &warnings);
    EXPECT_EQ(without, with) << rel;
    const size_t shards = std::string(rel) == "imagenet" ? 4 : 1;
    ASSERT_EQ(warnings.size(), shards) << rel;
    EXPECT_NE(warnings[0].find(".db"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("missing"), std::string::npos) << warnings[0];
  }
}

// The offset of row `row`'s part (blob or raw) as the index records it: from
// an intact reader's ReadEncoded is not enough, so walk the page here.
uint64_t PrefixOffset(const std::string& bytes, uint64_t page_off, uint64_t first, uint64_t row) {
  uint64_t pos = first;
  for (uint64_t r = 0; r < row; ++r) {
    uint64_t len;
    std::memcpy(&len, bytes.data() + page_off + pos, 8);
    pos += 8 + len;
  }
  return pos;
}

// Gives page `page` of the shard image `bytes` the checksum of what it holds
// now and seals the header again: a damaged file that looks whole.
void ResealPage(std::string* bytes, const ShardHeader& h, uint64_t page) {
  const PageInfo& p = h.pages[page];
  const std::string stored = p.extra.at(kPageChecksumKey).get<std::string>();
  const std::string now = ChecksumHex(Xxh3(std::string_view(bytes->data() + h.PageOffset(page), p.used_bytes)));
  uint64_t len;
  std::memcpy(&len, bytes->data(), 8);
  std::string json = bytes->substr(8, len);
  const size_t at = json.find(stored);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, stored.size(), now);
  SealHeaderChecksum(&json);
  bytes->replace(8, len, json);
}

// Pages with checksums are walked from the pieces their checksum is computed
// from; a damaged prefix under a checksum that matches it is found the same.
void CheckCorruptLengthPrefix(bool checksums) {
  TempDir dir;
  const std::string path = WriteMapDataset(dir, "c.mindrecord", 40, checksums);
  const std::string good = ReadFile(path);
  auto r = *ShardReader::Open(path);
  const ShardHeader& h = r->header(0);
  const PageInfo* blob = nullptr;
  const PageInfo* raw = nullptr;
  for (const auto& p : h.pages) {
    if (p.is_blob && !blob && p.end_row_id - p.start_row_id >= 4) blob = &p;
    if (!p.is_blob && !raw) raw = &p;
  }
  ASSERT_TRUE(blob && raw);
  for (bool is_blob : {true, false}) {
    const PageInfo& p = is_blob ? *blob : *raw;
    // The third row of the page (its group's, for raw) gets a length past the page's end.
    const uint64_t row_in_group = 2;
    const uint64_t first = is_blob ? 0 : p.row_groups[0].second;
    const uint64_t page_off = h.PageOffset(p.page_id);
    const uint64_t pos = PrefixOffset(good, page_off, first, row_in_group);
    std::string bad = good;
    const uint64_t huge = 1ull << 40;
    std::memcpy(bad.data() + page_off + pos, &huge, 8);
    if (checksums) ResealPage(&bad, h, p.page_id);
    WriteFile(path, bad);
    // The raw page's first group holds the rows of the blob page it names.
    uint64_t group_first = p.start_row_id;
    for (const auto& q : h.pages) {
      if (!is_blob && q.is_blob && q.page_type_id == p.row_groups[0].first) group_first = q.start_row_id;
    }
    const uint64_t bad_row = group_first + row_in_group;
    for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
      ReaderOptions o;
      o.io_mode = mode;
      // With the index: it locates the group's rows, and only the damaged row fails.
      {
        auto rd = ShardReader::Open(path, o);
        ASSERT_TRUE(rd.ok()) << rd.status().ToString();
        auto got = (*rd)->ReadRow(bad_row);
        ASSERT_FALSE(got.ok());
        EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
        EXPECT_NE(got.status().message().find(is_blob ? "blob part" : "raw part"), std::string::npos)
            << got.status().message();
        EXPECT_TRUE((*rd)->ReadRow(bad_row - 1).ok());
        EXPECT_TRUE((*rd)->ReadRow(bad_row + 1).ok());
      }
      // Without it: the walk's error names the file, page and offset, for
      // every row of the group, and a scan meets it too.
      std::filesystem::rename(path + ".db", path + ".db.away");
      auto rd = ShardReader::Open(path, o);
      ASSERT_TRUE(rd.ok()) << rd.status().ToString();  // O(pages): nothing walked yet
      for (uint64_t probe : {bad_row, bad_row + 1}) {
        auto got = (*rd)->ReadRow(probe);
        ASSERT_FALSE(got.ok()) << (is_blob ? "blob" : "raw");
        const std::string& m = got.status().message();
        EXPECT_EQ(got.status().code(), StatusCode::kCorruption) << m;
        EXPECT_NE(m.find("c.mindrecord"), std::string::npos) << m;
        EXPECT_NE(m.find("page " + std::to_string(p.page_id) + " offset " + std::to_string(pos)), std::string::npos)
            << m;
        EXPECT_NE(m.find((is_blob ? "blob part of row " : "raw part of row ") + std::to_string(bad_row)),
                  std::string::npos)
            << m;
      }
      Status st = (*rd)->Scan(0, (*rd)->num_rows(), nullptr, [](uint64_t, Row&&) { return Status::OK(); });
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
      std::filesystem::rename(path + ".db.away", path + ".db");
    }
  }
  // Rows of other groups stay readable: the walk is per group.
  std::string bad = good;
  const uint64_t last_blob_off = h.PageOffset(blob->page_id);
  const uint64_t huge = 1ull << 40;
  std::memcpy(bad.data() + last_blob_off + PrefixOffset(good, last_blob_off, 0, 2), &huge, 8);
  if (checksums) ResealPage(&bad, h, blob->page_id);
  WriteFile(path, bad);
  std::filesystem::remove(path + ".db");
  auto rd = *ShardReader::Open(path);
  uint64_t ok_rows = 0;
  for (uint64_t i = 0; i < rd->num_rows(); ++i) ok_rows += rd->ReadRow(i).ok();
  EXPECT_EQ(ok_rows, rd->num_rows() - (blob->end_row_id - blob->start_row_id));
}

TEST(RowMapTest, CorruptLengthPrefixIsCorruptionNamingFilePageAndOffset) { CheckCorruptLengthPrefix(false); }

TEST(RowMapTest, CorruptLengthPrefixUnderAMatchingChecksumIsFoundAsThePageIsHashed) {
  CheckCorruptLengthPrefix(true);
}

// A shard of `rows` small rows (~20-byte images) on pages of `page_size`,
// opened in `mode`; its path in *path when given.
std::unique_ptr<ShardReader> WriteAndOpen(const TempDir& dir, const std::string& name, int rows, bool checksums,
                                          uint64_t page_size, IoMode mode, std::string* path = nullptr) {
  const std::string written = WriteMapDataset(dir, name, rows, checksums, 1, 20, kMinHeaderSize, page_size);
  if (path) *path = written;
  ReaderOptions o;
  o.io_mode = mode;
  return *ShardReader::Open(written, o);
}

// The header's first blob page (or raw page); null when it has none.
const PageInfo* FirstPage(const ShardHeader& h, bool blob) {
  for (const auto& p : h.pages) {
    if (p.is_blob == blob) return &p;
  }
  return nullptr;
}

TEST(RowMapTest, FirstReadOfAPageReadsItOnce) {
  // Small rows on 4 MiB pages: the first read of a row verifies its pages'
  // checksums and walks their prefixes from the same reads; a page without
  // a checksum is walked in reads that grow with the prefixes they hold.
  for (bool checksums : {true, false}) {
    SCOPED_TRACE(checksums ? "checksums" : "no checksums");
    TempDir dir;
    auto r = WriteAndOpen(dir, "once.mindrecord", 60000, checksums, 4 << 20, IoMode::kPread);
    const PageInfo* blob = FirstPage(r->header(0), true);
    const PageInfo* raw = FirstPage(r->header(0), false);
    ASSERT_TRUE(blob && raw);
    ASSERT_GT(blob->used_bytes, 3u << 20);
    using testing::ProcSelfIo;
    const uint64_t before = ProcSelfIo("rchar:"), calls_before = ProcSelfIo("syscr:");
    if (before == 0) GTEST_SKIP() << "/proc/self/io gives no rchar";
    auto row = r->ReadRow((blob->start_row_id + blob->end_row_id) / 2);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    const uint64_t read = ProcSelfIo("rchar:") - before, calls = ProcSelfIo("syscr:") - calls_before;
    // The blob page and the raw page (this group's part of it, without checksums).
    EXPECT_LE(read, blob->used_bytes + raw->used_bytes + (1 << 20)) << blob->used_bytes << " + " << raw->used_bytes;
    EXPECT_GE(read, blob->used_bytes);
    // In pieces of up to 1 MiB (hashed) or 256 KiB (walked), not of 16 KiB (256 of them for the blob page).
    EXPECT_LE(calls, 40u);
  }
}

TEST(RowMapTest, FirstReadOfAMappedPageMapsLittleMoreThanTheRow) {
  // A mapped shard's page hashed or walked for one row is let go of from the
  // mapping as it goes (RandomAccessFile::ReleaseMapped): the row stays
  // mapped, not the 8 MiB page around it (open + one row of a 1M-row shard
  // held 57 MB of resident memory; by pread, 9 MB). The walk, in 1 MiB steps
  // cut anywhere in a prefix, still locates every row of the page.
  for (bool checksums : {true, false}) {
    SCOPED_TRACE(checksums ? "checksums" : "no checksums");
    TempDir dir;
    std::string path;
    auto r = WriteAndOpen(dir, "mapped.mindrecord", 120000, checksums, 8 << 20, IoMode::kMmap, &path);
    const PageInfo* blob = FirstPage(r->header(0), true);
    ASSERT_TRUE(blob);
    ASSERT_GT(blob->used_bytes, 6u << 20);
    const uint64_t id = (blob->start_row_id + blob->end_row_id) / 2;
    auto row = r->ReadRow(id);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_EQ(*row, testing::IdNameImgRow(static_cast<int>(id), 20 + static_cast<int>(id) % 97));
    const long rss_kb = testing::SmapsValue("Rss", [&](uintptr_t, uintptr_t, const std::string& line) {
      return line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
    });
    ASSERT_GE(rss_kb, 0) << "no mapping of " << path << " in /proc/self/smaps";
    // The row and the header, in 2 MiB pages at most where the mapping is
    // advised as huge pages.
    EXPECT_LE(rss_kb, 4096) << blob->used_bytes << "-byte page";
    for (uint64_t i = blob->start_row_id; i < blob->end_row_id; ++i) {
      auto each = r->ReadRow(i);
      ASSERT_TRUE(each.ok()) << each.status().ToString();
      ASSERT_EQ(*each, testing::IdNameImgRow(static_cast<int>(i), 20 + static_cast<int>(i) % 97)) << "row " << i;
    }
  }
}

TEST(RowMapTest, WalksFedInPiecesOfAnySizeAgreeWithTheWalk) {
  // Prefixes cut anywhere by the pieces a page is hashed in (1 MiB) must read
  // as whole ones: pieces of 1 to 9 bytes cut every prefix somewhere.
  TempDir dir;
  const std::string path = WriteMapDataset(dir, "p.mindrecord", 2000, true, 1, 5);
  auto file = *FileSystem::Default()->OpenRead(path);
  const ShardHeader h = *ReadShardHeader(*file, true);
  const std::string bytes = ReadFile(path);
  auto want = *RowMap::Build(h, path);
  ASSERT_GT(want->num_groups(), 1u);
  for (size_t g = 0; g < want->num_groups(); ++g) {
    for (auto part : {RowMap::Part::kRaw, RowMap::Part::kBlob}) ASSERT_TRUE(want->Walk(g, part, *file).ok());
  }
  for (uint64_t piece : {1, 3, 7, 8, 9, 64, 1 << 20}) {
    SCOPED_TRACE(piece);
    auto got = *RowMap::Build(h, path);
    for (size_t g = 0; g < got->num_groups(); ++g) {
      for (auto part : {RowMap::Part::kRaw, RowMap::Part::kBlob}) {
        RowMap::PartWalk walk(*got, g, part);
        const uint64_t page = got->GroupPage(g, part), page_off = h.PageOffset(page);
        const uint64_t used = h.pages[page].used_bytes;
        for (uint64_t first = 0; first < used && !walk.done(); first += piece) {
          ASSERT_TRUE(walk.Feed(first, bytes.data() + page_off + first, std::min(piece, used - first)).ok());
        }
        ASSERT_TRUE(walk.done());
        ASSERT_TRUE(walk.Finish().ok());
      }
      for (uint64_t row = got->group_first_row(g); row < got->group_end_row(g); ++row) {
        CompactLocator a{}, b{};
        want->Fill(g, row, true, true, &a);
        got->Fill(g, row, true, true, &b);
        ASSERT_EQ(std::tie(a.raw_page, a.raw_begin, a.raw_end, a.blob_page, a.blob_begin, a.blob_end),
                  std::tie(b.raw_page, b.raw_begin, b.raw_end, b.blob_page, b.blob_begin, b.blob_end))
            << "row " << row;
      }
    }
  }
}

TEST(RowMapTest, OpenReadsNoRowsAndLocatorsStaySmall) {
  TempDir dir;
  const int kRows = 20000;
  const std::string path = WriteMapDataset(dir, "m.mindrecord", kRows, true, 1, 20, 1 << 20);
  auto r = *ShardReader::Open(path);
  const uint64_t pages = r->header(0).pages.size();
  // Before any read: O(pages), not O(rows).
  EXPECT_LT(r->locator_bytes(), 200 * pages + 1024) << pages << " pages";
  EXPECT_LT(r->locator_bytes(), static_cast<uint64_t>(kRows));
  ASSERT_TRUE(r->ReadRow(kRows / 2).ok());
  for (uint64_t i = 0; i < r->num_rows(); i += 7) ASSERT_TRUE(r->ReadRow(i).ok());
  ASSERT_TRUE(r->ReadRow(r->num_rows() - 1).ok());
  // Every group walked, both parts: 4 bytes per row and part plus per page.
  const double per_row = static_cast<double>(r->locator_bytes()) / kRows;
  EXPECT_LE(per_row, 12.0) << r->locator_bytes();
  EXPECT_GE(per_row, 8.0) << r->locator_bytes();
}

// A reader opened per epoch or per DataLoader worker must not walk every
// page's prefixes again: readers of one unchanged file share what was walked,
// only while one of them is open, and never across a change of the file.
TEST(RowMapTest, ReadersOfAnUnchangedFileShareWalkedOffsets) {
  TempDir dir;
  const std::string path = WriteMapDataset(dir, "s.mindrecord", 3000, true);
  // Just written: its ctime may share a clock tick with a later change.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));
  auto a = *ShardReader::Open(path);
  const uint64_t unwalked = a->locator_bytes();
  std::vector<Row> rows;
  for (uint64_t i = 0; i < a->num_rows(); ++i) rows.push_back(*a->ReadRow(i));
  const uint64_t walked = a->locator_bytes();
  ASSERT_GT(walked, unwalked + 3000 * 4);
  for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
    ReaderOptions o;
    o.io_mode = mode;
    auto b = *ShardReader::Open(path, o);
    EXPECT_EQ(b->locator_bytes(), walked);  // nothing left to walk
    for (uint64_t i = 0; i < b->num_rows(); ++i) ASSERT_EQ(*b->ReadRow(i), rows[i]) << "row " << i;
  }
  // The same bytes written again: a new ctime, so a new reader walks afresh.
  WriteFile(path, ReadFile(path));
  auto c = *ShardReader::Open(path);
  EXPECT_EQ(c->locator_bytes(), unwalked);
  EXPECT_EQ(*c->ReadRow(2999), rows[2999]);
  // A map outlives its readers while it is among those handed out lately (a
  // dataset iterated epoch by epoch, a reader per epoch), until released.
  a.reset();
  c.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));
  auto d = *ShardReader::Open(path);
  for (uint64_t i = 0; i < d->num_rows(); ++i) ASSERT_TRUE(d->ReadRow(i).ok());
  auto e = *ShardReader::Open(path);
  EXPECT_EQ(e->locator_bytes(), d->locator_bytes());
  const uint64_t walked_again = d->locator_bytes();
  d.reset();
  e.reset();
  EXPECT_EQ((*ShardReader::Open(path))->locator_bytes(), walked_again);
  ReleaseRetainedRowMaps();
  EXPECT_EQ((*ShardReader::Open(path))->locator_bytes(), unwalked);
}

// Maps kept after their readers close are bounded in bytes: the oldest go
// first, the newest always stays.
TEST(RowMapTest, MapsKeptForLaterReadersAreCappedInBytes) {
  TempDir dir;
  const std::string p1 = WriteMapDataset(dir, "one.mindrecord", 3000, true);
  const std::string p2 = WriteMapDataset(dir, "two.mindrecord", 3000, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));
  ReleaseRetainedRowMaps();
  auto walk = [](const std::string& path) {
    auto r = *ShardReader::Open(path);
    for (uint64_t i = 0; i < r->num_rows(); ++i) EXPECT_TRUE(r->ReadRow(i).ok());
    return r->locator_bytes();
  };
  const uint64_t unwalked = (*ShardReader::Open(p1))->locator_bytes();
  const uint64_t full = walk(p1);
  ASSERT_GT(full, unwalked + 3000 * 4);
  // Room for both maps: both kept.
  SetRowMapRetentionBytes(4 * full);
  walk(p2);
  EXPECT_EQ((*ShardReader::Open(p1))->locator_bytes(), full);
  EXPECT_EQ((*ShardReader::Open(p2))->locator_bytes(), full);
  // Room for one: opening p2 last keeps p2 and lets p1 go.
  SetRowMapRetentionBytes(full + full / 2);
  EXPECT_EQ((*ShardReader::Open(p2))->locator_bytes(), full);
  EXPECT_EQ((*ShardReader::Open(p1))->locator_bytes(), unwalked);
  SetRowMapRetentionBytes(kRetainedMapBytes);
  ReleaseRetainedRowMaps();
}

TEST(RowMapTest, ConcurrentFirstReadsOfEveryGroupAgree) {
  TempDir dir;
  const std::string path = WriteMapDataset(dir, "t", 3000, true, 3);
  std::vector<Row> expect;
  {
    auto r = *ShardReader::Open(path);
    for (uint64_t i = 0; i < r->num_rows(); ++i) expect.push_back(*r->ReadRow(i));
  }
  for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
    ReaderOptions o;
    o.io_mode = mode;
    auto r = *ShardReader::Open(path, o);
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937_64 rng(t);
        for (int k = 0; k < 2000; ++k) {
          const uint64_t id = rng() % r->num_rows();
          auto row = r->ReadRow(id);
          if (!row.ok() || *row != expect[id]) ++mismatches;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
  }
}

}  // namespace
}  // namespace mindrecord
