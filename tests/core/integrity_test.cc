// The integrity extension: page and header checksums, `verify`, index
// rebuild, and crash safety of create under SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "mindrecord/checksum.h"
#include "readers/shard_reader.h"
#include "readers/verified_pages.h"
#include "readers/verifier.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "mindrecord/commit_record.h"
#include "writers/index_rebuild.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

Schema IntegritySchema() { return testing::IdNameImgSchema(); }

std::vector<Row> IntegrityRows(int n, int first = 0, size_t blob = 60) {
  std::vector<Row> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back(Row{{"id", Value::Int(i)}, {"name", Value::String("n" + std::to_string(i))},
                       {"img", Value::Bytes(std::string(blob + i % 7, static_cast<char>('a' + i % 26)))},
                       {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, 2 * i})}});
  }
  return rows;
}

std::vector<std::string> WriteIntegrityDataset(const std::string& path, int rows, bool checksums = true, uint32_t shards = 1,
                               int batches = 2, bool piece_tables = true) {
  WriterOptions o;
  o.piece_tables = piece_tables;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.checksums = checksums;
  o.shard_count = shards;
  auto w = *ShardWriter::Create(path, IntegritySchema(), o);
  for (int b = 0; b < batches; ++b) EXPECT_TRUE(w->WriteRows(IntegrityRows(rows / batches, b * (rows / batches))).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths();
}

Status ReadEveryRow(const std::string& path) {
  auto r = ShardReader::Open(path);
  if (!r.ok()) return r.status();
  for (uint64_t i = 0; i < (*r)->num_rows(); ++i) {
    auto row = (*r)->ReadRow(i);
    if (!row.ok()) return row.status();
  }
  return Status::OK();
}

// Checksums are written as 16 lower-case hex digits, leading zeros kept.
TEST(IntegrityTest, ChecksumHexIsSixteenLowerCaseDigits) {
  EXPECT_EQ(ChecksumHex(0), "0000000000000000");
  EXPECT_EQ(ChecksumHex(0xabc), "0000000000000abc");
  EXPECT_EQ(ChecksumHex(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(ChecksumHex(~uint64_t{0}), "ffffffffffffffff");
  // XXH3-64 of the empty input (the xxHash reference value).
  EXPECT_EQ(ChecksumHex(Xxh3("")), "2d06800538d394c2");
}

TEST(IntegrityTest, ChecksumsAreWrittenByDefaultAndOffMeansPlainMindSporeOutput) {
  TempDir dir;
  WriteIntegrityDataset(dir.Join("on"), 20);
  WriteIntegrityDataset(dir.Join("off"), 20, false);
  auto on = *ShardReader::Open(dir.Join("on"));
  EXPECT_TRUE(on->header(0).extra.contains(kHeaderChecksumKey));
  for (const auto& p : on->header(0).pages) EXPECT_TRUE(p.extra.contains(kPageChecksumKey));
  const std::string off = ReadFile(dir.Join("off"));
  EXPECT_EQ(off.find("mr_"), std::string::npos);
  VerifyReport rep = Verify(dir.Join("on"), {.deep = true});
  EXPECT_TRUE(rep.ok()) << rep.ToJson().dump();
  EXPECT_TRUE(rep.header_checksums);
  EXPECT_EQ(rep.pages_checksummed, on->header(0).pages.size());
  EXPECT_EQ(rep.rows_decoded, 20u);
  EXPECT_TRUE(Verify(dir.Join("off"), {.deep = true}).ok());
}

// A reader opened later in the same process skips hashing pages an earlier
// reader verified, only while the file is unchanged and was already quiet
// when they were hashed; a changed file is hashed again and its damage found.
TEST(IntegrityTest, PagesVerifiedByAnEarlierReaderAreTrustedOnlyWhileTheFileIsUnchanged) {
  TempDir dir;
  // Whole pages are remembered (pages of files without piece tables).
  const std::string fresh = WriteIntegrityDataset(dir.Join("fresh"), 12, true, 1, 2, false)[0];
  const std::string path = WriteIntegrityDataset(dir.Join("d"), 12, true, 1, 2, false)[0];
  const ShardHeader h = (*ShardReader::Open(path))->header(0);
  auto all_remembered = [&](const std::string& p, bool want) {
    const FileIdentity id = IdentityOf(p);
    for (const auto& pg : h.pages) {
      const std::string sum = pg.extra.at(kPageChecksumKey).get<std::string>();
      if (PageVerifiedBefore(id, pg.page_id, sum) != want) return false;
    }
    return true;
  };
  // Just written: its ctime may still share a clock tick with a later change.
  ASSERT_TRUE(ReadEveryRow(fresh).ok());
  EXPECT_TRUE(all_remembered(fresh, false));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));
  EXPECT_TRUE(all_remembered(path, false));
  ASSERT_TRUE(ReadEveryRow(path).ok());
  EXPECT_TRUE(all_remembered(path, true));
  // A byte flipped in place: new ctime, so the pages are hashed again.
  std::string bad = ReadFile(path);
  const uint64_t at = h.PageOffset(h.pages[0].page_id) + h.pages[0].used_bytes / 2;
  bad[at] = static_cast<char>(bad[at] ^ 0x10);
  WriteFile(path, bad);
  EXPECT_TRUE(all_remembered(path, false));
  Status st = ReadEveryRow(path);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos) << st.message();
}

