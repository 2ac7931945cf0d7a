#include "readers/raw_group_cache.h"

#include <algorithm>

namespace mindrecord {

RawGroupCache::RawGroupCache(size_t groups, std::shared_ptr<std::atomic<uint64_t>> budget)
    : groups_(new std::atomic<const std::string*>[groups]()),
      reads_(new std::atomic<uint32_t>[groups]()),
      n_(groups),
      budget_(std::move(budget)) {}

RawGroupCache::~RawGroupCache() {
  for (size_t g = 0; g < n_; ++g) delete groups_[g].load(std::memory_order_acquire);
  budget_->fetch_add(held_.load(), std::memory_order_relaxed);
}

bool RawGroupCache::CountRead(size_t group, uint64_t range_bytes) const {
  const uint64_t threshold = std::max<uint64_t>(16, range_bytes / 4096);
  const uint64_t n = reads_[group].fetch_add(1, std::memory_order_relaxed) + 1;
  // Once per `threshold` reads: one thread reads the group, and a group the
  // budget could not hold is tried again only that often.
  return n % threshold == 0 && range_bytes <= budget_->load(std::memory_order_relaxed);
}

const std::string* RawGroupCache::Put(size_t group, std::string bytes) const {
  if (const std::string* have = Get(group)) return have;
  const uint64_t n = bytes.size();
  uint64_t left = budget_->load(std::memory_order_relaxed);
  do {
    if (n > left) return nullptr;
  } while (!budget_->compare_exchange_weak(left, left - n, std::memory_order_relaxed));
  auto owned = std::make_unique<std::string>(std::move(bytes));
  const std::string* expected = nullptr;
  if (groups_[group].compare_exchange_strong(expected, owned.get(), std::memory_order_acq_rel)) {
    held_.fetch_add(n, std::memory_order_relaxed);
    return owned.release();
  }
  budget_->fetch_add(n, std::memory_order_relaxed);  // another thread cached it first
  return expected;
}

}  // namespace mindrecord
