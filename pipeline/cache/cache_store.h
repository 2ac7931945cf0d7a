// CacheStore: the dataset cache behind a "cache" node of the execution tree
// (MindSpore's DatasetCache): the rows after a deterministic op prefix,
// stored once and served from then on, by every worker thread and every
// process of the machine that opens the same cache.
//
// On disk (by default a folder under /dev/shm, i.e. shared memory):
//
//   ROOT/SESSION/FINGERPRINT/meta.json   what is cached (dataset, op chain)
//   ROOT/SESSION/FINGERPRINT/counters    bytes, entries, hits, misses (shared,
//                                        updated with atomic ops in a mapping)
//   ROOT/SESSION/FINGERPRINT/e/KEY       one entry per row (cache_entry.h)
//
// FINGERPRINT is XXH3 of the dataset's identity (each shard's path, size,
// mtime and header checksum) and of the op prefix's JSON, so a changed
// dataset or op chain opens another folder and never reads stale entries.
// An entry is written to a temporary file and committed with link(2), which
// never replaces an existing entry: concurrent fills of one row by two
// threads or processes store it once, and a crashed writer leaves at most a
// temporary file that nothing reads. Entries are never evicted; `size`
// bounds the bytes of committed entries (reserved with a compare-and-swap on
// the shared counter before writing): rows that do not fit are computed as
// usual every epoch. A corrupt entry (checksum, length, shape) is reported
// as Corruption by Get, then replaced by the next Put of that row.
//
// Thread safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/stats.h"  // CacheCounters
#include "pipeline/tensor.h"

namespace mindrecord {

// The default root: $MINDRECORD_CACHE_DIR, else /dev/shm/mindrecord-cache.
std::string DefaultCacheRoot();

struct CacheOptions {
  std::string session_id;  // names the cache: [0-9A-Za-z_.-]+, not starting with '.'
  uint64_t size_bytes = 0;  // cap on the bytes of entries; 0 = half the free space of the root's file system at open
  std::string dir;          // root folder; empty = DefaultCacheRoot()
};


class CacheStore {
 public:
  // Opens (creating when absent) the cache of `fingerprint`, whose rows have
  // `num_columns` columns and keys below `num_rows`; `meta` is written to
  // meta.json when the folder is created.
  static Result<std::unique_ptr<CacheStore>> Open(const CacheOptions& options, uint64_t fingerprint,
                                                  const nlohmann::json& meta, size_t num_columns, uint64_t num_rows);
  ~CacheStore();

  // Whether row `key` has a committed entry (it may still be corrupt).
  bool Contains(uint64_t key);
  // Row `key`'s columns (read-only tensors). NotFound when absent (e.g. the
  // cache was dropped meanwhile), Corruption when the entry is bad.
  Result<std::vector<Tensor>> Get(uint64_t key);
  // Stores row `key` unless it is present (a corrupt entry is replaced) or
  // does not fit under the cap. Errors of the file system are returned.
  Status Put(uint64_t key, const std::vector<Tensor>& columns);
  // Counts a row computed below the cache (a miss), here and in the shared counters.
  void CountMiss();

  CacheCounters counters() const;
  const std::string& folder() const { return folder_; }
  uint64_t fingerprint() const { return fingerprint_; }
  uint64_t size_bytes() const { return cap_; }

 private:
  struct Shared;  // the mapped counters file
  CacheStore() = default;
  std::string EntryPath(uint64_t key) const;
  bool Known(uint64_t key) const;
  void SetKnown(uint64_t key, bool on);

  std::string folder_;
  uint64_t fingerprint_ = 0;
  uint64_t cap_ = 0;
  size_t num_columns_ = 0;
  Shared* shared_ = nullptr;
  std::atomic<uint64_t> hits_{0}, misses_{0}, stored_{0}, rejected_{0}, corrupt_{0}, tmp_seq_{0};
  // One bit per key: seen committed (a pipeline never removes an entry), so
  // Contains asks the file system only until a row is known cached.
  std::unique_ptr<std::atomic<uint64_t>[]> present_;
  uint64_t num_rows_ = 0;
  std::mutex mu_;
  std::unordered_set<uint64_t> corrupt_keys_;  // found corrupt, to be replaced by the next Put
};

// One cache folder, for `mindrecord cache ls`.
struct CacheListing {
  std::string session_id;
  std::string fingerprint;  // 16 hex digits
  nlohmann::json meta;      // meta.json (null when unreadable)
  CacheCounters counters;   // bytes, entries, hits, misses (shared counters)
  uint64_t disk_bytes = 0;  // bytes of the folder's files (entries, temporaries)
};
Result<std::vector<CacheListing>> ListCaches(const std::string& root);
// Removes the session's folder (all its fingerprints); NotFound when absent.
Status DropCache(const std::string& root, const std::string& session_id);

}  // namespace mindrecord