// DataLoader workers are forked afresh each epoch: what one verified, the
// parent and the workers forked after it trust (the record is shared).
TEST(IntegrityTest, PagesVerifiedInAForkedProcessAreTrustedByTheParent) {
  TempDir dir;
  const std::string path = WriteIntegrityDataset(dir.Join("d"), 12, true, 1, 2, false)[0];
  const ShardHeader h = (*ShardReader::Open(path))->header(0);
  ASSERT_GE(h.pages.size(), 2u);
  auto remembered = [&](bool want) {
    const FileIdentity id = IdentityOf(path);
    for (const auto& pg : h.pages) {
      const std::string sum = pg.extra.at(kPageChecksumKey).get<std::string>();
      if (PageVerifiedBefore(id, pg.page_id, sum) != want) return false;
    }
    return true;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 * kQuietSeconds + 200));
  EXPECT_TRUE(remembered(false));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(ReadEveryRow(path).ok() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(remembered(true));
}

TEST(IntegrityTest, EveryByteFlipOfEveryPageIsDetectedByReaderAndVerify) {
  TempDir dir;
  const std::string path = WriteIntegrityDataset(dir.Join("d"), 12)[0];
  const std::string good = ReadFile(path);
  auto r = *ShardReader::Open(path);
  const ShardHeader h = r->header(0);
  r.reset();
  size_t flips = 0;
  for (const auto& p : h.pages) {
    const uint64_t off = h.PageOffset(p.page_id);
    for (uint64_t i = off; i < off + p.used_bytes; ++i) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
      WriteFile(path, bad);
      Status st = ReadEveryRow(path);
      ASSERT_FALSE(st.ok()) << "flip at " << i << " went unnoticed by the reader";
      EXPECT_NE(st.message().find("page " + std::to_string(p.page_id)), std::string::npos) << st.message();
      ASSERT_FALSE(Verify(path).ok()) << "flip at " << i << " went unnoticed by verify";
      ++flips;
    }
  }
  EXPECT_GT(flips, 500u);
  // Every byte of the header JSON too.
  uint64_t len;
  std::memcpy(&len, good.data(), 8);
  for (uint64_t i = 0; i < 8 + len; ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    WriteFile(path, bad);
    ASSERT_FALSE(ReadEveryRow(path).ok()) << "header flip at " << i;
    ASSERT_FALSE(Verify(path).ok()) << "header flip at " << i;
  }
  // Turning checksum verification off reads past a flipped blob byte.
  std::string bad = good;
  bad[h.PageOffset(0) + 20] ^= 1;
  WriteFile(path, bad);
  ReaderOptions ro;
  ro.verify_checksums = false;
  EXPECT_TRUE((*ShardReader::Open(path, ro))->ReadRow(0).ok());
}

TEST(IntegrityTest, TruncationAtEveryPageBoundaryIsDetected) {
  TempDir dir;
  const std::string path = WriteIntegrityDataset(dir.Join("t"), 400, true, 1, 8)[0];
  const std::string good = ReadFile(path);
  auto h = (*ShardReader::Open(path))->header(0);
  ASSERT_GT(h.pages.size(), 2u);
  for (const auto& p : h.pages) {
    for (uint64_t cut : {h.PageOffset(p.page_id), h.PageOffset(p.page_id) + p.used_bytes - 1}) {
      if (cut >= good.size()) continue;
      WriteFile(path, good.substr(0, cut));
      EXPECT_FALSE(ReadEveryRow(path).ok()) << cut;
      EXPECT_FALSE(Verify(path).ok()) << cut;
    }
  }
}

