// Crash safety of appends: an undo journal per shard plus a lock on the
// dataset's first shard.
//
// Before an append touches anything, every shard S gets "S.mr-journal" (its
// size and header bytes before the append) and "S.mr-journal.db" (a hard link
// to, or copy of, its index). The first shard's journal is the master: while
// it exists the append is not committed. Committing removes the master first;
// rolling back restores every journaled shard (header, size, index) and then
// removes the master. Journals left without a master are stale and deleted.
//
// Locking: an appender holds an exclusive flock(2) on the first shard's file
// from open to commit; readers hold a shared one while they open the dataset.
// A master journal whose lock nobody holds was left by a crash ("hot") and is
// rolled back by the next reader or writer that opens the dataset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "writers/commit_record.h"

namespace mindrecord {

// "<shard>.mr-journal".
std::string JournalPath(const std::string& shard_path);

// Thread safety: not thread-safe; owned by one opener.
class DatasetLock {
 public:
  enum class Mode { kShared, kExclusive };
  // Locks `first_shard` (the dataset's shard 0) and rolls back a hot journal
  // first. Unavailable when another process holds a conflicting lock: for
  // readers, an append in progress; for writers, another appender or a
  // reader still opening. Exclusive locks wait up to `wait_ms` for readers.
  static Result<std::unique_ptr<DatasetLock>> Acquire(const std::string& first_shard, Mode mode, FileSystem* fs,
                                                      int wait_ms = 2000);
  ~DatasetLock();
  DatasetLock(const DatasetLock&) = delete;
  DatasetLock& operator=(const DatasetLock&) = delete;
  // True when Acquire rolled back an interrupted append.
  bool rolled_back() const { return rolled_back_; }

 private:
  DatasetLock() = default;
  int fd_ = -1;
  bool rolled_back_ = false;
};

// When `shard_path` has a journal, rolls back the interrupted append it
// belongs to (or removes it when stale). Called before a shard's header is
// read, since an interrupted append may have left that header half written.
Status RecoverShardJournal(const std::string& shard_path, FileSystem* fs);

// For code opening a dataset through `path` (any of its shards): finishes an
// interrupted append's rollback and locks the dataset while the caller reads
// its headers. nullptr (not an error) when `path` has no readable header or
// the first shard is missing: the caller's own reads report that.
Result<std::unique_ptr<DatasetLock>> LockDatasetAt(const std::string& path, DatasetLock::Mode mode, FileSystem* fs);

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
