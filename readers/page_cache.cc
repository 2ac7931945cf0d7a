#include "readers/page_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "mindrecord/checksum.h"
#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

constexpr char kCacheEntryMagic[8] = {'M', 'R', 'C', 'A', 'C', 'H', 'E', '1'};
// magic, key length (u32), reserved (u32), data length (u64), XXH3 (u64).
constexpr size_t kEntryHeader = 32;
constexpr const char* kEntrySuffix = ".mrc";
// Temporaries older than this are a crashed writer's and are removed.
constexpr time_t kStaleTmpSeconds = 3600;

std::mutex g_open_mu;
std::map<std::string, std::weak_ptr<DiskPageCache>>& OpenCaches() {
  static auto* m = new std::map<std::string, std::weak_ptr<DiskPageCache>>();
  return *m;
}

uint64_t EntryHash(std::string_view key, std::string_view data) {
  Xxh3Stream h;
  h.Update(key);
  h.Update(data);
  return h.Digest();
}

bool ReadFull(int fd, char* p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, p + done, n - done, static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

bool WriteFull(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

struct EntryFile {
  std::string path;
  uint64_t size = 0;
  timespec mtime{};
};

// Every entry of the folder, and removes stale temporaries on the way.
std::vector<EntryFile> ListEntries(const std::string& dir) {
  std::vector<EntryFile> out;
  const time_t now = time(nullptr);
  for (int sub = 0; sub < 256; ++sub) {
    char name[3];
    snprintf(name, sizeof name, "%02x", sub);
    const std::string d = dir + "/" + name;
    DIR* h = opendir(d.c_str());
    if (!h) continue;
    while (dirent* e = readdir(h)) {
      std::string n = e->d_name;
      const bool entry = n.size() > 4 && n.compare(n.size() - 4, 4, kEntrySuffix) == 0;
      const bool tmp = n.rfind(".tmp", 0) == 0;
      if (!entry && !tmp) continue;
      struct stat st;
      const std::string p = d + "/" + n;
      if (lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (tmp) {
        if (now - st.st_mtime > kStaleTmpSeconds) unlink(p.c_str());
        continue;
      }
      out.push_back({p, static_cast<uint64_t>(st.st_size), st.st_mtim});
    }
    closedir(h);
  }
  return out;
}

}  // namespace

std::string DiskPageCache::DefaultDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/mindrecord";
  const char* home = std::getenv("HOME");
  return std::string(home && home[0] ? home : "/tmp") + "/.cache/mindrecord";
}

Result<std::shared_ptr<DiskPageCache>> DiskPageCache::Open(const std::string& dir_in, uint64_t max_bytes) {
  std::string dir = dir_in.empty() ? DefaultDir() : dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  // Create the folder and its parents (~/.cache may not exist yet).
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::IOError(dir + ": cannot create the remote page cache folder (" + std::strerror(errno) +
                             "); name another with cache_dir");
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::IOError(dir + ": the remote page cache folder is not a directory");
  }
  std::lock_guard<std::mutex> lock(g_open_mu);
  const std::string key = dir + "\n" + std::to_string(max_bytes);
  if (auto live = OpenCaches()[key].lock()) return live;
  auto cache = std::make_shared<DiskPageCache>(dir, max_bytes);
  OpenCaches()[key] = cache;
  return cache;
}

std::string DiskPageCache::EntryPath(const std::string& key) const {
  const std::string hex = ChecksumHex(Xxh3(key)) + ChecksumHex(Xxh3(key + "\x01"));
  return dir_ + "/" + hex.substr(0, 2) + "/" + hex + kEntrySuffix;
}

