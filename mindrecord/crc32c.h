// CRC-32C (Castagnoli), as TFRecord framing and checksummed formats use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mindrecord {

// CRC-32C of `n` bytes, continuing from `crc` (0 to start).
// Thread safety: pure function.
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

// TFRecord's masked form: rotate right by 15 and add 0xa282ead8.
inline uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

// A TFRecord frame's check: the `n` bytes at `data` are followed by their
// masked CRC-32C (4 bytes, little-endian).
inline bool TfRecordCrcMatches(const char* data, size_t n) {
  uint32_t stored;
  std::memcpy(&stored, data + n, 4);
  return MaskCrc32c(Crc32c(data, n)) == stored;
}

}  // namespace mindrecord
