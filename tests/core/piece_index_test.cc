// Piece tables (mindrecord/piece_table.h, readers/piece_index.h): a row's
// first read checks and walks one 64 KiB piece, not its page; damaged tables
// and pieces are found and reported as the pages' damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <cstring>
#include <thread>

#include "mindrecord/piece_table.h"
#include "readers/shard_reader.h"
#include "readers/verified_pages.h"
#include "readers/verifier.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

Row RowOf(int i) { return testing::IdNameImgRow(i, 20 + i % 97); }

std::string WritePieceDataset(const std::string& path, int rows, bool piece_tables = true, uint64_t header_size = 1 << 20,
                  uint64_t page_size = 4 << 20, int img_bytes = 0) {
  WriterOptions o;
  o.header_size = header_size;
  o.page_size = page_size;
  o.piece_tables = piece_tables;
  auto w = *ShardWriter::Create(path, testing::IdNameImgSchema(), o);
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) batch.push_back(img_bytes ? testing::IdNameImgRow(i, img_bytes) : RowOf(i));
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

std::unique_ptr<ShardReader> OpenPieceReader(const std::string& path, IoMode mode = IoMode::kPread) {
  ReaderOptions o;
  o.io_mode = mode;
  auto r = ShardReader::Open(path, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

const PageInfo* FirstPieceIndexedPage(const ShardHeader& h, bool blob) {
  for (const auto& p : h.pages) {
    if (p.is_blob == blob) return &p;
  }
  return nullptr;
}

TEST(PieceIndexTest, FirstReadOfARowReadsAPieceNotItsPage) {
  TempDir dir;
  const std::string path = WritePieceDataset(dir.Join("p.mindrecord"), 60000);
  auto r = OpenPieceReader(path);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->header(0).extra.contains(kPieceTableKey));
  const PageInfo* blob = FirstPieceIndexedPage(r->header(0), true);
  ASSERT_TRUE(blob);
  ASSERT_GT(blob->used_bytes, 3u << 20);
  const uint64_t before = testing::ProcSelfIo("rchar:");
  if (before == 0) GTEST_SKIP() << "/proc/self/io gives no rchar";
  const uint64_t id = (blob->start_row_id + blob->end_row_id) / 2;
  auto row = r->ReadRow(id);
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(*row, RowOf(static_cast<int>(id)));
  // Two tables, and for each part (raw, blob) one piece read once, walked
  // and checked from the same bytes: ~130 KB, where a whole-page check read
  // both pages (> 3 MiB).
  const uint64_t read = testing::ProcSelfIo("rchar:") - before;
  EXPECT_LE(read, 3u * kPieceBytes) << read;
  EXPECT_LT(r->locator_bytes(), 64u << 10);
}

TEST(PieceIndexTest, EveryRowReadsAsWrittenInEveryIoMode) {
  TempDir dir;
  const int n = 30000;
  const std::string path = WritePieceDataset(dir.Join("e.mindrecord"), n, true, 1 << 20, 1 << 20);
  for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
    SCOPED_TRACE(IoModeName(mode));
    auto r = OpenPieceReader(path, mode);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->num_rows(), static_cast<uint64_t>(n));
    // Backwards, so that pieces are walked out of order.
    for (int i = n - 1; i >= 0; --i) {
      auto row = r->ReadRow(static_cast<uint64_t>(i));
      ASSERT_TRUE(row.ok()) << row.status().ToString();
      ASSERT_EQ(*row, RowOf(i)) << "row " << i;
    }
  }
}

// Threads reading rows of a fresh reader at once race to read tables, walk
// pieces and check them: every row still reads as written (and under TSan,
// without a data race).
TEST(PieceIndexTest, ThreadsRacingToFirstReadsGetEveryRowRight) {
  TempDir dir;
  const int n = 12000;
  const std::string path = WritePieceDataset(dir.Join("c.mindrecord"), n, true, 1 << 20, 1 << 20);
  for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
    auto r = OpenPieceReader(path, mode);
    ASSERT_TRUE(r);
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::vector<int> order(n);
        for (int i = 0; i < n; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), std::mt19937(t));
        for (int i : order) {
          auto row = r->ReadRow(static_cast<uint64_t>(i));
          wrong[t] += !row.ok() || !(*row == RowOf(i));
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
}