std::optional<std::string> DiskPageCache::Get(const std::string& key, uint64_t length) {
  const std::string path = EntryPath(key);
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    misses_++;
    return std::nullopt;
  }
  auto damaged = [&] {
    close(fd);
    unlink(path.c_str());
    damaged_++;
    misses_++;
    return std::nullopt;
  };
  struct stat st;
  const uint64_t want = kEntryHeader + key.size() + length;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != want) return damaged();
  std::string all(want, '\0');
  if (!ReadFull(fd, all.data(), want)) return damaged();
  uint32_t key_len;
  uint64_t data_len, hash;
  std::memcpy(&key_len, all.data() + 8, 4);
  std::memcpy(&data_len, all.data() + 16, 8);
  std::memcpy(&hash, all.data() + 24, 8);
  if (std::memcmp(all.data(), kCacheEntryMagic, 8) != 0 || key_len != key.size() || data_len != length ||
      std::string_view(all).substr(kEntryHeader, key.size()) != key) {
    return damaged();
  }
  std::string data = all.substr(kEntryHeader + key.size());
  if (EntryHash(key, data) != hash) return damaged();
  futimens(fd, nullptr);  // the LRU clock
  close(fd);
  hits_++;
  return data;
}

void DiskPageCache::Put(const std::string& key, std::string_view bytes) {
  const uint64_t size = kEntryHeader + key.size() + bytes.size();
  if (max_bytes_ == 0 || size > max_bytes_) return;
  const std::string path = EntryPath(key);
  const std::string sub = path.substr(0, path.rfind('/'));
  mkdir(sub.c_str(), 0700);
  static std::atomic<uint64_t> seq{0};
  const std::string tmp = sub + "/.tmp" + std::to_string(getpid()) + "-" + std::to_string(seq++);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  char head[kEntryHeader] = {};
  std::memcpy(head, kCacheEntryMagic, 8);
  const uint32_t key_len = static_cast<uint32_t>(key.size());
  const uint64_t data_len = bytes.size(), hash = EntryHash(key, bytes);
  std::memcpy(head + 8, &key_len, 4);
  std::memcpy(head + 16, &data_len, 8);
  std::memcpy(head + 24, &hash, 8);
  bool ok = WriteFull(fd, head, kEntryHeader) && WriteFull(fd, key.data(), key.size()) &&
            WriteFull(fd, bytes.data(), bytes.size());
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return;
  }
  puts_++;
  Account(static_cast<int64_t>(size));
}

void DiskPageCache::Account(int64_t added) {
  struct AccountTag {};
  // flock is per open file: the process's threads take turns first.
  std::lock_guard<std::mutex> guard(ForkSafeMutex<AccountTag>());
  const std::string lock_path = dir_ + "/lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  if (flock(fd, LOCK_EX) != 0) {
    close(fd);
    return;
  }
  uint64_t used = 0;
  if (pread(fd, &used, 8, 0) != 8) used = UINT64_MAX;  // new or damaged: recount
  used = used == UINT64_MAX ? Evict(UINT64_MAX) : used + static_cast<uint64_t>(added);
  if (used > max_bytes_) used = Evict(max_bytes_ / 10 * 9);
  (void)!pwrite(fd, &used, 8, 0);
  flock(fd, LOCK_UN);
  close(fd);
}

uint64_t DiskPageCache::Evict(uint64_t target) {
  std::vector<EntryFile> entries = ListEntries(dir_);
  uint64_t total = 0;
  for (const auto& e : entries) total += e.size;
  if (total <= target) return total;
  std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) {
    return a.mtime.tv_sec != b.mtime.tv_sec ? a.mtime.tv_sec < b.mtime.tv_sec : a.mtime.tv_nsec < b.mtime.tv_nsec;
  });
  for (const auto& e : entries) {
    if (total <= target) break;
    if (unlink(e.path.c_str()) == 0) {
      total -= e.size;
      evicted_++;
    }
  }
  return total;
}

uint64_t DiskPageCache::UsedBytes() const {
  uint64_t total = 0;
  for (const auto& e : ListEntries(dir_)) total += e.size;
  return total;
}

PageCacheCounters DiskPageCache::counters() const {
  return {hits_.load(), misses_.load(), puts_.load(), evicted_.load(), damaged_.load()};
}

}  // namespace mindrecord
