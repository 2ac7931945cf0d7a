// Per-row blob compression (our extension). Each blob field's bytes are
// stored as a 1-byte tag plus payload, inside the usual blob framing, so a row
// is still located by the index and decompressed alone. With "+raw" each
// row's raw (msgpack) part is stored the same way, as one value:
//   tag 0: stored as is (already-compressed formats, tiny or incompressible values)
//   tag 1: LZ4 block: uint32 little-endian original size, then the block
//   tag 2: one zstd frame (content size in the frame; dictionary id if any);
//          written by earlier versions, still read
//   tag 3: one magicless zstd frame without dictionary id (content size in
//          the frame; the dictionary, if any, is the header's)
// Datasets with compressed blobs carry version "3.0+mr-lz4" / "3.0+mr-zstd"
// (MindSpore refuses them) and the header key "mr_compression":
//   {"codec", "level", "dict_id", "dictionary" (base64, zstd only),
//    "raw" (true when raw parts are compressed too; absent otherwise),
//    "raw_bytes", "stored_bytes" (totals over the dataset of the parts
//    compressed, before and after)}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/constants.h"  // kCompressionKey, kVersion3Lz4/Zstd, BlobTag
#include "mindrecord/status.h"

namespace mindrecord {

class RowCodec;
struct ShardHeader;

enum class Codec : uint8_t { kNone = 0, kLz4 = 1, kZstd = 2 };

struct CompressionOptions {
  Codec codec = Codec::kNone;
  int level = 3;            // zstd: 1..22 (lz4: ignored)
  bool dictionary = false;  // zstd only: train a dictionary from the first rows written
  bool raw = false;         // compress each row's raw (non-blob) part too
  bool enabled() const { return codec != Codec::kNone; }
};


// "none", "lz4", "zstd", "zstd:N", "zstd:N+dict", "zstd+dict", each codec
// optionally followed by "+raw" ("zstd:3+dict+raw", "lz4+raw").
Result<CompressionOptions> ParseCompression(std::string_view spec);

// The blob byte counts ("raw_bytes", "stored_bytes") a header's compression
// object carries: 0 when absent; corruption naming `path` when one is not an
// unsigned integer. Thread safety: a pure function.
Status ReadBlobByteCounts(const nlohmann::json& compression, const std::string& path, uint64_t* raw, uint64_t* stored);
// The inverse of ParseCompression ("zstd:3+dict").
std::string CompressionSpec(const CompressionOptions& o);
// The version string a dataset with this codec carries ("3.0" for none).
std::string CompressedVersion(Codec codec);
bool IsCompressedVersion(std::string_view version);
// "3.0" for our compressed versions, else `version` itself.
std::string BaseVersion(const std::string& version);
// True for values whose leading bytes name an already-compressed format
// (JPEG, PNG, GIF, WebP, gzip, zstd, LZ4 frame, zip, bzip2, xz).
bool LooksCompressed(std::string_view bytes);

// Writer side. Thread safety: immutable after Create; Compress may run on
// many threads at once (per-thread contexts).
class BlobCompressor {
 public:
  // `dictionary`: zstd dictionary content (may be empty).
  static Result<std::unique_ptr<BlobCompressor>> Create(const CompressionOptions& o, std::string dictionary);
  ~BlobCompressor();
  // Trains a zstd dictionary of at most `capacity` bytes; an empty result (not
  // an error) when the samples are too few or too uniform to train on.
  static std::string TrainDictionary(const std::vector<std::string>& samples, size_t capacity);

  // Replaces each blob field's bytes of `blob` (as RowCodec frames it) with
  // tag + payload. Schemas without blob fields: unchanged.
  Status CompressBlob(const RowCodec& codec, std::string_view blob, std::string* out) const;
  // A raw part as one tagged value (use only when options().raw).
  void CompressRaw(std::string_view raw, std::string* out) const { CompressValue(raw, out); }
  const CompressionOptions& options() const { return options_; }
  const std::string& dictionary() const { return dictionary_; }
  uint32_t dict_id() const { return dict_id_; }
  // The "mr_compression" header value (without the byte totals).
  nlohmann::json HeaderJson() const;

 private:
  BlobCompressor() = default;
  void CompressValue(std::string_view in, std::string* out) const;
  CompressionOptions options_;
  std::string dictionary_;
  uint32_t dict_id_ = 0;
  void* cdict_ = nullptr;  // ZSTD_CDict*
};

// Reader side. Thread safety: immutable after FromHeader; Decompress may run
// on many threads at once.
class BlobDecompressor {
 public:
  // nullptr (no error) when the header's version is not a compressed one.
  // Corruption when the compression key is missing, names another codec, or
  // its dictionary is missing or does not match its dict_id.
  static Result<std::unique_ptr<BlobDecompressor>> FromHeader(const ShardHeader& h, const std::string& what);
  ~BlobDecompressor();
  // The inverse of BlobCompressor::CompressBlob.
  Status DecompressBlob(const RowCodec& codec, std::string_view blob, std::string* out) const;
  // A raw part as stored -> msgpack: decompressed into `buf` when the dataset
  // compresses raw parts, else `raw` itself.
  Result<std::string_view> DecompressRaw(std::string_view raw, std::string* buf) const;
  // The settings the dataset was written with (for copies that keep them).
  const CompressionOptions& options() const { return options_; }
  const std::string& dictionary() const { return dictionary_; }

 private:
  BlobDecompressor() = default;
  // Refuses a value claiming more than `limit` decompressed bytes before
  // allocating them.
  Status DecompressValue(std::string_view in, std::string* out, uint64_t limit) const;
  CompressionOptions options_;
  std::string dictionary_;
  uint32_t dict_id_ = 0;
  void* ddict_ = nullptr;  // ZSTD_DDict*
};

// A raw part as stored -> msgpack, for readers whose decompressor may be null
// (an uncompressed dataset): `raw` itself unless `d` compresses raw parts.
Result<std::string_view> PlainRawPart(const BlobDecompressor* d, std::string_view raw, std::string* buf);

// Compression settings recorded in a header (codec none when uncompressed).
CompressionOptions CompressionFromHeader(const ShardHeader& h);

}  // namespace mindrecord
