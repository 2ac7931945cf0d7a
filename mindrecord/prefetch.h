// Prefetching the bytes of a value ahead of copying it: values of a mapped
// shard lie at random places, so copying them one after another waits for
// memory once per value unless the next ones are already on their way.
#pragma once

#include <algorithm>
#include <cstddef>

namespace mindrecord {

// Values read ahead of the one being copied.
inline constexpr size_t kPrefetchValuesAhead = 4;

// Asks for the cache lines of the `n` bytes at `p` (at most the first 4 KiB).
inline void PrefetchValue(const void* p, size_t n) {
  constexpr size_t kPrefetchBytes = 4096;
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < std::min(n, kPrefetchBytes); at += 64) __builtin_prefetch(c + at);
}

}  // namespace mindrecord
