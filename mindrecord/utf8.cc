#include "mindrecord/utf8.h"

#include <cstddef>

namespace mindrecord {

bool IsUtf8(std::string_view s) {
  size_t i = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    const unsigned char c = p[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return false;
    if (n == 2 && c < 0xC2) return false;                                        // overlong
    if (n == 3 && c == 0xE0 && p[i + 1] < 0xA0) return false;                    // overlong
    if (n == 3 && c == 0xED && p[i + 1] >= 0xA0) return false;                   // surrogates
    if (n == 4 && ((c == 0xF0 && p[i + 1] < 0x90) || c > 0xF4 || (c == 0xF4 && p[i + 1] >= 0x90))) return false;
    i += n;
  }
  return true;
}

}  // namespace mindrecord
