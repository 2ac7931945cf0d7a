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

Result<std::string> UnpackIntegers(std::string_view packed, size_t elem_size) {
  if (packed.size() < 4) return Status::Corruption("packed integer array shorter than its 4-byte count");
  const auto* p = reinterpret_cast<const uint8_t*>(packed.data());
  const uint64_t n = (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) | (uint64_t{p[2]} << 8) | p[3];
  const uint64_t bitmap = (n + 3) / 4;
  if (bitmap > packed.size() - 4) {
    return Status::Corruption("packed integer array claims " + std::to_string(n) + " elements but has only " +
                              std::to_string(packed.size()) + " bytes");
  }
  std::string out(n * elem_size, '\0');
  size_t pos = 4 + bitmap;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t width = (p[4 + i / 4] >> (2 * (3 - i % 4))) & 3;
    const size_t bytes = size_t{1} << width;
    if (bytes > packed.size() - pos) return Status::Corruption("packed integer array truncated at element " + std::to_string(i));
    uint64_t u = 0;
    for (size_t b = 0; b < bytes; ++b) u |= uint64_t{p[pos + b]} << (8 * b);
    pos += bytes;
    int64_t v;
    if (bytes == 1) v = static_cast<int8_t>(u);
    else if (bytes == 2) v = static_cast<int16_t>(u);
    else if (bytes == 4) v = static_cast<int32_t>(u);
    else v = static_cast<int64_t>(u);
    if (elem_size == 4) {
      if (bytes == 8) return Status::Corruption("packed int32 array holds a 64-bit element");
      int32_t w = static_cast<int32_t>(v);
      std::memcpy(out.data() + i * 4, &w, 4);
    } else {
      std::memcpy(out.data() + i * 8, &v, 8);
    }
  }
  if (pos != packed.size()) {
    return Status::Corruption("packed integer array has " + std::to_string(packed.size() - pos) + " trailing bytes");
  }
  return out;
}

}  // namespace mindrecord