TEST(IntegrityTest, VerifyChecksMindSporeFilesStructurally) {
  const std::string compat = testing::CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  for (const char* f : {"/mindrecord/imagenet/imagenet.mindrecord2", "/mindrecord/graph/testdata",
                        "/mindrecord/twobytes/twobytes.mindrecord"}) {
    VerifyReport rep = Verify(compat + f, {.deep = true});
    EXPECT_TRUE(rep.ok()) << f << ": " << rep.ToJson().dump();
    EXPECT_FALSE(rep.header_checksums);
    EXPECT_EQ(rep.rows_decoded, rep.rows);
  }
}

TEST(IntegrityTest, VerifyReportsIndexDisagreementsAndRebuildRepairsThem) {
  TempDir dir;
  auto paths = WriteIntegrityDataset(dir.Join("m"), 90, true, 3, 3);
  std::vector<Row> before;
  {
    auto r = *ShardReader::Open(paths[0]);
    for (uint64_t i = 0; i < r->num_rows(); ++i) before.push_back(*r->ReadRow(i));
  }
  // Shard 1: index deleted. Shard 2: one locator altered.
  fs::remove(paths[1] + ".db");
  sqlite3* db;
  ASSERT_EQ(sqlite3_open((paths[2] + ".db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE INDEXES SET PAGE_OFFSET_RAW=PAGE_OFFSET_RAW+1 WHERE ROW_ID=4", nullptr, nullptr,
                         nullptr), SQLITE_OK);
  sqlite3_close(db);
  VerifyReport rep = Verify(paths[0]);
  ASSERT_EQ(rep.problems.size(), 2u) << rep.ToJson().dump();
  EXPECT_NE(rep.problems[0].find("m1.db"), std::string::npos);
  EXPECT_NE(rep.problems[1].find("m2.db: row 4"), std::string::npos) << rep.problems[1];
  auto rebuilt = RebuildIndex(paths[0]);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(rebuilt->rebuilt.size(), 2u);
  EXPECT_EQ(rebuilt->kept.size(), 1u);
  EXPECT_TRUE(Verify(paths[0], {.deep = true}).ok());
  auto r = *ShardReader::Open(paths[0]);
  for (uint64_t i = 0; i < r->num_rows(); ++i) EXPECT_EQ(*r->ReadRow(i), before[i]);
  auto groups = *r->GroupByIndexField("name");
  EXPECT_EQ(groups.size(), 90u);
}

TEST(IntegrityTest, RebuiltIndexOfAMindSporeFileHoldsTheSameRows) {
  const std::string compat = testing::CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  TempDir dir;
  for (const char* name : {"twobytes/twobytes.mindrecord", "graph/testdata"}) {
    const std::string src = compat + "/mindrecord/" + name;
    const std::string dst = dir.Join(fs::path(name).filename());
    fs::copy_file(src, dst);
    ASSERT_TRUE(RebuildIndex(dst).ok());  // no .db: built from the pages
    std::string a, b;
    const char* q = "\"SELECT * FROM INDEXES ORDER BY ROW_ID; SELECT * FROM SHARD_NAME;\"";
    ASSERT_EQ(testing::RunCommand("sqlite3 " + dst + ".db " + q, &a), 0);
    ASSERT_EQ(testing::RunCommand("sqlite3 " + src + ".db " + q, &b), 0);
    EXPECT_EQ(a, b) << name;
  }
}

// Page checksums are computed as pages are written: batches of random sizes
// with raw parts large against the page, so blob pages continue across
// batches and raw row groups move whole to new pages, still match the bytes
// on disk.
TEST(IntegrityTest, ChecksumsComputedWhileWritingMatchThePages) {
  TempDir dir;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4; ++trial) {
    const std::string path = dir.Join("s" + std::to_string(trial));
    WriterOptions o;
    o.header_size = kMinHeaderSize;
    o.page_size = kMinPageSize;
    auto w = *ShardWriter::Create(path, IntegritySchema(), o);
    int next = 0;
    for (int b = 0; b < 40; ++b) {
      std::vector<Row> rows = IntegrityRows(1 + static_cast<int>(rng() % 15), next, 20 + rng() % 3000);
      for (auto& r : rows) r.Set("name", Value::String(std::string(200 + rng() % 1500, 'n')));
      next += static_cast<int>(rows.size());
      ASSERT_TRUE(w->WriteRows(std::move(rows)).ok());
    }
    ASSERT_TRUE(w->Commit().ok());
    auto r = *ShardReader::Open(path);
    const std::string bytes = ReadFile(path);
    size_t raw_pages = 0, moved = 0;
    for (const auto& p : r->header(0).pages) {
      const uint64_t at = kMinHeaderSize + p.page_id * kMinPageSize;
      ASSERT_LE(at + p.used_bytes, bytes.size());
      EXPECT_EQ(p.extra.at(kPageChecksumKey), ChecksumHex(Xxh3(std::string_view(bytes).substr(at, p.used_bytes))))
          << "page " << p.page_id;
      raw_pages += !p.is_blob;
      // A row group moved off a raw page leaves its bytes behind past the used size.
      const std::string_view tail = std::string_view(bytes).substr(
          at + p.used_bytes, std::min<uint64_t>(kMinPageSize - p.used_bytes, bytes.size() - at - p.used_bytes));
      moved += !p.is_blob && tail.find_first_not_of('\0') != std::string_view::npos;
    }
    EXPECT_GT(raw_pages, 3u);
    EXPECT_GT(moved, 0u) << "no raw row group was moved: the test misses that path";
    VerifyReport rep = Verify(path, {.deep = true});
    EXPECT_TRUE(rep.ok()) << rep.ToJson().dump();
    EXPECT_EQ(rep.rows_decoded, static_cast<uint64_t>(next));
  }
}

