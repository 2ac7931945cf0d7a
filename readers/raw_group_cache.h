// RawGroupCache: the raw parts of one shard's row groups, for shards read
// with pread, each read whole once its rows' raw parts have been read one by
// one about as many times as reading the group's whole raw range costs (one
// read per 4 KiB of it, at least 16: rent until buying is cheaper). A row is
// then one read (its blob part) instead of two: raw parts (the scalar fields)
// are small, a few bytes to a few hundred per row, so a group's are a few MiB
// read in one go, where a shuffled pass reads them a row at a time; a reader
// that reads a few rows never reads a group whole. Bounded in bytes: a budget
// shared by the shards of a reader (ReaderOptions::raw_group_cache_bytes);
// groups beyond it are read row by row as before. Nothing is evicted: the
// groups cached are those wanted first, until the reader closes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace mindrecord {

// Thread safety: every method may be called from any number of threads at
// once. A group's bytes are published once (a compare-and-swap) and never
// change or move until the cache is destroyed.
class RawGroupCache {
 public:
  // `groups`: the shard's row groups; `budget`: the bytes the reader's
  // caches may still take, shared by them.
  RawGroupCache(size_t groups, std::shared_ptr<std::atomic<uint64_t>> budget);
  ~RawGroupCache();
  RawGroupCache(const RawGroupCache&) = delete;
  RawGroupCache& operator=(const RawGroupCache&) = delete;

  // The group's raw bytes, or nullptr when not cached (yet).
  const std::string* Get(size_t group) const { return groups_[group].load(std::memory_order_acquire); }
  // Counts one read of a raw part of `group` (whose raw range has
  // `range_bytes`): true when the group should now be read whole (the
  // threshold is reached and the budget holds it; a hint: Put decides).
  bool CountRead(size_t group, uint64_t range_bytes) const;
  // Caches `bytes` as the group's unless another thread did first (then its
  // bytes are returned) or the budget does not hold them (nullptr).
  const std::string* Put(size_t group, std::string bytes) const;

  // Bytes cached.
  uint64_t MemoryBytes() const { return held_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<std::atomic<const std::string*>[]> groups_;
  std::unique_ptr<std::atomic<uint32_t>[]> reads_;  // raw parts read one by one, per group
  size_t n_;
  std::shared_ptr<std::atomic<uint64_t>> budget_;
  mutable std::atomic<uint64_t> held_{0};
};

}  // namespace mindrecord
