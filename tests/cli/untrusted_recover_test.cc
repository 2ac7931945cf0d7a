// Journals and commit records that no opener applies (a folder copied while
// an append ran, a dataset replaced after one, an older format, damage):
// the error says what state the dataset is in and which `mindrecord recover`
// command does what, and that command does it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "mindrecord/constants.h"
#include "tests/util/small_dataset.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::Cli;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::vector<Row> Rows(int n, int first = 0) { return testing::IdNameImgRows(n, first); }

// 20 rows in `shards` shards; returns the shard paths.
std::vector<std::string> WriteRecoverable(const std::string& path, uint32_t shards) {
  return testing::WriteIdNameImg(path, Rows(20), {.shards = shards});
}

// An append that dies after writing its journals and rows (its headers are
// rewritten only when it commits).
void InterruptedAppend(const std::string& path) { testing::InterruptedAppend(path, Rows(30, 100)); }

// An append to the dataset of `shard` that exits after opening, before it
// writes anything: its journal is left beside the shard.
void JournalOfAnAppendThatWroteNothing(const std::string& shard) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(ShardWriter::OpenForAppend(shard).ok() ? 0 : 3);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

bool HasJournal(const std::vector<std::string>& shards) {
  for (const auto& s : shards) {
    if (fs::exists(JournalPath(s)) || fs::exists(JournalIndexPath(s))) return true;
  }
  return false;
}

// `cp -r` of a folder whose append was interrupted: the copy's shards are
// other files than those journaled, so no opener applies the journal. The
// headers are still the saved ones, which the error says; `recover
// --roll-back` restores the copy byte for byte as it was before the append.
TEST(UntrustedRecoverTest, FolderCopiedDuringAnAppendIsRolledBackOnRequest) {
  TempDir dir;
  fs::create_directory(dir.Join("a"));
  auto a = WriteRecoverable(dir.Join("a/d"), 2);
  std::vector<std::string> before;
  for (const auto& s : a) before.push_back(ReadFile(s));
  InterruptedAppend(a[0]);
  fs::copy(dir.Join("a"), dir.Join("b"));
  const std::string b0 = dir.Join("b/d0"), b1 = dir.Join("b/d1");
  std::string out;
  EXPECT_EQ(Cli("inspect " + b1, &out), 2) << out;
  EXPECT_NE(out.find("a different inode: the folder was copied"), std::string::npos) << out;
  EXPECT_NE(out.find("still holds the header saved before that append, so it reads as it did before the append"),
            std::string::npos) << out;
  EXPECT_NE(out.find("`mindrecord recover --roll-back " + b0 + "`"), std::string::npos) << out;
  // Without the flag, recover does what every opener does: refuse.
  EXPECT_EQ(Cli("recover " + b0, &out), 2) << out;
  ASSERT_TRUE(HasJournal({b0, b1}));
  ASSERT_EQ(Cli("recover --roll-back " + b1, &out), 0) << out;
  EXPECT_NE(out.find("rolled back the interrupted append recorded in " + b0 + ".mr-journal"), std::string::npos)
      << out;
  EXPECT_FALSE(HasJournal({b0, b1}));
  EXPECT_EQ(ReadFile(b0), before[0]);
  EXPECT_EQ(ReadFile(b1), before[1]);
  EXPECT_EQ(Cli("verify --deep " + b0, &out), 0) << out;
  ASSERT_EQ(Cli("cat " + b0, &out), 0) << out;
  EXPECT_EQ(Lines(out), 20);
  // The original folder still rolls back on its own.
  ASSERT_EQ(Cli("recover " + a[0], &out), 0) << out;
  EXPECT_NE(out.find("rolled back the interrupted append"), std::string::npos) << out;
  EXPECT_EQ(ReadFile(a[0]), before[0]);
}

// A dataset committed after its journal was saved (what a folder copied
// after the append rewrote its headers, or a dataset put in the old one's
// place, looks like): the error gives both readings and both commands.
TEST(UntrustedRecoverTest, ReplacedDatasetKeepsItsRowsOnDiscardOrRollsBackOnRequest) {
  for (const bool discard : {true, false}) {
    TempDir dir;
    auto a = WriteRecoverable(dir.Join("d"), 1);
    const std::string before = ReadFile(a[0]);
    InterruptedAppend(a[0]);
    const std::string journal = ReadFile(JournalPath(a[0])), backup = ReadFile(JournalIndexPath(a[0]));
    // Let the rollback happen, append for real, then put the old journal back
    // (into a copy: another inode).
    auto w = ShardWriter::OpenForAppend(a[0]);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->WriteRows(Rows(5, 200)).ok());
    ASSERT_TRUE((*w)->Commit().ok());
    w->reset();
    fs::copy_file(a[0], dir.Join("copy"));
    fs::rename(dir.Join("copy"), a[0]);
    WriteFile(JournalPath(a[0]), journal);
    WriteFile(JournalIndexPath(a[0]), backup);
    std::string out;
    EXPECT_EQ(Cli("cat " + a[0], &out), 2) << out;
    EXPECT_NE(out.find("the shard holds either that append's unfinished pages (the folder was copied while the "
                       "append ran) or a dataset put in its place after it"),
              std::string::npos) << out;
    EXPECT_NE(out.find("`mindrecord recover --discard " + a[0] + "` removes the journal"), std::string::npos) << out;
    ASSERT_EQ(Cli(std::string("recover ") + (discard ? "--discard " : "--roll-back ") + a[0], &out), 0) << out;
    EXPECT_FALSE(HasJournal(a));
    ASSERT_EQ(Cli("cat " + a[0], &out), 0) << out;
    EXPECT_EQ(Lines(out), discard ? 25 : 20);
    if (!discard) EXPECT_EQ(ReadFile(a[0]), before);
    EXPECT_EQ(Cli("verify --deep " + a[0], &out), 0) << out;
  }
}

