// Appending to committed datasets: the result equals writing the rows in one
// go, the previous state survives errors, abandonment and SIGKILL at any
// point, and the dataset lock keeps readers off a half-done append.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "mindrecord/checksum.h"
#include "mindrecord/compression.h"
#include "mindrecord/file.h"
#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
namespace fs = std::filesystem;

Schema TestSchema() { return testing::IdNameImgSchema(); }

std::vector<Row> TestRows(int n, int first, size_t blob = 300) {
  std::vector<Row> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back(Row{{"id", Value::Int(i)}, {"name", Value::String("n" + std::to_string(i))},
                       {"img", Value::Bytes(std::string(blob + i % 97, static_cast<char>('a' + i % 26)))},
                       {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, 2 * i, 7})}});
  }
  return rows;
}

WriterOptions SmallPages(uint32_t shards, bool checksums = true) {
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.shard_count = shards;
  o.checksums = checksums;
  return o;
}

// Writes `batches` (row counts) into `path` with one writer.
std::vector<std::string> WriteOnce(const std::string& path, const std::vector<int>& batches, const WriterOptions& o) {
  auto w = ShardWriter::Create(path, TestSchema(), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  int next = 0;
  for (int n : batches) {
    EXPECT_TRUE((*w)->WriteRows(TestRows(n, next)).ok());
    next += n;
  }
  EXPECT_TRUE((*w)->Commit().ok());
  return (*w)->shard_paths();
}

// Appends one batch of `n` rows starting at id `first`.
Status Append(const std::string& path, int n, int first, FileSystem* fs = nullptr) {
  MR_ASSIGN_OR_RETURN(auto w, ShardWriter::OpenForAppend(path, fs));
  MR_RETURN_IF_ERROR(w->WriteRows(TestRows(n, first)));
  return w->Commit();
}

// Every row by id, as the reader returns it.
std::map<int64_t, Row> ReadById(const std::string& path) {
  std::map<int64_t, Row> out;
  auto r = ShardReader::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  Status st = (*r)->Scan(0, (*r)->num_rows(), nullptr, [&](uint64_t, Row&& row) {
    out.emplace(row.Get("id").as_int(), std::move(row));
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

void ExpectRows(const std::string& path, int n) {
  auto rows = ReadById(path);
  ASSERT_EQ(rows.size(), static_cast<size_t>(n)) << path;
  auto expect = TestRows(n, 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(rows.count(i)) << "row " << i;
    EXPECT_TRUE(rows[i] == expect[i]) << "row " << i;
  }
}

std::string IndexDump(const std::string& db) {
  std::string out;
  EXPECT_EQ(testing::RunCommand("sqlite3 " + db + " \"SELECT * FROM INDEXES ORDER BY ROW_ID; SELECT * FROM SHARD_NAME;\"",
                                &out),
            0);
  return out;
}

// Every file of the dataset, byte for byte.
std::map<std::string, std::string> Snapshot(const std::vector<std::string>& shards) {
  std::map<std::string, std::string> out;
  for (const auto& s : shards) {
    out[s] = ReadFile(s);
    out[s + ".db"] = ReadFile(s + ".db");
  }
  return out;
}

TEST(AppendTest, EqualsWritingAllRowsInOneGo) {
  for (uint32_t shards : {1u, 3u}) {
    for (bool checksums : {true, false}) {
      TempDir dir;
      fs::create_directory(dir.Join("once"));
      fs::create_directory(dir.Join("twice"));
      auto a = WriteOnce(dir.Join("once/d"), {300, 250, 40}, SmallPages(shards, checksums));
      auto b = WriteOnce(dir.Join("twice/d"), {300}, SmallPages(shards, checksums));
      ASSERT_TRUE(Append(b[0], 250, 300).ok());
      ASSERT_TRUE(Append(b.back(), 40, 550).ok());  // through any shard
      for (size_t s = 0; s < a.size(); ++s) {
        // Same pages, same headers, same index rows.
        EXPECT_TRUE(ReadFile(a[s]) == ReadFile(b[s])) << "shard " << s << " shards=" << shards
                                                       << " checksums=" << checksums;
        EXPECT_EQ(IndexDump(a[s] + ".db"), IndexDump(b[s] + ".db")) << s;
        EXPECT_FALSE(fs::exists(JournalPath(b[s])));
        EXPECT_FALSE(fs::exists(JournalPath(b[s]) + ".db"));
      }
      ExpectRows(b[0], 590);
      auto rep = Verify(b[0], {.deep = true});
      EXPECT_TRUE(rep.ok()) << rep.problems.front();
    }
  }
}

TEST(AppendTest, KeepsCompressionAndItsDictionary) {
  TempDir dir;
  WriterOptions o = SmallPages(2);
  o.compression = *ParseCompression("zstd:3+dict");
  auto paths = WriteOnce(dir.Join("z"), {200}, o);
  const std::string before = ShardReader::Open(paths[0]).value()->header(0).extra.dump();
  ASSERT_TRUE(Append(paths[0], 150, 200).ok());
  auto r = *ShardReader::Open(paths[0]);
  EXPECT_EQ(r->version(), kVersion3Zstd);
  const auto& c = r->header(0).extra.at(kCompressionKey);
  const nlohmann::json c0 = nlohmann::json::parse(before).at(kCompressionKey);
  EXPECT_EQ(c.at("dictionary"), c0.at("dictionary"));
  EXPECT_GT(c.at("raw_bytes").get<uint64_t>(), c0.at("raw_bytes").get<uint64_t>());
  ExpectRows(paths[0], 350);
  EXPECT_TRUE(Verify(paths[0], {.deep = true}).ok());
}

// A header whose compression byte counts are not numbers (a sealed header
// rewritten by someone else) is corruption naming the file, not a crash.
TEST(AppendTest, RefusesAHeaderWhoseCompressionCountsAreNotNumbers) {
  TempDir dir;
  WriterOptions o = SmallPages(1);
  o.compression = *ParseCompression("zstd:3");
  auto paths = WriteOnce(dir.Join("z"), {20}, o);
  std::fstream f(paths[0], std::ios::in | std::ios::out | std::ios::binary);
  uint64_t len = 0;
  f.read(reinterpret_cast<char*>(&len), 8);
  std::string text(len, '\0');
  f.read(text.data(), static_cast<std::streamsize>(len));
  const size_t at = text.find("\"raw_bytes\":");
  ASSERT_NE(at, std::string::npos) << text;
  const size_t end = text.find_first_not_of("0123456789", at + 12);
  text.replace(at, end - at, "\"raw_bytes\":\"many\"");
  SealHeaderChecksum(&text);
  len = text.size();
  f.seekp(0);
  f.write(reinterpret_cast<const char*>(&len), 8);
  f.write(text.data(), static_cast<std::streamsize>(len));
  f.close();
  ASSERT_TRUE(ShardReader::Open(paths[0]).ok());  // reading does not need the counts
  Status st = Append(paths[0], 5, 20);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(".raw_bytes is \"many\", not a byte count"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(paths[0]), std::string::npos) << st.ToString();
  ExpectRows(paths[0], 20);
}

TEST(AppendTest, AppendsToMindSporeFiles) {
  const std::string compat = testing::CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  TempDir dir;
  const std::string src = compat + "/mindrecord/twobytes/twobytes.mindrecord";
  const std::string dst = dir.Join("twobytes.mindrecord");
  fs::copy_file(src, dst);
  fs::copy_file(src + ".db", dst + ".db");
  auto before = *ShardReader::Open(dst);
  const uint64_t n = before->num_rows();
  std::vector<Row> old;
  for (uint64_t i = 0; i < n; ++i) old.push_back(*before->ReadRow(i));
  before.reset();
  auto w = ShardWriter::OpenForAppend(dst);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows({old[0], old[1]}).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  auto r = *ShardReader::Open(dst);
  ASSERT_EQ(r->num_rows(), n + 2);
  for (uint64_t i = 0; i < n; ++i) EXPECT_TRUE(*r->ReadRow(i) == old[i]) << i;
  EXPECT_TRUE(*r->ReadRow(n) == old[0]);
  EXPECT_TRUE(*r->ReadRow(n + 1) == old[1]);
  // MindSpore's file had no checksums; the appended one has none either.
  EXPECT_FALSE(r->header(0).extra.contains(kHeaderChecksumKey));
  EXPECT_TRUE(Verify(dst, {.deep = true}).ok());
}

TEST(AppendTest, AbandonAndErrorsLeaveTheDatasetAsItWas) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("d"), {300}, SmallPages(2));
  const auto snap = Snapshot(paths);
  {
    auto w = *ShardWriter::OpenForAppend(paths[0]);
    ASSERT_TRUE(w->WriteRows(TestRows(200, 300)).ok());
    w->Abandon();
  }
  EXPECT_TRUE(Snapshot(paths) == snap);
  {
    auto w = *ShardWriter::OpenForAppend(paths[0]);
    ASSERT_TRUE(w->WriteRows(TestRows(200, 300)).ok());
  }  // destroyed without Commit
  EXPECT_TRUE(Snapshot(paths) == snap);

  // Disk full at many points of the append (the rollback may fail too: the
  // journal stays and the next opener rolls back), failing syncs and renames.
  for (int64_t budget : {0, 100, 5000, 20000, 40000, 60000}) {
    FaultInjectingFileSystem faulty(FileSystem::Default());
    faulty.FailWritesAfterBytes(budget);
    Status st = Append(paths[0], 200, 300, &faulty);
    EXPECT_FALSE(st.ok()) << budget;
    EXPECT_NE(st.message().find("No space left"), std::string::npos) << st.ToString();
    ExpectRows(paths[0], 300);
    EXPECT_TRUE(Snapshot(paths) == snap) << budget;
  }
  for (int which = 0; which < 2; ++which) {
    FaultInjectingFileSystem faulty(FileSystem::Default());
    auto w = *ShardWriter::OpenForAppend(paths[0], &faulty);
    ASSERT_TRUE(w->WriteRows(TestRows(200, 300)).ok());
    if (which == 0) faulty.FailSync(true);
    if (which == 1) faulty.FailRename(true);
    EXPECT_FALSE(w->Commit().ok());
    faulty.FailSync(false);
    faulty.FailRename(false);
    w.reset();
    ExpectRows(paths[0], 300);
    EXPECT_TRUE(Snapshot(paths) == snap) << which;
  }
  for (const auto& p : paths) EXPECT_FALSE(fs::exists(JournalPath(p)));
  ExpectRows(paths[0], 300);
}

TEST(AppendTest, DiskFullWhileCopyingTheIndexSaysSo) {
  // The index is copied before rows are appended; a full disk there was
  // reported as "Input/output error" (std::filesystem::copy_file, which also
  // bypassed the writer's file system).
  TempDir dir;
  auto paths = WriteOnce(dir.Join("d"), {300}, SmallPages(2));
  const auto snap = Snapshot(paths);
  std::string seen;
  for (int64_t budget = 0; budget < 4 << 20 && seen.empty(); budget += 256) {
    FaultInjectingFileSystem faulty(FileSystem::Default());
    faulty.FailWritesAfterBytes(budget);
    Status st = Append(paths[0], 200, 300, &faulty);
    ASSERT_FALSE(st.ok()) << "budget " << budget;
    if (st.message().find("copying the index") != std::string::npos) seen = st.message();
    ExpectRows(paths[0], 300);  // an opener rolls back what a failed rollback left
    ASSERT_TRUE(Snapshot(paths) == snap) << budget;
  }
  ASSERT_FALSE(seen.empty()) << "no budget ran out while the index was copied";
  EXPECT_NE(seen.find(paths[0] + ".db: copying the index"), std::string::npos) << seen;
  EXPECT_NE(seen.find("No space left on device"), std::string::npos) << seen;
  for (const auto& p : paths) EXPECT_FALSE(fs::exists(JournalPath(p)));
}

TEST(AppendTest, RefusesBadInput) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("d"), {100}, SmallPages(2));
  // A row that does not match the schema rejects its batch only.
  {
    auto w = *ShardWriter::OpenForAppend(paths[1]);
    Status st = w->WriteRows({Row{{"id", Value::String("x")}}});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    ASSERT_TRUE(w->WriteRows(TestRows(10, 100)).ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  ExpectRows(paths[0], 110);
  // Missing shard, missing index, damaged continued page.
  EXPECT_EQ(ShardWriter::OpenForAppend(dir.Join("nope")).status().code(), StatusCode::kNotFound);
  fs::rename(paths[1] + ".db", dir.Join("saved.db"));
  auto st = ShardWriter::OpenForAppend(paths[0]).status();
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find(paths[1] + ".db"), std::string::npos) << st.ToString();
  fs::rename(dir.Join("saved.db"), paths[1] + ".db");
  auto r = *ShardReader::Open(paths[0]);
  const PageInfo& last = r->header(0).pages.back();
  const uint64_t off = r->header(0).PageOffset(last.page_id) + last.used_bytes / 2;
  r.reset();
  {
    std::fstream f(paths[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(off));
    f.put('\x7f');
  }
  st = ShardWriter::OpenForAppend(paths[0]).status();
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("checksum"), std::string::npos) << st.ToString();
}

TEST(AppendTest, LockKeepsReadersAndWritersOffAnAppendInProgress) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("d"), {100}, SmallPages(2));
  auto reader = *ShardReader::Open(paths[1]);  // opened before: keeps its view
  {
    auto w = *ShardWriter::OpenForAppend(paths[0]);
    ASSERT_TRUE(w->WriteRows(TestRows(50, 100)).ok());
    auto r = ShardReader::Open(paths[1]);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("append to this dataset is in progress"), std::string::npos)
        << r.status().ToString();
    auto w2 = ShardWriter::OpenForAppend(paths[0]);
    ASSERT_FALSE(w2.ok());
    EXPECT_NE(w2.status().message().find("in progress"), std::string::npos) << w2.status().ToString();
    EXPECT_FALSE(Verify(paths[0]).ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  EXPECT_EQ(reader->num_rows(), 100u);
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(reader->ReadRow(i).ok()) << i;
  ExpectRows(paths[0], 150);
}

