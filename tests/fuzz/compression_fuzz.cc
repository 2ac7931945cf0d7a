// Compressed values (our extension): the tag byte and LZ4 / zstd payloads of
// each blob field, and of a raw part when the dataset compresses raw parts,
// as a dataset folder holds them. Decompression never crashes or allocates
// past its cap, and what decompresses compresses and decompresses back to the
// same bytes.
// First byte: bit 0 zstd (else LZ4), bit 1 a trained dictionary (zstd only),
// bit 2 two blob fields (else one: the value is the whole blob part), bit 3
// the rest is a raw part (else a blob part). The rest is the part as stored.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/header.h"
#include "mindrecord/row_codec.h"
#include "mindrecord/schema.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

using namespace mindrecord;

struct Setup {
  Schema schema;
  std::unique_ptr<RowCodec> codec;
  std::unique_ptr<BlobCompressor> compressor;
  std::unique_ptr<BlobDecompressor> decompressor;
};

// A dictionary trained once from fixed samples (the same bytes every run).
const std::string& Dictionary() {
  static const std::string dict = [] {
    std::vector<std::string> samples;
    uint64_t x = 1;
    for (int i = 0; i < 400; ++i) {
      std::string s;
      for (int j = 0; j < 300; ++j) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s += "abcdefgh ijkl"[(x >> 33) % 13];
      }
      samples.push_back(s);
    }
    return BlobCompressor::TrainDictionary(samples, 16 << 10);
  }();
  return dict;
}

const Setup& Get(uint8_t sel) {
  static Setup setups[8];
  Setup& s = setups[sel & 7];
  if (s.decompressor) return s;
  const bool zstd = sel & 1, dict = zstd && (sel & 2), two = sel & 4;
  s.schema = *Schema::FromUserJsonString(two ? R"({"id":{"type":"int64"},"a":{"type":"bytes"},"b":{"type":"bytes"}})"
                                             : R"({"id":{"type":"int64"},"a":{"type":"bytes"}})");
  s.codec = std::make_unique<RowCodec>(&s.schema, kVersion3);
  CompressionOptions o;
  o.codec = zstd ? Codec::kZstd : Codec::kLz4;
  o.dictionary = dict;
  o.raw = true;
  s.compressor = std::move(*BlobCompressor::Create(o, dict ? Dictionary() : ""));
  ShardHeader h;
  h.version = zstd ? kVersion3Zstd : kVersion3Lz4;
  h.schema = s.schema;
  h.extra[kCompressionKey] = s.compressor->HeaderJson();
  auto d = BlobDecompressor::FromHeader(h, "fuzz");
  if (!d.ok() || !*d) {
    std::fprintf(stderr, "setup: %s\n", d.ok() ? "no decompressor" : d.status().ToString().c_str());
    std::abort();
  }
  s.decompressor = std::move(*d);
  return s;
}

}  // namespace

MINDRECORD_FUZZ_TARGET(compression) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  const Setup& s = Get(sel);
  std::string_view part(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string out, again, back;
  if (sel & 8) {
    auto raw = s.decompressor->DecompressRaw(part, &out);
    if (!raw.ok()) return 0;
    const std::string value(*raw);
    s.compressor->CompressRaw(value, &again);
    auto round = s.decompressor->DecompressRaw(again, &back);
    if (!round.ok() || *round != value) {
      std::fprintf(stderr, "compress/decompress round trip of a decompressed raw part differs\n");
      std::abort();
    }
    return 0;
  }
  if (!s.decompressor->DecompressBlob(*s.codec, part, &out).ok()) return 0;
  if (!s.compressor->CompressBlob(*s.codec, out, &again).ok() ||
      !s.decompressor->DecompressBlob(*s.codec, again, &back).ok() || back != out) {
    std::fprintf(stderr, "compress/decompress round trip of a decompressed blob differs\n");
    std::abort();
  }
  return 0;
}
