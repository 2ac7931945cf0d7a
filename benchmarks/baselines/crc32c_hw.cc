#include "benchmarks/baselines/crc32c_hw.h"

#include <cstring>

#include "mindrecord/crc32c.h"

namespace mindrecord::bench {
namespace {

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t HwCrc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t c = ~crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}
#endif

}  // namespace

bool HaveHardwareCrc32c() {
#if defined(__x86_64__)
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
#else
  return false;
#endif
}

uint32_t FastCrc32c(const void* data, size_t n, uint32_t crc) {
#if defined(__x86_64__)
  if (HaveHardwareCrc32c()) return HwCrc32c(data, n, crc);
#endif
  return Crc32c(data, n, crc);
}

}  // namespace mindrecord::bench
