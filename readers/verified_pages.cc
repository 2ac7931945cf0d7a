#include "readers/verified_pages.h"

#include <sys/stat.h>

#include <chrono>
#include <mutex>
#include <set>
#include <tuple>

#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

struct Key {
  FileIdentity id;
  uint64_t page;
  std::string checksum;
  bool operator<(const Key& o) const {
    return std::tie(id.dev, id.ino, id.size, id.mtime_ns, id.ctime_ns, page, checksum) <
           std::tie(o.id.dev, o.id.ino, o.id.size, o.id.mtime_ns, o.id.ctime_ns, o.page, o.checksum);
  }
};

constexpr size_t kMaxPages = 1 << 16;

struct VerifiedPagesTag {};
std::mutex& Mu() { return ForkSafeMutex<VerifiedPagesTag>(); }
std::set<Key>& Pages() {
  static std::set<Key>* pages = new std::set<Key>();  // never destroyed: safe at exit
  return *pages;
}

}  // namespace

FileIdentity IdentityOf(const std::string& path) {
  FileIdentity id;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return id;
  id.valid = true;
  id.dev = static_cast<uint64_t>(st.st_dev);
  id.ino = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return id;
}

bool IdentityQuiet(const FileIdentity& id) {
  const int64_t wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  return id.valid && wall_ns - id.ctime_ns >= kQuietSeconds * 1000000000LL;
}

bool PathIdentity::operator<(const PathIdentity& o) const {
  return std::tie(path, id.dev, id.ino, id.size, id.mtime_ns, id.ctime_ns) <
         std::tie(o.path, o.id.dev, o.id.ino, o.id.size, o.id.mtime_ns, o.id.ctime_ns);
}

bool PageVerifiedBefore(const FileIdentity& id, uint64_t page, std::string_view checksum) {
  if (!id.valid) return false;
  std::lock_guard<std::mutex> lock(Mu());
  return Pages().count(Key{id, page, std::string(checksum)}) > 0;
}

void RememberVerifiedPage(const std::string& path, const FileIdentity& id, uint64_t page, std::string_view checksum) {
  if (!id.valid) return;
  const FileIdentity now = IdentityOf(path);
  if (!(now == id) || !IdentityQuiet(id)) return;
  std::lock_guard<std::mutex> lock(Mu());
  if (Pages().size() >= kMaxPages) Pages().clear();
  Pages().insert(Key{id, page, std::string(checksum)});
}

}  // namespace mindrecord
