#include "mindrecord/compression.h"

#include "mindrecord/limits.h"

#include <cstring>

#include <lz4.h>
#include <zdict.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_c_format / ZSTD_d_format (magicless frames); stable since zstd 1.4
#include <zstd.h>

#include "mindrecord/constants.h"
#include "mindrecord/header.h"
#include "mindrecord/json_number.h"
#include "mindrecord/row_codec.h"

namespace mindrecord {

using nlohmann::json;

namespace {

// BlobTag (mindrecord/constants.h): kZstdFrame is what earlier versions wrote
// (still read); new values use kZstdCompact, a frame without the 4-byte magic
// number (the tag says what follows). Trained dictionaries get ids in
// [32768, 65536), which frames store in 2 bytes rather than 4.
using enum BlobTag;

// Values shorter than this are stored: framing would outweigh any gain.
constexpr size_t kMinCompressSize = 16;
// A decompressed value larger than this is treated as corrupt data.
constexpr uint64_t kMaxValueSize = uint64_t{1} << 30;

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kB64[(v >> k) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

bool Base64Decode(std::string_view in, std::string* out) {
  if (in.size() % 4 != 0) return false;
  out->clear();
  uint32_t v = 0;
  int bits = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '=') {
      if (i + 2 < in.size()) return false;
      break;
    }
    const char* p = std::strchr(kB64, c);
    if (!p || c == '\0') return false;
    v = (v << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((v >> bits) & 0xff));
    }
  }
  return true;
}

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::kLz4: return "lz4";
    case Codec::kZstd: return "zstd";
    default: return "none";
  }
}

// One compression / decompression context per thread, reused across rows.
struct CCtxHolder {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ~CCtxHolder() { ZSTD_freeCCtx(ctx); }
};
struct DCtxHolder {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~DCtxHolder() { ZSTD_freeDCtx(ctx); }
};
ZSTD_CCtx* ThreadCCtx() {
  thread_local CCtxHolder h;
  return h.ctx;
}
ZSTD_DCtx* ThreadDCtx() {
  thread_local DCtxHolder h;
  return h.ctx;
}

}  // namespace

Result<CompressionOptions> ParseCompression(std::string_view spec) {
  CompressionOptions o;
  std::string s(spec);
  auto bad = [&] {
    return Status::InvalidArgument("compression '" + s +
                                   "' must be none, lz4, zstd, zstd:LEVEL or zstd:LEVEL+dict, optionally +raw");
  };
  if (s == "none" || s.empty()) return o;
  std::string rest = s;
  if (rest.size() > 4 && rest.substr(rest.size() - 4) == "+raw") {
    o.raw = true;
    rest.resize(rest.size() - 4);
  }
  if (rest == "lz4") {
    o.codec = Codec::kLz4;
    return o;
  }
  if (rest.size() > 5 && rest.substr(rest.size() - 5) == "+dict") {
    o.dictionary = true;
    rest.resize(rest.size() - 5);
  }
  if (rest.rfind("zstd", 0) != 0) return bad();
  o.codec = Codec::kZstd;
  rest = rest.substr(4);
  if (rest.empty()) return o;
  if (rest[0] != ':' || rest.size() < 2 || rest.size() > 3) return bad();
  int level = 0;
  for (size_t i = 1; i < rest.size(); ++i) {
    if (rest[i] < '0' || rest[i] > '9') return bad();
    level = level * 10 + (rest[i] - '0');
  }
  if (level < 1 || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("compression '" + s + "': zstd level must be 1.." +
                                   std::to_string(ZSTD_maxCLevel()));
  }
  o.level = level;
  return o;
}

std::string CompressionSpec(const CompressionOptions& o) {
  if (o.codec == Codec::kNone) return CodecName(o.codec);
  std::string s = o.codec == Codec::kLz4 ? "lz4" : "zstd:" + std::to_string(o.level) + (o.dictionary ? "+dict" : "");
  return o.raw ? s + "+raw" : s;
}