// A process that dies mid-append leaves a journal; the next opener (reader or
// writer) rolls the dataset back to its committed state.
TEST(AppendTest, NextOpenerRollsBackAJournalLeftByACrash) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("d"), {300}, SmallPages(3));
  const auto snap = Snapshot(paths);
  for (int opener = 0; opener < 3; ++opener) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto w = ShardWriter::OpenForAppend(paths[1]);
      if (!w.ok() || !(*w)->WriteRows(TestRows(400, 300)).ok()) _exit(3);
      _exit(0);  // no destructors: as if killed before Commit
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_TRUE(fs::exists(JournalPath(paths[0])));
    EXPECT_FALSE(Snapshot(paths) == snap);  // the shards were written to
    if (opener == 0) ExpectRows(paths[2], 300);
    if (opener == 1) EXPECT_TRUE(Verify(paths[2], {.deep = true}).ok());
    if (opener == 2) ASSERT_TRUE(Append(paths[2], 10, 300).ok());
    if (opener < 2) EXPECT_TRUE(Snapshot(paths) == snap) << opener;
    for (const auto& p : paths) EXPECT_FALSE(fs::exists(JournalPath(p))) << opener;
  }
  ExpectRows(paths[0], 310);
}

// SIGKILL at random points of create, create over an existing dataset, and
// append: afterwards the dataset is absent, the previous committed version
// (byte for byte), or the new one, and verifies clean; never anything else.
// The writer of one kill trial, in a child process: mode 0 creates `base`,
// 1 creates it over an existing dataset, 2 appends 300 rows to it.
pid_t ForkWriter(int mode, const std::string& base, uint32_t shards) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  WriterOptions o = SmallPages(shards);
  o.overwrite = true;
  const int first = mode == 2 ? 150 : 0;
  Result<std::unique_ptr<ShardWriter>> w = mode < 2 ? ShardWriter::Create(base, TestSchema(), o)
                                                    : ShardWriter::OpenForAppend(ShardFileNames(base, shards)[0]);
  if (!w.ok()) _exit(3);
  for (int b = 0; b < 3; ++b) {
    if (!(*w)->WriteRows(TestRows(100, first + b * 100)).ok()) _exit(4);
  }
  _exit((*w)->Commit().ok() ? 0 : 5);
}

