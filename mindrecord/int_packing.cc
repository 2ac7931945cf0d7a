#include "mindrecord/int_packing.h"

#include <cstring>
#include <limits>

namespace mindrecord {

namespace {
int64_t LoadLE(const char* p, size_t size) {
  if (size == 4) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
}  // namespace

std::string PackIntegers(std::string_view elems, size_t elem_size) {
  const size_t n = elems.size() / elem_size;
  const size_t bitmap = (n + 3) / 4;
  std::string out(4 + bitmap, '\0');
  out.reserve(4 + bitmap + elems.size());
  const uint32_t count = static_cast<uint32_t>(n);
  out[0] = static_cast<char>(count >> 24);
  out[1] = static_cast<char>(count >> 16);
  out[2] = static_cast<char>(count >> 8);
  out[3] = static_cast<char>(count);
  for (size_t i = 0; i < n; ++i) {
    int64_t v = LoadLE(elems.data() + i * elem_size, elem_size);
    uint8_t width;
    size_t bytes;
    if (v >= std::numeric_limits<int8_t>::min() && v <= std::numeric_limits<int8_t>::max()) {
      width = 0, bytes = 1;
    } else if (v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max()) {
      width = 1, bytes = 2;
    } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
      width = 2, bytes = 4;
    } else {
      width = 3, bytes = 8;
    }
    out[4 + i / 4] = static_cast<char>(static_cast<uint8_t>(out[4 + i / 4]) | (width << (2 * (3 - i % 4))));
    uint64_t u = static_cast<uint64_t>(v);
    for (size_t b = 0; b < bytes; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
  }
  return out;
}

namespace {

// Sign-extends `count` little-endian elements of type In at `src` into
// `count` elements of type Out at `dst`.
template <typename In, typename Out>
void Widen(const uint8_t* src, uint64_t count, uint8_t* dst) {
  for (uint64_t k = 0; k < count; ++k) {
    In v;
    std::memcpy(&v, src + k * sizeof(In), sizeof(In));
    const Out o = static_cast<Out>(v);
    std::memcpy(dst + k * sizeof(Out), &o, sizeof(Out));
  }
}

// Widen from elements of code `width` (1 << width bytes); false: 64-bit
// elements for an int32 array.
template <typename Out>
bool WidenAs(uint8_t width, const uint8_t* src, uint64_t count, uint8_t* out) {
  switch (width) {
    case 0: Widen<int8_t, Out>(src, count, out); return true;
    case 1: Widen<int16_t, Out>(src, count, out); return true;
    case 2: Widen<int32_t, Out>(src, count, out); return true;
    default:
      if (sizeof(Out) == 4) return false;
      Widen<int64_t, Out>(src, count, out);
      return true;
  }
}

Status Int64InInt32() { return Status::Corruption("packed int32 array holds a 64-bit element"); }

// Unpacks n elements into Out (int32_t or int64_t). Runs of bitmap bytes
// whose four codes are one width (the usual case: a whole array of small
// values) are checked once and widened in one loop; other elements one by
// one. Every read is bounds-checked either way.
template <typename Out>
Status UnpackInto(const uint8_t* bitmap, uint64_t n, const uint8_t* src, const uint8_t* end, uint8_t* out) {
  uint64_t i = 0;
  while (i < n) {
    const uint8_t codes = bitmap[i / 4];
    const uint8_t w = codes & 3;
    if (i % 4 == 0 && n - i >= 4 && codes == w * 0x55) {
      // A run of whole groups of one width.
      uint64_t groups = 1;
      while (i + 4 * (groups + 1) <= n && bitmap[i / 4 + groups] == codes) groups++;
      const uint64_t count = 4 * groups;
      const uint64_t bytes = count << w;
      if (bytes > static_cast<uint64_t>(end - src)) {
        return Status::Corruption("packed integer array truncated at element " + std::to_string(i));
      }
      if (!WidenAs<Out>(w, src, count, out + i * sizeof(Out))) return Int64InInt32();
      src += bytes;
      i += count;
      continue;
    }
    const uint8_t width = (codes >> (2 * (3 - i % 4))) & 3;
    const size_t bytes = size_t{1} << width;
    if (bytes > static_cast<size_t>(end - src)) {
      return Status::Corruption("packed integer array truncated at element " + std::to_string(i));
    }
    if (!WidenAs<Out>(width, src, 1, out + i * sizeof(Out))) return Int64InInt32();
    src += bytes;
    i++;
  }
  if (src != end) {
    return Status::Corruption("packed integer array has " + std::to_string(end - src) + " trailing bytes");
  }
  return Status::OK();
}

}  // namespace

Result<std::string> UnpackIntegers(std::string_view packed, size_t elem_size) {
  if (packed.size() < 4) return Status::Corruption("packed integer array shorter than its 4-byte count");
  const auto* p = reinterpret_cast<const uint8_t*>(packed.data());
  const uint64_t n = (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) | (uint64_t{p[2]} << 8) | p[3];
  const uint64_t bitmap = (n + 3) / 4;
  if (bitmap > packed.size() - 4) {
    return Status::Corruption("packed integer array claims " + std::to_string(n) + " elements but has only " +
                              std::to_string(packed.size()) + " bytes");
  }
  // Each element takes at least one byte: a larger count cannot be whole.
  if (n > packed.size() - 4 - bitmap) {
    return Status::Corruption("packed integer array truncated at element " + std::to_string(packed.size() - 4 - bitmap));
  }
  std::string out(n * elem_size, '\0');
  const uint8_t* src = p + 4 + bitmap;
  const uint8_t* end = p + packed.size();
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  Status st = elem_size == 4 ? UnpackInto<int32_t>(p + 4, n, src, end, dst) : UnpackInto<int64_t>(p + 4, n, src, end, dst);
  if (!st.ok()) return st;
  return out;
}

}  // namespace mindrecord
