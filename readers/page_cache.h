// DiskPageCache: the local cache of remote dataset bytes, one file per piece
// (a page or a block of one), shared by every process and thread of the
// machine that names the same folder, bounded in bytes with least recently
// used entries removed first.
//
// Safe across processes without a server: an entry is written to a
// temporary and renamed into place (readers see a whole entry or none); a
// hit refreshes the entry's mtime (the LRU clock); the byte count lives in a
// small file updated under an flock, and whoever takes it past the bound
// removes the oldest entries (by mtime) until 90% of the bound is left,
// recounting from the folder so the count never drifts. A reader that opened
// an entry before its removal still reads it whole (unlink keeps open files).
//
// The cache is untrusted input: an entry holds its key, its length and an
// XXH3 of both plus the bytes; anything else (a short, foreign, damaged or
// mismatched entry) is a miss, and the entry is removed so it is fetched
// again. Callers verify page checksums on top of that.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord {

struct PageCacheCounters {
  uint64_t hits = 0, misses = 0, puts = 0, evicted = 0, damaged = 0;
};

// Thread safety: every method may be called from any number of threads and
// processes at once.
class DiskPageCache {
 public:
  // The folder (created 0700 if missing) and its bound in bytes; one object
  // per folder per process. An empty `dir` means the default folder
  // ($XDG_CACHE_HOME/mindrecord, else ~/.cache/mindrecord).
  static Result<std::shared_ptr<DiskPageCache>> Open(const std::string& dir, uint64_t max_bytes);
  static std::string DefaultDir();

  // The bytes stored under `key` when an intact entry of exactly `length`
  // bytes is there; nullopt otherwise (a damaged entry is removed).
  std::optional<std::string> Get(const std::string& key, uint64_t length);
  // Stores `bytes` under `key` (best effort: a full disk or a removed folder
  // only means a miss later). Entries larger than the bound are not stored.
  void Put(const std::string& key, std::string_view bytes);

  const std::string& dir() const { return dir_; }
  uint64_t max_bytes() const { return max_bytes_; }
  PageCacheCounters counters() const;
  // Bytes the entries take now, counted from the folder.
  uint64_t UsedBytes() const;
  // The file an entry of `key` lives in (tests damage it).
  std::string EntryPath(const std::string& key) const;

  DiskPageCache(std::string dir, uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}

 private:
  void Account(int64_t added);
  uint64_t Evict(uint64_t target);  // under the lock; returns the bytes left
  std::string dir_;
  uint64_t max_bytes_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, puts_{0}, evicted_{0}, damaged_{0};
};

}  // namespace mindrecord