std::string CompressedVersion(Codec codec) {
  switch (codec) {
    case Codec::kLz4: return kVersion3Lz4;
    case Codec::kZstd: return kVersion3Zstd;
    default: return kVersion3;
  }
}

bool IsCompressedVersion(std::string_view v) { return v == kVersion3Lz4 || v == kVersion3Zstd; }

std::string BaseVersion(const std::string& v) { return IsCompressedVersion(v) ? std::string(kVersion3) : v; }

bool LooksCompressed(std::string_view b) {
  auto starts = [&](std::string_view magic) { return b.size() >= magic.size() && b.substr(0, magic.size()) == magic; };
  using namespace std::string_view_literals;
  return starts("\xFF\xD8\xFF"sv) || starts("\x89PNG"sv) || starts("GIF8"sv) || starts("\x1F\x8B"sv) ||
         starts("\x28\xB5\x2F\xFD"sv) || starts("\x04\x22\x4D\x18"sv) || starts("PK\x03\x04"sv) ||
         starts("BZh"sv) || starts("\xFD" "7zXZ\x00"sv) ||
         (b.size() >= 12 && starts("RIFF"sv) && b.substr(8, 4) == "WEBP");
}

// ---- writer side ----

Result<std::unique_ptr<BlobCompressor>> BlobCompressor::Create(const CompressionOptions& o, std::string dictionary) {
  std::unique_ptr<BlobCompressor> c(new BlobCompressor());
  c->options_ = o;
  if (o.codec == Codec::kZstd && !dictionary.empty()) {
    c->dict_id_ = ZDICT_getDictID(dictionary.data(), dictionary.size());
    c->cdict_ = ZSTD_createCDict(dictionary.data(), dictionary.size(), o.level);
    if (!c->cdict_) return Status::Internal("zstd could not load the trained dictionary");
    c->dictionary_ = std::move(dictionary);
  }
  return c;
}

BlobCompressor::~BlobCompressor() { ZSTD_freeCDict(static_cast<ZSTD_CDict*>(cdict_)); }

std::string BlobCompressor::TrainDictionary(const std::vector<std::string>& samples, size_t capacity) {
  std::string flat;
  std::vector<size_t> sizes;
  for (const auto& s : samples) {
    flat += s;
    sizes.push_back(s.size());
  }
  if (sizes.size() < 16 || capacity < 1024) return {};
  std::string dict(capacity, '\0');
  size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), flat.data(), sizes.data(),
                                   static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(n) || n < 8) return {};
  dict.resize(n);
  // Bytes 4..7 hold the id (little-endian), a hash of the content in
  // [32768, 2^31); fold it into [32768, 65536) so frames name it in 2 bytes.
  const uint32_t id = 32768 + ZDICT_getDictID(dict.data(), dict.size()) % 32768;
  for (int i = 0; i < 4; ++i) dict[4 + i] = static_cast<char>((id >> (8 * i)) & 0xff);
  return dict;
}

json BlobCompressor::HeaderJson() const {
  json j = {{"codec", CodecName(options_.codec)}, {"level", options_.codec == Codec::kZstd ? options_.level : 0},
            {"dict_id", dict_id_}};
  if (!dictionary_.empty()) j["dictionary"] = Base64Encode(dictionary_);
  if (options_.raw) j["raw"] = true;
  return j;
}

