#include "readers/verified_pages.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

#include "mindrecord/checksum.h"
#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

struct VerifiedPage {
  FileIdentity id;
  uint64_t page;
  std::string checksum;
  bool operator<(const VerifiedPage& o) const {
    return std::tie(id.dev, id.ino, id.size, id.mtime_ns, id.ctime_ns, page, checksum) <
           std::tie(o.id.dev, o.id.ino, o.id.size, o.id.mtime_ns, o.id.ctime_ns, o.page, o.checksum);
  }
};

constexpr size_t kMaxPages = 1 << 16;

struct VerifiedPagesTag {};
std::mutex& VerifiedPagesMu() { return ForkSafeMutex<VerifiedPagesTag>(); }
std::set<VerifiedPage>& Pages() {
  static std::set<VerifiedPage>* pages = new std::set<VerifiedPage>();  // never destroyed: safe at exit
  return *pages;
}

// The pages verified by this process and by every process forked from it
// or forked alongside it (DataLoader workers, started afresh each epoch, all
// forked from one parent): a table in shared anonymous memory, mapped when
// the library loads, so that it exists before any fork. Without it, each
// worker of each epoch hashed every page it touched again, which with
// shuffled reads is every page of the dataset. Entries are claimed with a
// compare-and-swap on `state` and never removed; a full table (or a
// checksum longer than an entry holds) falls back to the process's own set.
struct SharedEntry {
  uint32_t state;  // 0 empty, 1 being written (or its writer died), 2 ready
  uint32_t checksum_len;
  uint64_t dev, ino, size, page;
  int64_t mtime_ns, ctime_ns;
  char checksum[32];
};
constexpr size_t kSharedEntries = size_t{1} << 16;  // 5.5 MiB of address space, touched as used
constexpr size_t kProbes = 32;
enum : uint32_t { kEmpty = 0, kWriting = 1, kReady = 2 };

SharedEntry* MapSharedTable() {
  void* p = ::mmap(nullptr, sizeof(SharedEntry) * kSharedEntries, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<SharedEntry*>(p);
}
SharedEntry* const g_shared = MapSharedTable();  // at load: before the process forks

std::atomic_ref<uint32_t> StateOf(SharedEntry& e) { return std::atomic_ref<uint32_t>(e.state); }

// Callers have checked that `checksum` fits an entry.
uint64_t SlotOf(const FileIdentity& id, uint64_t page, std::string_view checksum) {
  const uint64_t key[6] = {id.dev, id.ino, id.size, page, static_cast<uint64_t>(id.mtime_ns),
                           static_cast<uint64_t>(id.ctime_ns)};
  char bytes[sizeof key + sizeof(SharedEntry::checksum)];
  std::memcpy(bytes, key, sizeof key);
  std::memcpy(bytes + sizeof key, checksum.data(), checksum.size());
  return Xxh3(std::string_view(bytes, sizeof key + checksum.size()));
}

bool Matches(const SharedEntry& e, const FileIdentity& id, uint64_t page, std::string_view checksum) {
  return e.dev == id.dev && e.ino == id.ino && e.size == id.size && e.page == page && e.mtime_ns == id.mtime_ns &&
         e.ctime_ns == id.ctime_ns && e.checksum_len == checksum.size() &&
         std::memcmp(e.checksum, checksum.data(), checksum.size()) == 0;
}

// Whether the table holds the page; with `insert`, adds it when it does not
// (false then when it has no room for it).
bool SharedFind(const FileIdentity& id, uint64_t page, std::string_view checksum, bool insert) {
  if (g_shared == nullptr || checksum.size() > sizeof(SharedEntry::checksum)) return false;
  const uint64_t h = SlotOf(id, page, checksum);
  for (size_t i = 0; i < kProbes; ++i) {
    SharedEntry& e = g_shared[(h + i) & (kSharedEntries - 1)];
    uint32_t state = StateOf(e).load(std::memory_order_acquire);
    if (state == kReady && Matches(e, id, page, checksum)) return true;
    if (state != kEmpty) continue;
    if (!insert) return false;
    if (StateOf(e).compare_exchange_strong(state, kWriting, std::memory_order_acq_rel)) {
      e.dev = id.dev;
      e.ino = id.ino;
      e.size = id.size;
      e.page = page;
      e.mtime_ns = id.mtime_ns;
      e.ctime_ns = id.ctime_ns;
      e.checksum_len = static_cast<uint32_t>(checksum.size());
      std::memcpy(e.checksum, checksum.data(), checksum.size());
      StateOf(e).store(kReady, std::memory_order_release);
      return true;
    }
    if (state == kReady && Matches(e, id, page, checksum)) return true;  // claimed by another meanwhile
  }
  return false;
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
  if (SharedFind(id, page, checksum, false)) return true;
  std::lock_guard<std::mutex> lock(VerifiedPagesMu());
  return Pages().count(VerifiedPage{id, page, std::string(checksum)}) > 0;
}

void RememberVerifiedPage(const std::string& path, const FileIdentity& id, uint64_t page, std::string_view checksum) {
  if (!id.valid) return;
  const FileIdentity now = IdentityOf(path);
  if (!(now == id) || !IdentityQuiet(id)) return;
  if (SharedFind(id, page, checksum, true)) return;
  std::lock_guard<std::mutex> lock(VerifiedPagesMu());
  if (Pages().size() >= kMaxPages) Pages().clear();
  Pages().insert(VerifiedPage{id, page, std::string(checksum)});
}

}  // namespace mindrecord
