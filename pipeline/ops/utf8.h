// UTF-8 decoding for the text ops: well-formed sequences only (no overlong
// forms, surrogates or values past U+10FFFF), as strict decoders require.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord::ops {

// The length of the UTF-8 sequence at s[i] (i < s.size()) and its code point
// in *cp; 0 when the bytes there are not well-formed UTF-8.
inline size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t c = b(0);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n = 0;
  uint32_t v = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

// InvalidArgument "<op>: the string is not UTF-8 at byte N" unless `s` is.
inline Status CheckUtf8(std::string_view s, const std::string& op) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(s, i, &cp);
    if (n == 0) return Status::InvalidArgument(op + ": the string is not UTF-8 at byte " + std::to_string(i));
    i += n;
  }
  return Status::OK();
}

}  // namespace mindrecord::ops