void BlobCompressor::CompressValue(std::string_view in, std::string* out) const {
  out->clear();
  if (in.size() >= kMinCompressSize && in.size() < kMaxValueSize && !LooksCompressed(in)) {
    if (options_.codec == Codec::kLz4) {
      const int bound = LZ4_compressBound(static_cast<int>(in.size()));
      out->resize(5 + static_cast<size_t>(bound));
      (*out)[0] = static_cast<char>(kLz4Block);
      const uint32_t n = static_cast<uint32_t>(in.size());
      for (int i = 0; i < 4; ++i) (*out)[1 + i] = static_cast<char>((n >> (8 * i)) & 0xff);
      int c = LZ4_compress_default(in.data(), out->data() + 5, static_cast<int>(in.size()), bound);
      if (c > 0 && static_cast<size_t>(c) + 5 < in.size()) {
        out->resize(5 + static_cast<size_t>(c));
        return;
      }
    } else if (options_.codec == Codec::kZstd) {
      out->resize(1 + ZSTD_compressBound(in.size()));
      (*out)[0] = static_cast<char>(kZstdCompact);
      ZSTD_CCtx* ctx = ThreadCCtx();  // shared by every compressor on this thread: set all parameters
      ZSTD_CCtx_reset(ctx, ZSTD_reset_session_and_parameters);
      ZSTD_CCtx_setParameter(ctx, ZSTD_c_format, ZSTD_f_zstd1_magicless);
      if (cdict_) {
        ZSTD_CCtx_refCDict(ctx, static_cast<const ZSTD_CDict*>(cdict_));
      } else {
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, options_.level);
      }
      size_t c = ZSTD_compress2(ctx, out->data() + 1, out->size() - 1, in.data(), in.size());
      if (!ZSTD_isError(c) && c + 1 < in.size()) {
        out->resize(1 + c);
        return;
      }
    }
  }
  out->assign(1, static_cast<char>(kStored));
  out->append(in);
}

Status BlobCompressor::CompressBlob(const RowCodec& codec, std::string_view blob, std::string* out) const {
  std::vector<std::string_view> parts;
  MR_RETURN_IF_ERROR(codec.SplitBlob(blob, &parts));
  if (parts.empty()) {
    out->assign(blob);
    return Status::OK();
  }
  uint64_t total = 0;
  for (std::string_view p : parts) total += p.size();
  if (total > kMaxDecompressedRowBytes) {
    return Status::InvalidArgument("the row's blob fields hold " + std::to_string(total) +
                                   " bytes; a compressed dataset's row holds at most " +
                                   std::to_string(kMaxDecompressedRowBytes) + " (readers refuse more)");
  }
  std::vector<std::string> packed(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) CompressValue(parts[i], &packed[i]);
  codec.JoinBlob(packed, out);
  return Status::OK();
}

// ---- reader side ----

static Status TooLarge(const char* codec, uint64_t n, uint64_t limit) {
  return Status::Corruption(std::string(codec) + " value claims " + std::to_string(n) +
                            " decompressed bytes, more than the " + std::to_string(limit) + " left of the row's limit (" +
                            std::to_string(kMaxDecompressedRowBytes) + " bytes per row)");
}

CompressionOptions CompressionFromHeader(const ShardHeader& h) {
  CompressionOptions o;
  auto it = h.extra.find(kCompressionKey);
  if (!IsCompressedVersion(h.version) || it == h.extra.end() || !it->is_object()) return o;
  const json& j = *it;
  const auto c = j.find("codec");
  const std::string codec = c != j.end() && c->is_string() ? c->get<std::string>() : "";
  if (codec == "lz4") o.codec = Codec::kLz4;
  if (codec == "zstd") o.codec = Codec::kZstd;
  // Only appends use the level; one our writer would refuse leaves the default.
  const auto level = j.contains("level") ? JsonInt(j["level"], 1, ZSTD_maxCLevel()) : std::nullopt;
  if (level) o.level = static_cast<int>(*level);
  o.dictionary = j.contains("dictionary");
  o.raw = j.contains("raw") && j["raw"].is_boolean() && j["raw"].get<bool>();
  return o;
}

