#include "pipeline/cache/cache_entry.h"

#include <cstring>

#include "mindrecord/checksum.h"
#include "pipeline/row_vectors.h"
#include "pipeline/strings.h"

namespace mindrecord {

namespace {

constexpr char kMagic[8] = {'M', 'R', 'C', 'A', 'C', 'H', 'E', '1'};

void PutU64(std::string* s, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  s->append(b, 8);
}

uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void PadTo16(std::string* s) { s->append((16 - s->size() % 16) % 16, '\0'); }

}  // namespace

std::string EncodeCacheEntry(uint64_t fingerprint, uint64_t key, const std::vector<Tensor>& columns) {
  size_t total = kCacheEntryHeaderBytes + 8;
  for (const Tensor& t : columns) total += 16 + 8 * t.shape().size() + 8 + 16 + t.size_bytes();
  std::string s;
  s.reserve(total);
  s.append(kCacheEntryHeaderBytes, '\0');
  PutU64(&s, columns.size());  // u32 count + u32 zero
  for (const Tensor& t : columns) {
    const char head[8] = {static_cast<char>(t.type()), static_cast<char>(t.shape().size()), 0, 0, 0, 0, 0, 0};
    s.append(head, 8);
    for (int64_t d : t.shape()) PutU64(&s, static_cast<uint64_t>(d));
    PutU64(&s, t.size_bytes());
    PadTo16(&s);
    if (t.size_bytes() > 0) s.append(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  }
  std::string head;
  head.append(kMagic, 8);
  PutU64(&head, fingerprint);
  PutU64(&head, key);
  PutU64(&head, s.size() - kCacheEntryHeaderBytes);
  PutU64(&head, Xxh3(std::string_view(s).substr(kCacheEntryHeaderBytes)));
  PutU64(&head, Xxh3(head));
  std::memcpy(s.data(), head.data(), kCacheEntryHeaderBytes);
  return s;
}

Result<std::vector<Tensor>> DecodeCacheEntry(std::shared_ptr<const std::vector<uint8_t>> bytes, uint64_t fingerprint,
                                             uint64_t key, size_t num_columns, const std::string& what) {
  const std::span<const uint8_t> span(bytes->data(), bytes->size());
  return DecodeCacheEntry(std::move(bytes), span, fingerprint, key, num_columns, what);
}

Result<std::vector<Tensor>> DecodeCacheEntry(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes,
                                             uint64_t fingerprint, uint64_t key, size_t num_columns,
                                             const std::string& what) {
  const uint8_t* p = bytes.data();
  const size_t n = bytes.size();
  auto bad = [&](size_t off, const std::string& m) {
    return Status::Corruption("dataset cache entry " + what + ": at offset " + std::to_string(off) + ": " + m);
  };
  if (n < kCacheEntryHeaderBytes + 8) return bad(0, std::to_string(n) + " bytes, shorter than an entry's header");
  if (std::memcmp(p, kMagic, 8) != 0) return bad(0, "not a cache entry (bad magic)");
  if (GetU64(p + 40) != Xxh3(std::string_view(reinterpret_cast<const char*>(p), 40))) {
    return bad(40, "header checksum mismatch");
  }
  if (GetU64(p + 8) != fingerprint) return bad(8, "belongs to another dataset or op chain (fingerprint differs)");
  if (GetU64(p + 16) != key) return bad(16, "holds row " + std::to_string(GetU64(p + 16)) + ", expected row " +
                                                std::to_string(key));
  const uint64_t payload = GetU64(p + 24);
  if (payload != n - kCacheEntryHeaderBytes) {
    return bad(24, "payload length " + std::to_string(payload) + ", the file holds " +
                       std::to_string(n - kCacheEntryHeaderBytes));
  }
  if (GetU64(p + 32) !=
      Xxh3(std::string_view(reinterpret_cast<const char*>(p) + kCacheEntryHeaderBytes, payload))) {
    return bad(32, "payload checksum mismatch");
  }
  size_t off = kCacheEntryHeaderBytes;
  const uint64_t count = GetU64(p + off);
  if (count != num_columns) {
    return bad(off, std::to_string(count) + " columns, expected " + std::to_string(num_columns));
  }
  off += 8;
  std::vector<Tensor> cols = TakeRowVector();
  cols.reserve(count);
  for (uint64_t c = 0; c < count; ++c) {
    if (n - off < 8) return bad(off, "column " + std::to_string(c) + " is cut short");
    const uint8_t type = p[off], rank = p[off + 1];
    if (type > static_cast<uint8_t>(TensorType::kStrings)) return bad(off, "unknown tensor type " + std::to_string(type));
    if (rank > kCacheEntryMaxRank) return bad(off + 1, "rank " + std::to_string(rank) + " is above 16");
    off += 8;
    if ((n - off) / 8 < size_t{rank} + 1) return bad(off, "column " + std::to_string(c) + " is cut short");
    const TensorType tt = static_cast<TensorType>(type);
    std::vector<int64_t> shape(rank);
    uint64_t elems = 1;
    for (size_t d = 0; d < rank; ++d, off += 8) {
      const uint64_t v = GetU64(p + off);
      if (v > n) return bad(off, "dimension " + std::to_string(v) + " is larger than the entry");
      shape[d] = static_cast<int64_t>(v);
      elems = v == 0 ? 0 : elems;
      if (elems != 0 && elems > n / v) return bad(off, "shape holds more elements than the entry has bytes");
      elems *= v;
    }
    const uint64_t len = GetU64(p + off);
    off += 8;
    const bool strings = tt == TensorType::kStrings;  // offsets, then characters (pipeline/strings.h)
    if (strings ? len / 8 < elems + 1 : len != elems * TensorTypeSize(tt)) {
      return bad(off - 8, "column " + std::to_string(c) + " has " + std::to_string(len) + " bytes, its shape needs " +
                              std::to_string(elems * TensorTypeSize(tt)));
    }
    if ((tt == TensorType::kBytes || tt == TensorType::kString) && rank != 1) {
      return bad(off - 8, "a bytes or string column must have rank 1");
    }
    off += (16 - off % 16) % 16;
    if (off > n || len > n - off) return bad(off, "column " + std::to_string(c) + "'s bytes run past the entry");
    if (strings) {
      Tensor t = Tensor::View(TensorType::kUInt8, {static_cast<int64_t>(len)}, owner, p + off).AsStrings(shape);
      if (Result<std::vector<std::string_view>> ok = ReadStrings(t); !ok.ok()) return bad(off, ok.status().message());
      cols.push_back(std::move(t));
    } else {
      cols.push_back(Tensor::View(tt, std::move(shape), owner, p + off));
    }
    off += len;
  }
  if (off != n) return bad(off, std::to_string(n - off) + " bytes follow the last column");
  return cols;
}

}  // namespace mindrecord
