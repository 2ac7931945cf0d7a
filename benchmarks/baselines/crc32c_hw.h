// CRC-32C for the TFRecord baseline at the speed TensorFlow gets: the SSE4.2
// crc32 instruction when the CPU has it (as TensorFlow's crc32c does), else
// the engine's portable slicing-by-8 Crc32c.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mindrecord::bench {

// Same results as mindrecord::Crc32c; thread-safe.
uint32_t FastCrc32c(const void* data, size_t n, uint32_t crc = 0);
bool HaveHardwareCrc32c();

}  // namespace mindrecord::bench
