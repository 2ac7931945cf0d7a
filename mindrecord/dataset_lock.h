// The dataset lock: an flock(2) on the dataset's first shard that says who
// may touch the dataset now. An appender holds it exclusively from open to
// commit; readers (and the verifier) hold it shared while they open the
// dataset. A master append journal (mindrecord/append_journal.h) whose lock
// nobody holds was left by a crash: RecoverAndLock there rolls it back.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: not thread-safe; owned by one opener.
class DatasetLock {
 public:
  enum class Mode { kShared, kExclusive };
  // Locks `first_shard` (the dataset's shard 0, a regular file). Unavailable
  // (IOError, IsDatasetBusy) when another process holds a conflicting lock:
  // for readers, an append in progress; for writers, another appender or a
  // reader still opening. Shared locks do not wait (an append holds the
  // dataset for as long as it runs); exclusive locks wait up to `wait_ms` for
  // readers to finish opening.
  static Result<std::unique_ptr<DatasetLock>> Acquire(const std::string& first_shard, Mode mode, int wait_ms = 2000);
  ~DatasetLock();
  DatasetLock(const DatasetLock&) = delete;
  DatasetLock& operator=(const DatasetLock&) = delete;
  // Converts the lock held to `mode`, waiting up to `wait_ms` (flock converts
  // in place, not atomically: another process may take it in between). A
  // refusal is reported as busy for the mode the lock was acquired in.
  Status Relock(Mode mode, int wait_ms);

 private:
  DatasetLock(std::string path, int fd, Mode role) : path_(std::move(path)), fd_(fd), role_(role) {}
  std::string path_;
  int fd_ = -1;
  Mode role_;  // the mode of Acquire: decides what a refusal says
};

// The message of a shared lock refused because an append holds the dataset.
inline constexpr const char* kAppendBusy =
    "an append to this dataset is in progress; open it after the append commits";
// True when `st` is a refused lock (the dataset is busy), not another error.
bool IsDatasetBusy(const Status& st);

}  // namespace mindrecord
