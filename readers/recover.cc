#include "readers/recover.h"

#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "mindrecord/own_file.h"
#include "readers/header_io.h"
#include "readers/lock_dataset.h"
#include "readers/shard_paths.h"

namespace mindrecord {
namespace {

// The dataset's shards as its header names them, or `path` alone.
std::vector<std::string> ShardsOf(const std::string& path, FileSystem* fs) {
  auto f = fs->OpenRead(path);
  if (!f.ok()) return {path};
  auto h = ReadShardHeader(**f, false);
  if (!h.ok()) return {path};
  auto paths = ShardPathsFor(path, *h);
  return paths.ok() ? std::move(paths).value() : std::vector<std::string>{path};
}

}  // namespace

Result<std::vector<std::string>> Recover(const std::string& path, RecoverMode mode, FileSystem* fs) {
  MR_RETURN_IF_ERROR(CheckNotSpecialFile(path));
  if (!fs->Exists(path)) return Status::NotFound(path + ": no such file");
  std::vector<std::string> done;
  if (mode == RecoverMode::kDiscard) {
    const std::vector<std::string> shards = ShardsOf(path, fs);
    std::vector<std::string> names = shards;
    if (shards[0] != path) names.push_back(path);
    MR_ASSIGN_OR_RETURN(auto removed, DiscardAppendJournals(names, fs));
    for (const auto& p : removed) done.push_back("removed " + p);
    {
      MR_ASSIGN_OR_RETURN(auto lock, DatasetLock::Acquire(shards[0], DatasetLock::Mode::kExclusive));
      for (const std::string& s : {shards[0], path}) {
        MR_ASSIGN_OR_RETURN(bool had, DiscardCommitRecord(s, fs));
        if (had) done.push_back("removed " + CommitRecordPath(s));
      }
    }
  } else {
    const std::string first = ShardsOf(path, fs)[0];
    const bool journal = fs->Exists(JournalPath(first)), record = fs->Exists(CommitRecordPath(first));
    if (mode == RecoverMode::kRollBack && journal) {
      MR_RETURN_IF_ERROR(RollBackCopiedAppend(first, fs));
      done.push_back("rolled back the interrupted append recorded in " + JournalPath(first));
    }
    // What every opener does (for kRollBack: what is left after it).
    MR_ASSIGN_OR_RETURN(auto lock, LockDatasetAt(path, DatasetLock::Mode::kExclusive, fs));
    if (record && !fs->Exists(CommitRecordPath(first))) {
      done.push_back("finished the interrupted commit recorded in " + CommitRecordPath(first));
    }
    if (mode == RecoverMode::kAsOpen && journal && !fs->Exists(JournalPath(first))) {
      done.push_back("rolled back the interrupted append recorded in " + JournalPath(first));
    }
  }
  if (done.empty()) done.push_back("nothing to recover: no interrupted append or commit");
  return done;
}

}  // namespace mindrecord
