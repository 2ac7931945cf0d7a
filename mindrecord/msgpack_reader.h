// Internal to the row codec (row_codec.cc, row_view.cc): the fast msgpack
// reader for raw parts and the checks both decoders share.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"

namespace mindrecord::codec_internal {

// A stored integer outside its field's type is reported, never wrapped.
inline Status OutOfRange(const Field& f, const std::string& value) {
  return Status::Corruption("field '" + f.name + "' holds " + value + ", outside the range of " +
                            DataTypeName(f.type));
}
inline Status CheckIntRange(const Field& f, int64_t v) {
  if (f.type == DataType::kInt32 && (v < INT32_MIN || v > INT32_MAX)) return OutOfRange(f, std::to_string(v));
  return Status::OK();
}

// Fast decoder for the msgpack MindRecord raw rows hold: one map of string
// keys to integers, floats or strings. Returns false (without error) on any
// other shape so the caller can fall back to the general parser; every read
// is bounds-checked.
class RawMapReader {
 public:
  RawMapReader(std::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()) {}

  bool MapSize(uint32_t* n) {
    if (p_ >= end_) return false;
    uint8_t t = *p_++;
    if ((t & 0xf0) == 0x80) { *n = t & 0x0f; return true; }
    if (t == 0xde) return Be(2, n);
    if (t == 0xdf) return Be(4, n);
    return false;
  }
  bool Str(std::string_view* out) {
    if (p_ >= end_) return false;
    uint8_t t = *p_++;
    uint32_t len;
    if ((t & 0xe0) == 0xa0) len = t & 0x1f;
    else if (t == 0xd9) { if (!Be(1, &len)) return false; }
    else if (t == 0xda) { if (!Be(2, &len)) return false; }
    else if (t == 0xdb) { if (!Be(4, &len)) return false; }
    else return false;
    if (static_cast<size_t>(end_ - p_) < len) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p_), len);
    p_ += len;
    return true;
  }
  enum class Kind { kInt, kFloat, kStr, kOther };
  // Reads one scalar; kOther means "not handled here".
  Kind Scalar(int64_t* i, double* f, std::string_view* s) {
    above_int64_ = false;
    if (p_ >= end_) return Kind::kOther;
    uint8_t t = *p_;
    if (t <= 0x7f) { ++p_; *i = t; return Kind::kInt; }
    if (t >= 0xe0) { ++p_; *i = static_cast<int8_t>(t); return Kind::kInt; }
    if ((t & 0xe0) == 0xa0 || t == 0xd9 || t == 0xda || t == 0xdb) return Str(s) ? Kind::kStr : Kind::kOther;
    ++p_;
    uint64_t u;
    switch (t) {
      case 0xcc: if (!Be64(1, &u)) break; *i = static_cast<int64_t>(u); return Kind::kInt;
      case 0xcd: if (!Be64(2, &u)) break; *i = static_cast<int64_t>(u); return Kind::kInt;
      case 0xce: if (!Be64(4, &u)) break; *i = static_cast<int64_t>(u); return Kind::kInt;
      case 0xcf:
        if (!Be64(8, &u)) break;
        *i = static_cast<int64_t>(u);
        above_int64_ = u > static_cast<uint64_t>(INT64_MAX);
        return Kind::kInt;
      case 0xd0: if (!Be64(1, &u)) break; *i = static_cast<int8_t>(u); return Kind::kInt;
      case 0xd1: if (!Be64(2, &u)) break; *i = static_cast<int16_t>(u); return Kind::kInt;
      case 0xd2: if (!Be64(4, &u)) break; *i = static_cast<int32_t>(u); return Kind::kInt;
      case 0xd3: if (!Be64(8, &u)) break; *i = static_cast<int64_t>(u); return Kind::kInt;
      case 0xca: {
        if (!Be64(4, &u)) break;
        uint32_t w = static_cast<uint32_t>(u);
        float x;
        std::memcpy(&x, &w, 4);
        *f = x;
        return Kind::kFloat;
      }
      case 0xcb: {
        if (!Be64(8, &u)) break;
        std::memcpy(f, &u, 8);
        return Kind::kFloat;
      }
      default: break;
    }
    return Kind::kOther;
  }
  bool AtEnd() const { return p_ == end_; }
  // The last kInt was a uint64 above INT64_MAX (its *i is wrapped).
  bool above_int64() const { return above_int64_; }

 private:
  bool Be(int n, uint32_t* out) {
    uint64_t v;
    if (!Be64(n, &v)) return false;
    *out = static_cast<uint32_t>(v);
    return true;
  }
  bool Be64(int n, uint64_t* out) {
    if (end_ - p_ < n) return false;
    uint64_t v = 0;
    for (int k = 0; k < n; ++k) v = (v << 8) | p_[k];
    p_ += n;
    *out = v;
    return true;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool above_int64_ = false;
};

// An array field's shape for `n` elements: the schema's, with its -1 (if
// any) resolved; Corruption naming the field when `n` does not fit it.
Status ResolveShape(const Field& f, int64_t n, std::vector<int64_t>* shape);

}  // namespace mindrecord::codec_internal
