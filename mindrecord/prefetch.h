// Prefetching the bytes of a value ahead of copying it: values of a mapped
// shard lie at random places, so copying them one after another waits for
// memory once per value unless the next ones are already on their way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace mindrecord {

// Values read ahead of the one being copied.
inline constexpr size_t kPrefetchValuesAhead = 4;

// Asks for the cache lines of the `n` bytes at `p` (at most the first 4 KiB).
inline void PrefetchValue(const void* p, size_t n) {
  constexpr size_t kPrefetchBytes = 4096;
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < std::min(n, kPrefetchBytes); at += 64) __builtin_prefetch(c + at);
}

// Calls `copy(i)` for each i in [0, n) in order, with the bytes of the
// value `n` ahead prefetched first: `bytes(i)` is value i's bytes as a
// std::string_view (empty: nothing to prefetch).
template <typename Bytes, typename Copy>
inline void CopyEachPrefetched(size_t n, Bytes bytes, Copy copy) {
  auto prefetch = [&](size_t i) {
    const auto b = bytes(i);
    if (!b.empty()) PrefetchValue(b.data(), b.size());
  };
  for (size_t i = 0; i < std::min(kPrefetchValuesAhead, n); ++i) prefetch(i);
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchValuesAhead < n) prefetch(i + kPrefetchValuesAhead);
    copy(i);
  }
}

}  // namespace mindrecord
