#include "mindrecord/dataset_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "mindrecord/own_file.h"

namespace mindrecord {
namespace {

constexpr const char* kWriterBusy = "another writer is appending to this dataset (or a reader is opening it)";

Status LockOrBusy(int fd, int op, int wait_ms, const std::string& path, const std::string& busy) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (flock(fd, op | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return Status::IOError(path + ": lock: " + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) return Status::IOError(path + ": " + busy);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::OK();
}

}  // namespace

bool IsDatasetBusy(const Status& st) {
  const std::string& m = st.message();
  return st.code() == StatusCode::kIOError &&
         (m.find(kAppendBusy) != std::string::npos || m.find(kWriterBusy) != std::string::npos);
}

Result<std::unique_ptr<DatasetLock>> DatasetLock::Acquire(const std::string& first_shard, Mode mode, int wait_ms) {
  // O_NONBLOCK: a FIFO in the shard's place must not block the open.
  const int fd = open(first_shard.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(first_shard + ": no such file");
    return Status::IOError(first_shard + ": open: " + std::strerror(errno));
  }
  std::unique_ptr<DatasetLock> lock(new DatasetLock(first_shard, fd, mode));
  struct stat st;
  if (fstat(fd, &st) != 0) return Status::IOError(first_shard + ": stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return Status::Corruption(first_shard + ": is a " + std::string(FileKindName(st.st_mode)) +
                              ", not a regular file; a dataset file must be a regular file");
  }
  MR_RETURN_IF_ERROR(lock->Relock(mode, mode == Mode::kShared ? 0 : wait_ms));
  return lock;
}

Status DatasetLock::Relock(Mode mode, int wait_ms) {
  return LockOrBusy(fd_, mode == Mode::kShared ? LOCK_SH : LOCK_EX, wait_ms, path_,
                    role_ == Mode::kShared ? kAppendBusy : kWriterBusy);
}

DatasetLock::~DatasetLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

}  // namespace mindrecord