TEST(AppendTest, KilledAtRandomPointsLeavesOldOrNewDataset) {
  TempDir dir;
  std::mt19937 rng(7);
  std::map<std::string, int> outcomes;
  // Kill times are drawn over 1.5x each writer's measured run time.
  int64_t run_us[3];
  for (int mode = 0; mode < 3; ++mode) {
    const std::string base = dir.Join("t" + std::to_string(mode));
    if (mode > 0) WriteOnce(base, {150}, SmallPages(2));
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = ForkWriter(mode, base, 2);
    ASSERT_GE(pid, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << mode;
    run_us[mode] = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    RecordProperty("run_us_mode" + std::to_string(mode), static_cast<int>(run_us[mode]));
  }
  const int kTrials = 120;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::string base = dir.Join("k" + std::to_string(trial) + "_");
    const int mode = std::min(trial % 4, 2);  // 0: create, 1: create over an existing dataset, 2: append
    const bool create = mode < 2;
    const uint32_t shards = 1 + trial % 3 % 2;
    const std::vector<std::string> paths = ShardFileNames(base, shards);
    if (mode > 0) WriteOnce(base, {150}, SmallPages(shards));
    const auto snap = mode == 0 ? std::map<std::string, std::string>{} : Snapshot(paths);
    const int old_rows = mode == 0 ? 0 : 150, new_rows = create ? 300 : 450;
    pid_t pid = ForkWriter(mode, base, shards);
    ASSERT_GE(pid, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (run_us[mode] * 3 / 2 + 1)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) ASSERT_EQ(WEXITSTATUS(status), 0) << trial;
    // Finished or rolled back by the open below.
    if (fs::exists(JournalPath(paths[0]))) ++outcomes["journal_left"];
    if (fs::exists(CommitRecordPath(paths[0]))) ++outcomes["commit_record_left"];
    if (mode == 0 && !fs::exists(paths[0]) && !fs::exists(CommitRecordPath(paths[0]))) {
      ++outcomes["absent"];
      ++outcomes["mode" + std::to_string(mode) + "_absent"];
      continue;
    }
    auto r = ShardReader::Open(paths[0]);
    ASSERT_TRUE(r.ok()) << trial << ": " << r.status().ToString();
    const uint64_t n = (*r)->num_rows();
    r->reset();
    ASSERT_TRUE(n == static_cast<uint64_t>(old_rows) || n == static_cast<uint64_t>(new_rows)) << trial << ": " << n;
    ExpectRows(paths[0], static_cast<int>(n));
    auto rep = Verify(paths[0], {.deep = true});
    EXPECT_TRUE(rep.ok()) << trial << ": " << (rep.problems.empty() ? "" : rep.problems.front());
    if (n == static_cast<uint64_t>(old_rows)) {
      EXPECT_TRUE(Snapshot(paths) == snap) << trial;  // rolled back byte for byte
      ++outcomes["old"];
      ++outcomes["mode" + std::to_string(mode) + "_old"];
    } else {
      ++outcomes["new"];
      ++outcomes["mode" + std::to_string(mode) + "_new"];
    }
    for (const auto& p : paths) {
      EXPECT_FALSE(fs::exists(JournalPath(p))) << trial;
      EXPECT_FALSE(fs::exists(JournalPath(p) + ".db")) << trial;
    }
    EXPECT_FALSE(fs::exists(CommitRecordPath(paths[0]))) << trial;
  }
  for (const auto& [k, v] : outcomes) RecordProperty(k, v);
  // The kill times span the writers' run: both outcomes are seen.
  EXPECT_GT(outcomes["new"], 0);
  EXPECT_GT(outcomes["old"] + outcomes["absent"], 0);
}

}  // namespace
}  // namespace mindrecord