// Threads that race to walk the same piece count its offsets once: a fresh
// reader's locator bytes after the race equal those of one thread reading the
// same row of the same file.
TEST(PieceIndexTest, RacingWalksOfOnePieceCountItsBytesOnce) {
  TempDir dir;
  const int n = 4000;
  const uint64_t id = 1234;
  uint64_t alone = 0;
  {
    auto r = OpenPieceReader(WritePieceDataset(dir.Join("alone.mindrecord"), n, true, 1 << 20, 1 << 20));
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->ReadRow(id).ok());
    alone = r->locator_bytes();
  }
  int more = 0;
  for (int round = 0; round < 30; ++round) {
    // A new file each round: its index is not shared with an earlier reader.
    auto r = OpenPieceReader(WritePieceDataset(dir.Join("race" + std::to_string(round) + ".mindrecord"), n, true, 1 << 20, 1 << 20));
    ASSERT_TRUE(r);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    std::atomic<int> failed{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        ready.fetch_add(1);
        while (ready.load() < 4) {
        }
        failed += !r->ReadRow(id).ok();
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(failed.load(), 0);
    more += r->locator_bytes() != alone;
    EXPECT_EQ(r->locator_bytes(), alone) << "round " << round;
  }
  EXPECT_EQ(more, 0);
}

// The table a header names, as stored.
PieceTableLayout LayoutOf(const std::string& path) {
  auto r = OpenPieceReader(path);
  const ShardHeader& h = r->header(0);
  return *PieceTableLayout::FromHeader(h, kLengthPrefix + h.json_bytes, path);
}

TEST(PieceIndexTest, ADamagedPieceIsThePagesChecksumMismatch) {
  TempDir dir;
  const std::string path = WritePieceDataset(dir.Join("d.mindrecord"), 20000);
  const ShardHeader h = OpenPieceReader(path)->header(0);
  const PageInfo* blob = FirstPieceIndexedPage(h, true);
  std::string bytes = ReadFile(path);
  const uint64_t at = h.PageOffset(blob->page_id) + blob->used_bytes / 2;
  bytes[at] = static_cast<char>(bytes[at] ^ 0x04);
  WriteFile(path, bytes);
  auto r = OpenPieceReader(path);
  // A row of the damaged piece fails, naming the page; one far from it reads.
  const uint64_t id = (blob->start_row_id + blob->end_row_id) / 2;
  Status st = Status::OK();
  for (uint64_t i = id - 200; i < id + 200 && st.ok(); ++i) st = r->ReadRow(i).status();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("page " + std::to_string(blob->page_id)), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos) << st.message();
}

TEST(PieceIndexTest, ADamagedTableStillReadsEveryRowAndVerifyNamesIt) {
  TempDir dir;
  const int n = 20000;
  const std::string path = WritePieceDataset(dir.Join("t.mindrecord"), n);
  const PieceTableLayout layout = LayoutOf(path);
  ASSERT_TRUE(layout.present());
  std::string bytes = ReadFile(path);
  // A first row moved on in the first page's table, its checksum made to
  // match: the walk from it cannot end where the next piece begins.
  const uint64_t at = layout.slice_at[0] + kPieceEntryBytes * 3 + 8;
  uint32_t first_row;
  std::memcpy(&first_row, bytes.data() + at, 4);
  first_row += 1;
  std::memcpy(bytes.data() + at, &first_row, 4);
  const uint64_t n0 = layout.pieces[0] * kPieceEntryBytes;
  const uint64_t sum = Xxh3(std::string_view(bytes.data() + layout.slice_at[0], n0));
  std::memcpy(bytes.data() + layout.slice_at[0] + n0, &sum, 8);
  // And the second page's table damaged outright.
  bytes[layout.slice_at[1] + 5] ^= 0x01;
  WriteFile(path, bytes);
  auto r = OpenPieceReader(path);
  ASSERT_TRUE(r);
  for (int i = 0; i < n; ++i) {
    auto row = r->ReadRow(static_cast<uint64_t>(i));
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    ASSERT_EQ(*row, RowOf(i)) << "row " << i;
  }
  const VerifyReport rep = Verify(path);
  ASSERT_EQ(rep.problems.size(), 2u) << rep.ToJson().dump();
  EXPECT_NE(rep.problems[0].find("t.mindrecord: piece table of page 0: piece 3 says row"), std::string::npos)
      << rep.problems[0];
  EXPECT_NE(rep.problems[1].find("t.mindrecord: piece table of page 1: checksum mismatch"), std::string::npos)
      << rep.problems[1];
}

