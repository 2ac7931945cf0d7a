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

// Files beside a shard S: its index "S.db"; during an append "S.mr-journal"
// and "S.mr-journal.db"; the commit record of a dataset's first shard
// "S.mr-commit".
inline constexpr const char* kIndexSuffix = ".db";
inline constexpr const char* kJournalSuffix = ".mr-journal";
inline constexpr const char* kCommitRecordSuffix = ".mr-commit";
// A shard written by one process of a distributed conversion and not yet
// part of its dataset: ".S.mr-part" (and its index ".S.mr-part.db") beside S.
inline constexpr const char* kPartSuffix = ".mr-part";

// Our extensions (see mindrecord/FORMAT.md).
// Header keys: per-page xxh3 checksums, the header's own checksum, blob
// compression settings.
inline constexpr const char* kPageChecksumKey = "mr_xxh3";
inline constexpr const char* kHeaderChecksumKey = "mr_header_xxh3";
inline constexpr const char* kCompressionKey = "mr_compression";
// Header key of a shard part only (removed when the part becomes a shard):
// what the writer recorded about it (writers/shard_part.h).
inline constexpr const char* kPartKey = "mr_part";
// Versions of datasets with compressed blobs (MindSpore refuses them).
inline constexpr const char* kVersion3Lz4 = "3.0+mr-lz4";
inline constexpr const char* kVersion3Zstd = "3.0+mr-zstd";
// The first byte of each compressed value (see mindrecord/compression.h).
enum class BlobTag : uint8_t { kStored = 0, kLz4Block = 1, kZstdFrame = 2, kZstdCompact = 3 };

// MindSpore 2.3+ encrypted files: per-block magic numbers and the trailer flag.
inline constexpr uint32_t kGcmMagic = 0x7F3A5ED8;
inline constexpr uint32_t kCbcMagic = 0x7F3A5ED9;
inline constexpr uint32_t kSm4Magic = 0x7F3A5EDA;
inline constexpr char kEncryptFlag[] = "ENCRYPT";

}  // namespace mindrecord