Result<std::unique_ptr<BlobDecompressor>> BlobDecompressor::FromHeader(const ShardHeader& h,
                                                                        const std::string& what) {
  if (!IsCompressedVersion(h.version)) return std::unique_ptr<BlobDecompressor>();
  auto bad = [&](const std::string& why) { return Status::Corruption(what + ": compressed dataset: " + why); };
  auto it = h.extra.find(kCompressionKey);
  if (it == h.extra.end() || !it->is_object()) return bad("header has no \"" + std::string(kCompressionKey) + "\"");
  std::unique_ptr<BlobDecompressor> d(new BlobDecompressor());
  d->options_ = CompressionFromHeader(h);
  const Codec want = h.version == kVersion3Lz4 ? Codec::kLz4 : Codec::kZstd;
  if (d->options_.codec != want) {
    return bad("version " + h.version + " but \"" + kCompressionKey + "\" names codec " +
               (it->contains("codec") ? (*it)["codec"].dump() : std::string("none")));
  }
  const json& j = *it;
  if (j.contains("raw") && !j["raw"].is_boolean()) return bad("\"raw\" is not true or false");
  if (!j.contains("dict_id") || !j["dict_id"].is_number_unsigned() || j["dict_id"].get<uint64_t>() > UINT32_MAX)
    return bad("dict_id missing or not a dictionary id");
  d->dict_id_ = j["dict_id"].get<uint32_t>();
  auto dict = j.find("dictionary");
  if (d->dict_id_ != 0) {
    if (dict == j.end() || !dict->is_string()) {
      return bad("dictionary " + std::to_string(d->dict_id_) + " is missing from the header");
    }
    if (!Base64Decode(dict->get<std::string>(), &d->dictionary_)) return bad("dictionary is not valid base64");
    const uint32_t got = ZDICT_getDictID(d->dictionary_.data(), d->dictionary_.size());
    if (got != d->dict_id_) {
      return bad("stored dictionary has id " + std::to_string(got) + ", the header says " +
                 std::to_string(d->dict_id_));
    }
    d->ddict_ = ZSTD_createDDict(d->dictionary_.data(), d->dictionary_.size());
    if (!d->ddict_) return bad("zstd refuses the stored dictionary");
  } else if (dict != j.end()) {
    return bad("a dictionary is stored but dict_id is 0");
  }
  return d;
}

BlobDecompressor::~BlobDecompressor() { ZSTD_freeDDict(static_cast<ZSTD_DDict*>(ddict_)); }

Status BlobDecompressor::DecompressValue(std::string_view in, std::string* out, uint64_t limit) const {
  if (in.empty()) return Status::Corruption("compressed value has no tag byte");
  const auto tag = static_cast<BlobTag>(in[0]);
  in.remove_prefix(1);
  switch (tag) {
    case kStored:
      out->assign(in);
      return Status::OK();
    case kLz4Block: {
      if (options_.codec != Codec::kLz4) return Status::Corruption("LZ4 value in a zstd dataset");
      if (in.size() < 4) return Status::Corruption("LZ4 value is truncated");
      uint32_t n = 0;
      for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(in[i]);
      if (n > limit) return TooLarge("LZ4", n, limit);
      if (n > static_cast<uint64_t>(in.size() - 4) * 255 + 16) {
        return Status::Corruption("LZ4 value claims " + std::to_string(n) + " bytes, impossible for its " +
                                  std::to_string(in.size() - 4) + " stored bytes");
      }
      out->resize(n);
      int got = LZ4_decompress_safe(in.data() + 4, out->data(), static_cast<int>(in.size() - 4), static_cast<int>(n));
      if (got != static_cast<int>(n)) {
        return Status::Corruption("LZ4 value does not decompress (" +
                                  (got < 0 ? std::string("malformed block") : std::to_string(got) + " of " +
                                                                                   std::to_string(n) + " bytes") +
                                  ")");
      }
      return Status::OK();
    }
    case kZstdFrame:
    case kZstdCompact: {
      if (options_.codec != Codec::kZstd) return Status::Corruption("zstd value in an LZ4 dataset");
      const ZSTD_format_e format = tag == kZstdFrame ? ZSTD_f_zstd1 : ZSTD_f_zstd1_magicless;
      ZSTD_frameHeader fh;
      if (ZSTD_getFrameHeader_advanced(&fh, in.data(), in.size(), format) != 0 ||
          fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN || fh.frameType != ZSTD_frame) {
        return Status::Corruption("zstd value has no valid frame header");
      }
      if (fh.dictID != 0 && fh.dictID != dict_id_) {
        return Status::Corruption(
            "zstd value was compressed with dictionary " + std::to_string(fh.dictID) +
            (dict_id_ ? ", the dataset's dictionary is " + std::to_string(dict_id_) : ", the dataset has none"));
      }
      const unsigned long long n = fh.frameContentSize;
      if (n > limit) return TooLarge("zstd", n, limit);
      out->resize(n);
      ZSTD_DCtx* ctx = ThreadDCtx();  // shared on this thread: set all parameters
      ZSTD_DCtx_reset(ctx, ZSTD_reset_session_and_parameters);
      ZSTD_DCtx_setParameter(ctx, ZSTD_d_format, format);
      if (ddict_) ZSTD_DCtx_refDDict(ctx, static_cast<const ZSTD_DDict*>(ddict_));
      size_t got = ZSTD_decompressDCtx(ctx, out->data(), n, in.data(), in.size());
      if (ZSTD_isError(got)) {
        return Status::Corruption(std::string("zstd value does not decompress: ") + ZSTD_getErrorName(got));
      }
      if (got != n) {
        return Status::Corruption("zstd value decompressed to " + std::to_string(got) + " bytes, its frame says " +
                                  std::to_string(n));
      }
      return Status::OK();
    }
    default:
      return Status::Corruption("compressed value has unknown tag " + std::to_string(static_cast<unsigned>(tag)));
  }
}

