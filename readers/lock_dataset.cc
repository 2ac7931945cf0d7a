#include "readers/lock_dataset.h"

#include <vector>

#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "readers/header_io.h"
#include "readers/shard_paths.h"

namespace mindrecord {

Result<std::unique_ptr<DatasetLock>> LockDatasetAt(const std::string& path, DatasetLock::Mode mode, FileSystem* fs) {
  MR_RETURN_IF_ERROR(FinishCommit(path, fs));
  MR_RETURN_IF_ERROR(RecoverShardJournal(path, fs));
  std::vector<std::string> shards;
  {
    auto f = fs->OpenRead(path);
    if (!f.ok()) return std::unique_ptr<DatasetLock>();
    auto h = ReadShardHeader(**f, false);
    if (!h.ok() || h->shard_addresses.empty()) return std::unique_ptr<DatasetLock>();
    auto paths = ShardPathsFor(path, *h);
    if (!paths.ok()) return std::unique_ptr<DatasetLock>();  // the caller's own reads report it
    shards = std::move(paths).value();
  }
  const std::string& first = shards[0];
  if (first != path) MR_RETURN_IF_ERROR(FinishCommit(first, fs));
  if (!fs->Exists(first)) return std::unique_ptr<DatasetLock>();
  MR_ASSIGN_OR_RETURN(auto lock, RecoverAndLock(first, mode, fs));
  // Under the lock no append runs, and without a master journal any other
  // journal is what a committed append had not yet tidied.
  RemoveStaleJournals(shards, fs);
  return lock;
}

}  // namespace mindrecord
