// Limits on every size read from an untrusted dataset folder (shards, .db,
// journals, commit records). Each is checked before the memory or work it
// bounds is spent; going past one is a Corruption error naming the file.
// The threat model these serve is in readers/README.md ("Threat model").
#pragma once

#include <cstdint>
#include <string>

#include "mindrecord/constants.h"
#include "mindrecord/status.h"

namespace mindrecord {

// Nesting depth of the header JSON (objects and arrays). MindSpore's headers
// nest 5 deep; the parser itself recurses, so depth is checked first.
inline constexpr int kMaxHeaderJsonDepth = 64;
// Elements (containers plus list and object members) of the header JSON; its
// parsed form costs about 100 bytes per element, so this caps a header's
// memory near 200 MB. A page costs about 16 elements: 125,000 pages per
// shard (4 TB at the default 32 MiB pages) fit.
inline constexpr uint64_t kMaxHeaderJsonElements = 2000000;

// A row's raw part (msgpack) before the general parser sees it: MindRecord
// raw rows are one flat map of scalars, so both bounds are generous.
inline constexpr int kMaxRowNesting = 64;
inline constexpr uint64_t kMaxRowElements = 1000000;

// Decompressed bytes of one row's blob fields together (and of its raw part):
// a compressed value claiming more than what is left is refused before its
// buffer is allocated. Writers refuse rows above it; an uncompressed row fits
// a page, so this is the largest row any dataset holds.
inline constexpr uint64_t kMaxDecompressedRowBytes = kMaxPageSize;

// An append journal holds a shard's old header and the old bytes of at most
// the two page slots the append continued, after a description line.
inline constexpr uint64_t kMaxJournalDescriptionBytes = 1 * kMiB;
inline constexpr uint64_t kMaxJournalBytes = kMaxJournalDescriptionBytes + kMaxHeaderSize + 2 * kMaxPageSize;
// A commit record lists two (temporary, final) pairs per shard.
inline constexpr uint64_t kMaxCommitRecordBytes = 4 * kMiB;

// One string or blob read from (or written to) a shard's SQLite index: an
// index value comes from a row, which never holds more than this.
inline constexpr uint64_t kMaxIndexValueBytes = kMaxDecompressedRowBytes;

// Images whose header claims more pixels than this are refused before any
// buffer is allocated, by the pipeline's decode ops and by the converters
// when they decode (--encode raw|jpeg|png): a few hundred bytes of JPEG or
// PNG can claim 65535 x 65535 pixels, 12.9 GB decoded. Pillow's
// DecompressionBombError threshold.
inline constexpr int64_t kMaxImagePixels = 178956970;

// The bytes a decoder may hold for one image before converting it: an 8-bit
// RGBA image at kMaxImagePixels. Wider samples or more of them (16-bit PNG or
// TIFF, PAM with many channels, JPEG 2000's 32-bit samples) lower the pixels
// allowed.
inline constexpr int64_t kMaxImageSampleBytes = kMaxImagePixels * 4;

// Rows a scan keeps a locator of in memory: the records, lines or CSV
// records of one TFRecord, text or CSV source's files together (a row costs
// about 20 bytes there: its locator and its id in the sampler's order), or
// of one file a converter reads. Without a bound a few megabytes of gzip
// frame billions of empty TFRecord records, and a file of newlines costs 12
// bytes of index for every 2 it holds. The environment variable
// MINDRECORD_MAX_INDEXED_ROWS sets another limit.
inline constexpr uint64_t kDefaultMaxIndexedRows = uint64_t{1} << 27;
inline constexpr const char* kMaxIndexedRowsVariable = "MINDRECORD_MAX_INDEXED_ROWS";
// The limit in force, read from the environment on each call:
// InvalidArgument when the variable is set to anything but a positive integer.
Result<uint64_t> MaxIndexedRows();
// NotSupported naming `path`, where the scan passed `limit` `rows` ("records", "lines").
Status TooManyIndexedRows(const std::string& path, uint64_t limit, const std::string& rows);

}  // namespace mindrecord