// A header whose tables no longer match its pages (an older version's
// append keeps the key but not the tables): the rows read through the
// pages, and verify reports the tables.
TEST(PieceIndexTest, TablesThatDisagreeWithTheHeaderAreNotUsed) {
  TempDir dir;
  const int n = 5000;
  const std::string path = WritePieceDataset(dir.Join("o.mindrecord"), n);
  std::string bytes = ReadFile(path);
  uint64_t len;
  std::memcpy(&len, bytes.data(), 8);
  std::string json = bytes.substr(8, len);
  const size_t at = json.find("\"bytes\":");
  ASSERT_NE(at, std::string::npos);
  json[at + 8] = json[at + 8] == '9' ? '1' : static_cast<char>(json[at + 8] + 1);  // same length, another size
  SealHeaderChecksum(&json);
  bytes.replace(8, len, json);
  WriteFile(path, bytes);
  auto r = OpenPieceReader(path);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->warnings().size(), 1u);
  EXPECT_NE(r->warnings()[0].find("o.mindrecord: its piece tables do not match its header"), std::string::npos)
      << r->warnings()[0];
  for (int i = n - 1; i >= 0; i -= 3) {
    auto row = r->ReadRow(static_cast<uint64_t>(i));
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    ASSERT_EQ(*row, RowOf(i));
  }
  const VerifyReport rep = Verify(path);
  ASSERT_EQ(rep.problems.size(), 1u) << rep.ToJson().dump();
  EXPECT_NE(rep.problems[0].find("header key mr_pieces"), std::string::npos) << rep.problems[0];
}

TEST(PieceIndexTest, AppendsKeepTablesThatLocateEveryRow) {
  TempDir dir;
  const std::string path = WritePieceDataset(dir.Join("a.mindrecord"), 5000);
  for (int round = 0; round < 2; ++round) {
    auto w = *ShardWriter::OpenForAppend(path);
    std::vector<Row> batch;
    for (int i = 0; i < 7000; ++i) batch.push_back(RowOf(5000 + round * 7000 + i));
    ASSERT_TRUE(w->WriteRows(batch).ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  auto r = OpenPieceReader(path);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->header(0).extra.contains(kPieceTableKey));
  ASSERT_EQ(r->num_rows(), 19000u);
  for (int i = 18999; i >= 0; --i) {
    auto row = r->ReadRow(static_cast<uint64_t>(i));
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    ASSERT_EQ(*row, RowOf(i)) << "row " << i;
  }
  EXPECT_TRUE(Verify(path, {.deep = true}).ok());
}

TEST(PieceIndexTest, TablesThatDoNotFitTheHeaderAreLeftOut) {
  TempDir dir;
  // 16 KiB of header area: room for the JSON, not for the tables of 70 MB
  // (~1,100 pieces).
  const std::string path = WritePieceDataset(dir.Join("s.mindrecord"), 700, true, kMinHeaderSize, 32 << 20, 100000);
  auto r = OpenPieceReader(path);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->header(0).extra.contains(kPieceTableKey));
  EXPECT_TRUE(r->header(0).pages[0].extra.contains(kPageChecksumKey));
  for (uint64_t i : {0ul, 345ul, 699ul}) {
    auto row = r->ReadRow(i);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_EQ(*row, testing::IdNameImgRow(static_cast<int>(i), 100000));
  }
}

// A page checked piece by piece until every piece was is remembered as a
// page checked whole: later readers (a new pipeline each epoch, forked
// DataLoader workers) do not hash it again.
TEST(PieceIndexTest, PagesCheckedPieceByPieceAreRememberedForLaterReaders) {
  TempDir dir;
  const int n = 20000;
  const std::string path = WritePieceDataset(dir.Join("r.mindrecord"), n);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));  // the file is quiet
  auto r = OpenPieceReader(path);
  const ShardHeader& h = r->header(0);
  auto remembered = [&] {
    size_t k = 0;
    for (const auto& pg : h.pages) {
      k += PageVerifiedBefore(IdentityOf(path), pg.page_id, pg.extra.at(kPageChecksumKey).get<std::string>());
    }
    return k;
  };
  EXPECT_EQ(remembered(), 0u);
  // Half the rows: the pages are checked in part only.
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(r->ReadRow(static_cast<uint64_t>(i)).ok());
  const uint64_t before = testing::ProcSelfIo("rchar:");
  for (int i = 0; i < n; ++i) ASSERT_TRUE(r->ReadRow(static_cast<uint64_t>(i)).ok());
  EXPECT_EQ(remembered(), h.pages.size());
  // A new reader's first row: its two tables and two walks (64 KiB each), no
  // piece hashed (two more 64 KiB reads).
  auto later = OpenPieceReader(path);
  const uint64_t mid = testing::ProcSelfIo("rchar:");
  ASSERT_TRUE(later->ReadRow(n / 2).ok());
  if (before == 0) GTEST_SKIP() << "/proc/self/io gives no rchar";
  EXPECT_LT(testing::ProcSelfIo("rchar:") - mid, 3 * kPieceBytes);
}

