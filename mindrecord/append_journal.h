// Crash safety of appends: an undo journal per shard.
//
// Before an append touches anything, every shard S gets "S.mr-journal" (its
// size and header bytes before the append) and "S.mr-journal.db" (a hard link
// to, or copy of, its index). The first shard's journal is the master: while
// it exists the append is not committed. Committing removes the master first;
// rolling back restores every journaled shard (header, size, index) and then
// removes the master. Journals left without a master are stale and deleted.
//
// The appender holds the dataset lock (mindrecord/dataset_lock.h) exclusively
// from open to commit. A master journal whose lock nobody holds was left by a
// crash ("hot") and is rolled back by the next reader or writer that opens
// the dataset (RecoverAndLock).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/dataset_lock.h"
#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

// "<shard>.mr-journal", and the index backup beside it, "<shard>.mr-journal.db".
std::string JournalPath(const std::string& shard_path);
std::string JournalIndexPath(const std::string& shard_path);

// Locks the dataset whose first shard is `first_shard` (DatasetLock::Acquire)
// and, when it finds a hot master journal, rolls that append back first
// (taking the lock exclusively meanwhile: a shared lock waits up to `wait_ms`
// for it). The lock returned is in `mode`.
Result<std::unique_ptr<DatasetLock>> RecoverAndLock(const std::string& first_shard, DatasetLock::Mode mode,
                                                    FileSystem* fs, int wait_ms = 2000);

// When `shard_path` has a journal, rolls back the interrupted append it
// belongs to (or removes it when stale). Called before a shard's header is
// read, since an interrupted append may have left that header half written.
Status RecoverShardJournal(const std::string& shard_path, FileSystem* fs);

// Under the dataset lock, with no master journal beside `shards[0]`: removes
// the journals and index backups of `shards` that a committed append had not
// yet tidied (best effort: a read-only opener leaves them for the next one).
void RemoveStaleJournals(const std::vector<std::string>& shards, FileSystem* fs);

// `mindrecord recover --roll-back`: rolls back the interrupted append whose
// master journal is beside `first_shard` although the shards are other files
// than those journaled, as in a folder copied while the append ran (every
// opener refuses that, since a shard replaced after the append looks the
// same). Every other check holds: plain names in the folder, regular files
// reached without a link, no smaller than journaled, one append id, the
// whole record checked before the first write. Takes the lock exclusively.
Status RollBackCopiedAppend(const std::string& first_shard, FileSystem* fs);

// `mindrecord recover --discard`: removes the append journals and index
// backups of `shards` (shards[0] first) without applying them, keeping the
// dataset as it is. Takes the lock exclusively. Returns the paths removed.
Result<std::vector<std::string>> DiscardAppendJournals(const std::vector<std::string>& shards, FileSystem* fs);

// The undo journal of one append. Thread safety: not thread-safe.
class AppendJournal {
 public:
  struct ShardState {
    std::string path;
    uint64_t size = 0;         // file size before the append
    uint64_t header_size = 0;  // reserved header bytes
    std::string header;        // length prefix + JSON, as on disk
    // Bytes inside the old file the append may overwrite: the unused tails of
    // the page slots it continues. Empty `bytes`: the range was all zeros.
    struct Region {
      uint64_t offset = 0, length = 0;
      std::string bytes;
    };
    std::vector<Region> regions;
  };
  // Writes the journals of every shard (shards[0] is the master), durably,
  // before the caller modifies anything.
  static Result<std::unique_ptr<AppendJournal>> Begin(const std::vector<ShardState>& shards, FileSystem* fs);
  // Commit point: removes the master journal (durably), then the rest.
  Status Commit();
  // Restores every shard as journaled and removes the journals.
  Status RollBack();

 private:
  AppendJournal() = default;
  FileSystem* fs_ = nullptr;
  std::string master_;
  std::vector<std::string> shards_;
  bool done_ = false;
};

}  // namespace mindrecord