// A journal of the older format, or a damaged one: never applied; the error
// says what to do, and `recover --discard` does it.
TEST(UntrustedRecoverTest, OldFormatAndDamagedJournalsAreDiscardedOnRequest) {
  for (const bool old_format : {true, false}) {
    TempDir dir;
    auto a = WriteRecoverable(dir.Join("d"), 2);
    const std::string before = ReadFile(a[1]);
    ASSERT_NO_FATAL_FAILURE(JournalOfAnAppendThatWroteNothing(a[0]));
    std::string j = ReadFile(JournalPath(a[0]));
    if (old_format) {
      j.replace(0, j.find('\n'), "mindrecord-append-journal 1");
    } else {
      j.back() ^= 0x21;  // the checksum no longer matches
    }
    WriteFile(JournalPath(a[0]), j);
    std::string out;
    EXPECT_EQ(Cli("inspect " + a[1], &out), 2) << out;
    EXPECT_NE(out.find(old_format ? "written by an older mindrecord (journal format 1)" : "append journal is damaged"),
              std::string::npos) << out;
    EXPECT_NE(out.find("remove the journal with `mindrecord recover --discard "), std::string::npos) << out;
    EXPECT_EQ(ReadFile(a[1]), before);
    ASSERT_EQ(Cli("recover --discard " + a[1], &out), 0) << out;
    EXPECT_NE(out.find("removed " + JournalPath(a[0])), std::string::npos) << out;
    EXPECT_FALSE(HasJournal(a));
    ASSERT_EQ(Cli("cat " + a[0], &out), 0) << out;
    EXPECT_EQ(Lines(out), 20);
  }
}

// A journal whose sizes or identities are not integers >= 0 is damaged. A
// size of 2.09e62 was cast to uint64 (undefined behaviour; found by the
// recovery fuzz target), -5 wrapped and 20.5 became 20.
TEST(UntrustedRecoverTest, JournalNumbersOfOtherKindsAreDamage) {
  for (const char* size : {"2.0888888e62", "-5", "20.5", "\"20\""}) {
    SCOPED_TRACE(size);
    TempDir dir;
    auto a = WriteRecoverable(dir.Join("d"), 2);
    const std::string before = ReadFile(a[0]);
    ASSERT_NO_FATAL_FAILURE(JournalOfAnAppendThatWroteNothing(a[0]));
    std::string j = ReadFile(JournalPath(a[0]));
    const size_t at = j.find("\"size\":");
    ASSERT_NE(at, std::string::npos) << j.substr(0, 300);
    const size_t end = j.find_first_of(",}", at);
    j.replace(at, end - at, std::string("\"size\":") + size);
    WriteFile(JournalPath(a[0]), j);
    std::string out;
    EXPECT_EQ(Cli("inspect " + a[1], &out), 2) << out;
    EXPECT_NE(out.find("append journal is damaged"), std::string::npos) << out;
    EXPECT_NE(out.find("size"), std::string::npos) << out;
    EXPECT_EQ(ReadFile(a[0]), before);
  }
}

// A commit record that does not match the files beside it is discarded on
// request; with nothing left, recover says so.
TEST(UntrustedRecoverTest, UnmatchedCommitRecordIsDiscardedOnRequest) {
  TempDir dir;
  auto a = WriteRecoverable(dir.Join("d"), 1);
  const std::string tmp = dir.Join(".d.tmp-1");
  WriteFile(tmp, "first");
  ASSERT_TRUE(WriteCommitRecord(a[0], {{tmp, a[0]}}, FileSystem::Default()).ok());
  fs::remove(tmp);
  WriteFile(tmp, "another file under the recorded name");
  std::string out;
  EXPECT_EQ(Cli("cat " + a[0], &out), 2) << out;
  EXPECT_NE(out.find("remove the record with `mindrecord recover --discard " + a[0] + "`"), std::string::npos) << out;
  ASSERT_EQ(Cli("recover --discard " + a[0], &out), 0) << out;
  EXPECT_NE(out.find("removed " + CommitRecordPath(a[0])), std::string::npos) << out;
  ASSERT_EQ(Cli("cat " + a[0], &out), 0) << out;
  EXPECT_EQ(Lines(out), 20);
  ASSERT_EQ(Cli("recover " + a[0], &out), 0) << out;
  EXPECT_EQ(out, "nothing to recover: no interrupted append or commit\n");
  EXPECT_EQ(Cli("recover --discard --roll-back " + a[0], &out), 1) << out;
}

}  // namespace
}  // namespace mindrecord