// Random damage to the tables, with each slice's own checksum made to match
// again (as a crafted dataset's would): every read is a row of the dataset
// or a Corruption error, never a crash or an out-of-bounds read (run under
// ASan/UBSan by .ci/sanitize). (Here every damaged table is refused or its
// piece fails its check, and the row group's walk reads the rows right.)
TEST(PieceIndexTest, TablesDamagedAtRandomReadRightOrFailCleanly) {
  TempDir dir;
  const int n = 8000;
  const std::string path = WritePieceDataset(dir.Join("f.mindrecord"), n, true, 1 << 20, 256 << 10);
  const std::string good = ReadFile(path);
  const PieceTableLayout layout = LayoutOf(path);
  ASSERT_TRUE(layout.present());
  uint64_t pieces = 0;
  for (uint64_t k : layout.pieces) pieces += k;
  ASSERT_GE(pieces, 8u);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 60; ++round) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 6);
    for (int f = 0; f < flips; ++f) {
      const uint64_t at = layout.offset + rng() % layout.bytes;
      bytes[at] = static_cast<char>(rng() % 3 == 0 ? rng() : bytes[at] ^ (1 << (rng() % 8)));
    }
    for (size_t i = 0; i < layout.pieces.size(); ++i) {
      const uint64_t entries = layout.pieces[i] * kPieceEntryBytes;
      const uint64_t sum = Xxh3(std::string_view(bytes).substr(layout.slice_at[i], entries));
      std::memcpy(bytes.data() + layout.slice_at[i] + entries, &sum, 8);
    }
    WriteFile(path, bytes);
    for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
      auto r = OpenPieceReader(path, mode);
      ASSERT_TRUE(r);
      for (int i = static_cast<int>(rng() % 7); i < n; i += 7) {
        auto row = r->ReadRow(static_cast<uint64_t>(i));
        if (!row.ok()) {
          ASSERT_EQ(row.status().code(), StatusCode::kCorruption) << row.status().ToString();
          continue;
        }
        // A table that lies consistently could name another row's bytes (as
        // a crafted dataset can hold any bytes); what must hold is that the
        // value is a row of the dataset.
        const int64_t id = row->Get("id").as_int();
        ASSERT_TRUE(id >= 0 && id < n) << id;
        ASSERT_EQ(*row, RowOf(static_cast<int>(id)));
      }
    }
  }
}

TEST(PieceIndexTest, BuilderFindsEachPiecesFirstRowWhateverTheFeeds) {
  // Rows of 8 + 100 bytes on 4 KiB pieces, fed in ragged runs that cut
  // prefixes anywhere.
  std::string page;
  for (int i = 0; i < 500; ++i) {
    const uint64_t len = 100;
    page.append(reinterpret_cast<const char*>(&len), 8);
    page.append(len, static_cast<char>(i));
  }
  PieceTableBuilder whole(kMinPieceBytes), ragged(kMinPieceBytes);
  whole.Feed(page);
  for (size_t at = 0, step = 1; at < page.size(); at += step, step = step * 3 % 1013 + 1) {
    ragged.Feed(std::string_view(page).substr(at, step));
  }
  const auto a = whole.Finish(), b = ragged.Finish();
  ASSERT_EQ(a.size(), PieceCount(page.size(), kMinPieceBytes));
  ASSERT_EQ(b.size(), a.size());
  for (size_t j = 0; j < a.size(); ++j) {
    const uint64_t first = (j * kMinPieceBytes + 107) / 108;  // rows start every 108 bytes
    EXPECT_EQ(a[j].first_row, first) << j;
    EXPECT_EQ(a[j].offset, first * 108) << j;
    EXPECT_EQ(a[j].hash, Xxh3(std::string_view(page).substr(j * kMinPieceBytes, kMinPieceBytes))) << j;
    EXPECT_EQ(b[j].first_row, a[j].first_row);
    EXPECT_EQ(b[j].offset, a[j].offset);
    EXPECT_EQ(b[j].hash, a[j].hash);
  }
  // Decoding checks the slice's own checksum and the anchors' order.
  std::string slice = EncodePieceSlice(a);
  EXPECT_TRUE(DecodePieceSlice(slice, kMinPieceBytes, page.size(), 500, 0, "p", 0).ok());
  EXPECT_FALSE(DecodePieceSlice(slice, kMinPieceBytes, page.size(), 400, 0, "p", 0).ok());  // rows past the count
  slice[3] ^= 1;
  auto bad = DecodePieceSlice(slice, kMinPieceBytes, page.size(), 500, 0, "p", 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p: piece table of page 0: checksum mismatch"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace mindrecord