Result<std::string_view> BlobDecompressor::DecompressRaw(std::string_view raw, std::string* buf) const {
  if (!options_.raw) return raw;
  Status st = DecompressValue(raw, buf, kMaxDecompressedRowBytes);
  if (!st.ok()) return st.WithContext("raw part");
  return std::string_view(*buf);
}

Result<std::string_view> PlainRawPart(const BlobDecompressor* d, std::string_view raw, std::string* buf) {
  return d ? d->DecompressRaw(raw, buf) : Result<std::string_view>(raw);
}

Status BlobDecompressor::DecompressBlob(const RowCodec& codec, std::string_view blob, std::string* out) const {
  std::vector<std::string_view> parts;
  MR_RETURN_IF_ERROR(codec.SplitBlob(blob, &parts));
  if (parts.empty()) {
    out->assign(blob);
    return Status::OK();
  }
  // The row's blob fields share one budget of decompressed bytes.
  uint64_t budget = kMaxDecompressedRowBytes;
  if (parts.size() == 1 && parts[0].size() == blob.size()) {  // one blob field: no framing
    Status st = DecompressValue(parts[0], out, budget);
    return st.ok() ? st : st.WithContext("blob field 0");
  }
  std::vector<std::string> plain(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    Status st = DecompressValue(parts[i], &plain[i], budget);
    if (!st.ok()) return st.WithContext("blob field " + std::to_string(i));
    budget -= plain[i].size();
  }
  codec.JoinBlob(plain, out);
  return Status::OK();
}

Status ReadBlobByteCounts(const nlohmann::json& compression, const std::string& path, uint64_t* raw, uint64_t* stored) {
  for (auto [key, total] : {std::pair<const char*, uint64_t*>{"raw_bytes", raw}, {"stored_bytes", stored}}) {
    *total = 0;
    auto it = compression.find(key);
    if (it == compression.end()) continue;
    const auto n = JsonUnsigned(*it);
    if (!n)
      return Status::Corruption(path + ": header \"" + std::string(kCompressionKey) + "\"." + key + " is " + it->dump() +
                                ", not a byte count");
    *total = *n;
  }
  return Status::OK();
}

}  // namespace mindrecord
