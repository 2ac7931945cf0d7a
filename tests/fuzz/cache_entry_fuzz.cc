// Dataset cache entries (pipeline/cache/cache_entry.h), untrusted input in a
// folder other processes write: decoding is bounds-checked, and what decodes
// re-encodes and decodes to the same tensors. First byte: bit 0 set = fill
// in the entry's lengths and checksums first, so mutations reach the column
// parser; bit 1 = expect 2 columns instead of the entry's own count.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "mindrecord/checksum.h"
#include "pipeline/cache/cache_entry.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void Put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

MINDRECORD_FUZZ_TARGET(cache_entry) {
  using namespace mindrecord;
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  auto bytes = std::make_shared<std::vector<uint8_t>>(data + 1, data + size);
  std::vector<uint8_t>& b = *bytes;
  if ((mode & 1) && b.size() >= kCacheEntryHeaderBytes) {
    const size_t payload = b.size() - kCacheEntryHeaderBytes;
    Put64(b.data() + 24, payload);
    Put64(b.data() + 32, Xxh3(std::string_view(reinterpret_cast<const char*>(b.data()) + kCacheEntryHeaderBytes,
                                               payload)));
    Put64(b.data() + 40, Xxh3(std::string_view(reinterpret_cast<const char*>(b.data()), 40)));
  }
  const uint64_t fp = b.size() >= 24 ? Get64(b.data() + 8) : 0;
  const uint64_t key = b.size() >= 24 ? Get64(b.data() + 16) : 0;
  size_t columns = (mode & 2) ? 2 : 1;
  if (!(mode & 2) && b.size() >= kCacheEntryHeaderBytes + 8) {
    columns = static_cast<size_t>(std::min<uint64_t>(Get64(b.data() + kCacheEntryHeaderBytes), 1u << 20));
  }
  auto cols = DecodeCacheEntry(bytes, fp, key, columns, "fuzz");
  if (!cols.ok()) return 0;
  const std::string again = EncodeCacheEntry(fp, key, *cols);
  auto back = DecodeCacheEntry(std::make_shared<std::vector<uint8_t>>(again.begin(), again.end()), fp, key, columns,
                               "fuzz re-encoded");
  if (!back.ok() || back->size() != cols->size()) {
    std::fprintf(stderr, "a decoded entry does not re-encode: %s\n", back.status().ToString().c_str());
    std::abort();
  }
  for (size_t c = 0; c < cols->size(); ++c) {
    const Tensor &x = (*cols)[c], &y = (*back)[c];
    if (x.type() != y.type() || x.shape() != y.shape() || x.size_bytes() != y.size_bytes() ||
        (x.size_bytes() && std::memcmp(x.data(), y.data(), x.size_bytes()) != 0)) {
      std::fprintf(stderr, "column %zu changed in the round trip\n", c);
      std::abort();
    }
  }
  return 0;
}