// A writer killed at a random point leaves either no dataset or a complete
// one that verifies clean; never a file that reads as something else.
pid_t ForkCreate(const std::string& path) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.shard_count = 2;
  auto w = ShardWriter::Create(path, IntegritySchema(), o);
  if (!w.ok()) _exit(3);
  for (int b = 0; b < 6; ++b) {
    if (!(*w)->WriteRows(IntegrityRows(100, b * 100, 400)).ok()) _exit(4);
  }
  _exit((*w)->Commit().ok() ? 0 : 5);
}

TEST(IntegrityTest, CreateKilledAtRandomPointsLeavesNothingOrACompleteDataset) {
  TempDir dir;
  std::mt19937 rng(42);
  int complete = 0, absent = 0;
  // Kill times are drawn over 1.5x a writer's run time: the shortest of
  // three, so one slow run (a busy machine, a sanitizer's first start) does
  // not push every kill past the commit.
  std::chrono::microseconds run_us = std::chrono::microseconds::max();
  for (int t = 0; t < 3; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    pid_t timed = ForkCreate(dir.Join("timed" + std::to_string(t)));
    ASSERT_GE(timed, 0);
    int timed_status = 0;
    waitpid(timed, &timed_status, 0);
    ASSERT_TRUE(WIFEXITED(timed_status) && WEXITSTATUS(timed_status) == 0);
    run_us = std::min(run_us, std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::steady_clock::now() - t0));
  }
  // The window follows the machine's load: it widens after a kill that left
  // nothing and narrows after one that found the dataset committed, so both
  // outcomes keep coming when a busy machine slows the writers down. At least
  // 100 trials, more (up to 400) until both were seen.
  double scale = 1.0;
  for (int trial = 0; trial < 400 && (trial < 100 || complete == 0 || absent == 0); ++trial) {
    const std::string path = dir.Join("k" + std::to_string(trial) + "_");
    pid_t pid = ForkCreate(path);
    ASSERT_GE(pid, 0);
    const auto window = static_cast<uint64_t>(static_cast<double>(run_us.count()) * 1.5 * scale) + 1;
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % window));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    const bool any = fs::exists(path + "0") || fs::exists(path + "1") || fs::exists(CommitRecordPath(path + "0"));
    scale = std::clamp(scale * (any ? 0.9 : 1.1), 0.1, 50.0);
    if (!any) {
      ++absent;
      continue;
    }
    // The commit was decided: the open finishes it if the writer died
    // among its renames.
    auto r = ShardReader::Open(path + "0");
    ASSERT_TRUE(r.ok()) << trial << ": " << r.status().ToString();
    ++complete;
    EXPECT_EQ((*r)->num_rows(), 600u) << trial;
    EXPECT_TRUE(Verify(path + "0", {.deep = true}).ok()) << trial;
    EXPECT_FALSE(fs::exists(CommitRecordPath(path + "0")));
  }
  RecordProperty("complete", complete);
  RecordProperty("absent", absent);
  EXPECT_GT(complete, 0);  // the kill times span the writer's run
  EXPECT_GT(absent, 0);
}

}  // namespace
}  // namespace mindrecord
