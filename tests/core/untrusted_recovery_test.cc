// Recovery that cannot be turned against the user: hostile journals and
// commit records (built here, as a hostile folder would hold them) never make
// an opener write outside the dataset, through a symbolic link, or apply a
// record that does not provably belong to the files beside it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "mindrecord/checksum.h"
#include "mindrecord/file.h"
#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/small_dataset.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::vector<Row> RecoveryRows(int n, int first) {
  std::vector<Row> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back(Row{{"id", Value::Int(i)}, {"name", Value::String("n" + std::to_string(i))},
                       {"img", Value::Bytes(std::string(200 + i % 50, static_cast<char>('a' + i % 26)))},
                       {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, 1})}});
  }
  return rows;
}

std::vector<std::string> WriteRecoveryDataset(const std::string& path, int n, uint32_t shards, bool overwrite = false,
                               int first = 0) {
  return testing::WriteIdNameImg(path, RecoveryRows(n, first), {.shards = shards, .overwrite = overwrite});
}

// An append killed after it wrote its journals and some rows: a hot journal.
void InterruptedAppend(const std::string& path) { testing::InterruptedAppend(path, RecoveryRows(400, 1000)); }

// Rewrites the JSON description line of a journal (its checksum covers only
// the bytes after it), as a hostile folder could.
void EditJournal(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  std::string text = ReadFile(path);
  const size_t a = text.find('\n'), b = text.find('\n', a + 1);
  nlohmann::json d = nlohmann::json::parse(text.substr(a + 1, b - a - 1));
  edit(d);
  WriteFile(path, text.substr(0, a + 1) + d.dump() + text.substr(b));
}

// Rewrites the JSON list of a commit record and its checksum.
void EditCommitRecord(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  std::string text = ReadFile(path);
  const size_t a = text.find('\n'), b = text.find('\n', a + 1);
  nlohmann::json list = nlohmann::json::parse(text.substr(b + 1));
  edit(list);
  const std::string body = list.dump();
  WriteFile(path, text.substr(0, a + 1) + ChecksumHex(Xxh3(body)) + "\n" + body);
}

std::map<std::string, std::string> SnapshotFiles(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_symlink()) {
      out[e.path().filename().string()] = "-> " + fs::read_symlink(e.path()).string();
    } else if (e.is_regular_file()) {
      out[e.path().filename().string()] = ReadFile(e.path().string());
    }
  }
  return out;
}

