#include "mindrecord/background_sync.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>

namespace mindrecord {

namespace {
std::atomic<int> g_running{0};
std::atomic<uint64_t> g_flushes{0};
}  // namespace

// What the writer thread and the helper share.
struct BackgroundSync::Shared {
  int fd;
  std::string path;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t unsynced = 0;  // bytes noted since the last flush was asked for
  bool want = false, stop = false;
  Status error;
  std::atomic<uint64_t> flushes{0};

  void Run() {
    std::unique_lock<std::mutex> lk(mu);
    for (;;) {
      cv.wait(lk, [&] { return want || stop; });
      if (!want) return;  // stopped, nothing asked for
      want = false;
      lk.unlock();
      const int rc = fdatasync(fd);
      const int err = errno;
      lk.lock();
      if (rc != 0 && error.ok()) error = Status::IOError(path + ": background fsync: " + std::strerror(err));
      flushes.fetch_add(1);
      g_flushes.fetch_add(1);
    }
  }
};

std::unique_ptr<BackgroundSync> BackgroundSync::Start(int fd, std::string path) {
  if (g_running.fetch_add(1) >= kMaxFiles) {
    g_running.fetch_sub(1);
    return nullptr;
  }
  return std::unique_ptr<BackgroundSync>(new BackgroundSync(fd, std::move(path)));
}

BackgroundSync::BackgroundSync(int fd, std::string path) : pid_(::getpid()), shared_(new Shared) {
  shared_->fd = fd;
  shared_->path = std::move(path);
  thread_ = std::thread([s = shared_.get()] { s->Run(); });
}

BackgroundSync::~BackgroundSync() { (void)Finish(); }

void BackgroundSync::Note(uint64_t bytes) {
  Shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.unsynced += bytes;
    if (s.unsynced < kSyncBytes) return;
    s.unsynced = 0;
    s.want = true;
  }
  s.cv.notify_one();
}

uint64_t BackgroundSync::flushes() const { return shared_->flushes.load(); }
uint64_t BackgroundSync::total_flushes() { return g_flushes.load(); }

Status BackgroundSync::Finish() {
  Shared& s = *shared_;
  if (thread_.joinable() && ::getpid() != pid_) {
    // A forked copy: the helper runs only in the parent, and the lock and
    // condition it waits on may be held or waited on there. Left as they
    // are for the process's life (destroying them could block).
    (void)new std::thread(std::move(thread_));
    Status st = s.error;
    (void)shared_.release();
    shared_.reset(new Shared);
    shared_->error = st;
    return st;
  }
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lk(s.mu);
      s.stop = true;
      s.want = false;  // the caller syncs next
    }
    s.cv.notify_one();
    thread_.join();
    g_running.fetch_sub(1);
  }
  std::lock_guard<std::mutex> lk(s.mu);
  return s.error;
}

}  // namespace mindrecord
