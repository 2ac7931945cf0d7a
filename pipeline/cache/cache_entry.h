// One entry of the dataset cache (cache_store.h): the columns of one row,
// after the cached op prefix, as a file. The cache lives in shared memory or
// a folder that other processes write, so an entry is untrusted input: every
// length and shape is bounds-checked and both the header and the payload
// carry an XXH3-64 checksum (mindrecord/checksum.h).
//
// Layout (little-endian):
//   [0, 8)    magic "MRCACHE1"
//   [8, 16)   fingerprint of the cache (dataset identity + op prefix)
//   [16, 24)  key (the row id of the cached dataset)
//   [24, 32)  payload length P (the file is 48 + P bytes)
//   [32, 40)  XXH3-64 of the payload
//   [40, 48)  XXH3-64 of bytes [0, 40)
//   payload:  u32 column count, u32 0; per column: u8 type (TensorType),
//             u8 rank, 6 zero bytes, rank x i64 dims, u64 byte length,
//             zero padding to a file offset that is a multiple of 16, the bytes
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

inline constexpr size_t kCacheEntryHeaderBytes = 48;
inline constexpr size_t kCacheEntryMaxRank = 16;
inline constexpr size_t kCacheEntryMaxColumns = 4096;

// The entry's bytes for `columns` of row `key`.
std::string EncodeCacheEntry(uint64_t fingerprint, uint64_t key, const std::vector<Tensor>& columns);

// Checks `bytes` (the whole file) and returns its columns as read-only tensors
// over `bytes` (no copy; they keep `owner`, which keeps the bytes, alive).
// Corruption naming `what` and the offset when the magic, fingerprint, key, a
// checksum, a length or a shape is wrong, or it does not hold exactly
// `num_columns` columns.
Result<std::vector<Tensor>> DecodeCacheEntry(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes,
                                             uint64_t fingerprint, uint64_t key, size_t num_columns,
                                             const std::string& what);
// The same over a vector the tensors keep alive.
Result<std::vector<Tensor>> DecodeCacheEntry(std::shared_ptr<const std::vector<uint8_t>> bytes, uint64_t fingerprint,
                                             uint64_t key, size_t num_columns, const std::string& what);

}  // namespace mindrecord