namespace mindrecord {
namespace {

// A committed append killed before it removed its other journals: openers
// remove them.
TEST(CommitRecordTest, OpenersRemoveJournalsACommittedAppendLeft) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("s"), {100}, SmallPages(3));
  for (const std::string& f : {JournalPath(paths[1]), JournalPath(paths[2]) + ".db", JournalPath(paths[0]) + ".db"}) {
    std::ofstream(f) << "left over";
  }
  ExpectRows(paths[0], 100);
  for (const auto& p : paths) {
    EXPECT_FALSE(fs::exists(JournalPath(p))) << p;
    EXPECT_FALSE(fs::exists(JournalPath(p) + ".db")) << p;
  }
}

// A writer that died among the renames of a recorded commit: the next opener
// finishes the renames.
TEST(CommitRecordTest, OpenerFinishesARecordedCommit) {
  TempDir dir;
  auto paths = WriteOnce(dir.Join("c"), {200}, SmallPages(3));
  std::vector<std::pair<std::string, std::string>> renames;
  for (size_t s = 0; s < paths.size(); ++s) {
    for (const std::string& f : {paths[s] + ".db", paths[s]}) {
      const std::string tmp = dir.Join(".tmp-" + fs::path(f).filename().string());
      fs::rename(f, tmp);
      renames.emplace_back(tmp, f);
    }
  }
  // Shard 2's files were renamed before the crash; the others were not.
  fs::rename(renames[4].first, renames[4].second);
  fs::rename(renames[5].first, renames[5].second);
  ASSERT_TRUE(WriteCommitRecord(paths[0], renames, FileSystem::Default()).ok());
  ExpectRows(paths[2], 200);  // opened through a shard that was already in place
  EXPECT_FALSE(fs::exists(CommitRecordPath(paths[0])));
  for (const auto& [tmp, f] : renames) EXPECT_TRUE(fs::exists(f)) << f;
  EXPECT_TRUE(Verify(paths[0], {.deep = true}).ok());
  // A damaged record is an error naming it, not a guess.
  std::ofstream(CommitRecordPath(paths[0])) << "mindrecord-commit 2\n0000\n[]";
  auto r = ShardReader::Open(paths[0]);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(".mr-commit: commit record is damaged"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace mindrecord