void ExpectOpenRefused(const std::string& path, const std::string& words) {
  auto r = ShardReader::Open(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().ToString();
}

// A journal whose shard is a symbolic link (to a file outside the dataset):
// recovery must not write through it.
TEST(UntrustedRecoveryTest, ShardThatIsASymlinkIsNeverWrittenThrough) {
  TempDir dir;
  fs::create_directory(dir.Join("ds"));
  fs::create_directory(dir.Join("home"));
  auto paths = WriteRecoveryDataset(dir.Join("ds/d"), 100, 1);
  InterruptedAppend(paths[0]);
  // The shard's place holds a link to the user's file (longer than the
  // journaled shard, so a rollback would cut it).
  const std::string victim = dir.Join("home/notes.txt");
  fs::rename(paths[0], victim);
  fs::create_symlink("../home/notes.txt", paths[0]);
  const std::string before = ReadFile(victim);
  const auto ds_before = SnapshotFiles(dir.Join("ds"));
  ExpectOpenRefused(paths[0], "symbolic link");
  EXPECT_EQ(ReadFile(victim), before);
  EXPECT_EQ(SnapshotFiles(dir.Join("ds")), ds_before);  // reported and left alone
}

// A master journal listing a shard outside the dataset's folder.
TEST(UntrustedRecoveryTest, JournalNamingAFileOutsideTheFolderIsLeftAlone) {
  TempDir dir;
  fs::create_directory(dir.Join("ds"));
  fs::create_directory(dir.Join("home"));
  auto paths = WriteRecoveryDataset(dir.Join("ds/d"), 200, 2);
  InterruptedAppend(paths[0]);
  // The user's file outside, with a journal placed beside it.
  const std::string victim = dir.Join("home/" + BaseName(paths[1]));
  fs::copy_file(paths[1], victim);
  fs::copy_file(JournalPath(paths[1]), JournalPath(victim));
  EditJournal(JournalPath(paths[0]), [&](nlohmann::json& d) {
    d["shards"][1] = "../home/" + BaseName(paths[1]);
  });
  const std::string before = ReadFile(victim);
  const auto ds_before = SnapshotFiles(dir.Join("ds"));
  ExpectOpenRefused(paths[0], "outside");
  EXPECT_EQ(ReadFile(victim), before);
  EXPECT_EQ(SnapshotFiles(dir.Join("ds")), ds_before);
}

// A shard journal naming a master outside the folder.
TEST(UntrustedRecoveryTest, ShardJournalNamingAMasterOutsideTheFolderIsLeftAlone) {
  TempDir dir;
  fs::create_directory(dir.Join("ds"));
  fs::create_directory(dir.Join("home"));
  auto paths = WriteRecoveryDataset(dir.Join("ds/d"), 200, 2);
  InterruptedAppend(paths[0]);
  const std::string victim = dir.Join("home/" + BaseName(paths[0]));
  fs::copy_file(paths[0], victim);
  fs::rename(JournalPath(paths[0]), JournalPath(victim));  // the master, moved out
  fs::copy_file(paths[0] + ".mr-journal.db", victim + ".mr-journal.db");
  EditJournal(JournalPath(paths[1]), [&](nlohmann::json& d) { d["master"] = "../home/" + BaseName(paths[0]); });
  const std::string before = ReadFile(victim);
  auto r = ShardReader::Open(paths[1]);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside the folder"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(ReadFile(victim), before);
  EXPECT_TRUE(fs::exists(JournalPath(victim)));
}

// A commit record renaming a dataset file over a file outside the folder.
TEST(UntrustedRecoveryTest, CommitRecordRenamingOutsideTheFolderIsLeftAlone) {
  TempDir dir;
  fs::create_directory(dir.Join("ds"));
  auto paths = WriteRecoveryDataset(dir.Join("ds/d"), 50, 1);
  const std::string victim = dir.Join("victim.txt");
  WriteFile(victim, "the user's own file");
  const std::string tmp = dir.Join("ds/.d.tmp-1");
  WriteFile(tmp, "junk the record would move");
  ASSERT_TRUE(WriteCommitRecord(paths[0], {{tmp, paths[0]}}, FileSystem::Default()).ok());
  EditCommitRecord(CommitRecordPath(paths[0]), [&](nlohmann::json& list) {
    list[0][1] = "../victim.txt";
    list.push_back(list[0]);  // the record still names the dataset
    list[1][0] = ".unused";
    list[1][1] = BaseName(paths[0]);
  });
  ExpectOpenRefused(paths[0], "outside its folder");
  EXPECT_EQ(ReadFile(victim), "the user's own file");
  EXPECT_TRUE(fs::exists(tmp));
  EXPECT_TRUE(fs::exists(CommitRecordPath(paths[0])));
}

// A commit record whose temporary is not the file the writer recorded (here a
// planted one) is not applied.
TEST(UntrustedRecoveryTest, CommitRecordForOtherFilesIsLeftAlone) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 50, 1);
  const std::string tmp = dir.Join(".d.tmp-1");
  WriteFile(tmp, "first");
  ASSERT_TRUE(WriteCommitRecord(paths[0], {{tmp, paths[0]}}, FileSystem::Default()).ok());
  fs::remove(tmp);
  WriteFile(tmp, "another file under the recorded name");
  const std::string before = ReadFile(paths[0]);
  ExpectOpenRefused(paths[0], "does not match");
  EXPECT_EQ(ReadFile(paths[0]), before);
}

