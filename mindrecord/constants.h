// On-disk constants of the MindRecord format. Values here are frozen.
#pragma once

#include <cstdint>

namespace mindrecord {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;

inline constexpr uint64_t kDefaultHeaderSize = 16 * kMiB;
inline constexpr uint64_t kMinHeaderSize = 16 * kKiB;
inline constexpr uint64_t kMaxHeaderSize = 128 * kMiB;
inline constexpr uint64_t kDefaultPageSize = 32 * kMiB;
inline constexpr uint64_t kMinPageSize = 32 * kKiB;
inline constexpr uint64_t kMaxPageSize = 256 * kMiB;
inline constexpr uint32_t kMinShardCount = 1;
inline constexpr uint32_t kMaxShardCount = 1000;

// Every row part and header is preceded by a uint64 length.
inline constexpr uint64_t kLengthPrefix = 8;
// Blob part written for schemas without blob fields.
inline constexpr uint64_t kDummyBlobSize = 4;

inline constexpr const char* kVersion2 = "2.0";
inline constexpr const char* kVersion3 = "3.0";

inline constexpr const char* kPageTypeBlob = "BLOB_DATA";
inline constexpr const char* kPageTypeRaw = "RAW_DATA";

// v3.0 integer-array packing: element widths in the 2-bit bitmap.
enum class PackedIntWidth : uint8_t { kInt8 = 0, kInt16 = 1, kInt32 = 2, kInt64 = 3 };

}  // namespace mindrecord