// A commit record of the older format (names only, no identities) is named
// as such and left alone (it was "damaged (no signature)").
TEST(UntrustedRecoveryTest, OlderFormatCommitRecordIsNamedAndLeftAlone) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 50, 1);
  const std::string tmp = dir.Join(".d.tmp-1");
  WriteFile(tmp, "a file the record would rename");
  WriteFile(CommitRecordPath(paths[0]), "mindrecord-commit 1\n[[\".d.tmp-1\",\"d\"]]");
  const auto before = SnapshotFiles(dir.path());
  ExpectOpenRefused(paths[0], "commit record was written by an older mindrecord (format 1)");
  ExpectOpenRefused(paths[0], "`mindrecord recover --discard " + paths[0] + "`");
  EXPECT_EQ(SnapshotFiles(dir.path()), before);
}

// Every journal is checked before the first byte is written: a damaged
// shard-1 journal leaves shard 0 untouched too.
TEST(UntrustedRecoveryTest, WholeRecordIsCheckedBeforeAnythingIsWritten) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 300, 3);
  InterruptedAppend(paths[0]);
  std::string j1 = ReadFile(JournalPath(paths[2]));
  j1.back() ^= 0x5a;
  WriteFile(JournalPath(paths[2]), j1);
  const auto before = SnapshotFiles(dir.path());
  ExpectOpenRefused(paths[0], "damaged");
  EXPECT_EQ(SnapshotFiles(dir.path()), before);
}

// A journal written for another file (the shard was replaced by a copy):
// reported, never applied.
TEST(UntrustedRecoveryTest, JournalOfAnotherFileIsLeftAlone) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 100, 1);
  InterruptedAppend(paths[0]);
  fs::copy_file(paths[0], dir.Join("copy"));
  fs::rename(dir.Join("copy"), paths[0]);
  const auto before = SnapshotFiles(dir.path());
  ExpectOpenRefused(paths[0], "does not belong");
  EXPECT_EQ(SnapshotFiles(dir.path()), before);
}

// Replacing a dataset whose append was interrupted: the old journal must not
// be applied to the new files (it was: every page failed its checksum).
TEST(UntrustedRecoveryTest, OverwriteRemovesTheOldJournal) {
  for (uint32_t shards : {1u, 3u}) {
    TempDir dir;
    auto paths = WriteRecoveryDataset(dir.Join("d"), 100, shards);
    InterruptedAppend(paths[0]);
    WriteRecoveryDataset(dir.Join("d"), 60, shards, /*overwrite=*/true, /*first=*/5000);
    for (const auto& p : paths) EXPECT_FALSE(fs::exists(JournalPath(p))) << p;
    auto r = ShardReader::Open(paths[0]);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->num_rows(), 60u);
    auto row = (*r)->ReadRow(0);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_TRUE(Verify(paths[0], {.deep = true}).ok());
  }
}

// The dataset's own hot journal is still rolled back (the guard refuses only
// what does not match).
TEST(UntrustedRecoveryTest, OwnJournalIsStillRolledBack) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 200, 2);
  const std::string before0 = ReadFile(paths[0]), before1 = ReadFile(paths[1]);
  InterruptedAppend(paths[0]);
  auto r = ShardReader::Open(paths[1]);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_rows(), 200u);
  EXPECT_EQ(ReadFile(paths[0]), before0);
  EXPECT_EQ(ReadFile(paths[1]), before1);
}

// An append that died on a full disk (here: right after its journal, before
// it reached the old pages' unused tails) is rolled back while the disk is
// still full: the rollback only rewrites bytes the shard holds and cuts it.
TEST(UntrustedRecoveryTest, RollBackOnAFullDiskNeedsNoFreeSpace) {
  TempDir dir;
  auto paths = WriteRecoveryDataset(dir.Join("d"), 100, 1);
  const std::string before = ReadFile(paths[0]);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto w = ShardWriter::OpenForAppend(paths[0]);
    _exit(w.ok() ? 0 : 3);  // killed right after the journal was written
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(fs::exists(JournalPath(paths[0])));
  FaultInjectingFileSystem full(FileSystem::Default());
  full.DiskFull(true);
  ReaderOptions o;
  o.file_system = &full;
  auto r = ShardReader::Open(paths[0], o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_rows(), 100u);
  EXPECT_EQ(ReadFile(paths[0]), before);
  EXPECT_FALSE(fs::exists(JournalPath(paths[0])));
}

}  // namespace
}  // namespace mindrecord
