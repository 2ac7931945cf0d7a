#include "mindrecord/json_number.h"

#include <cmath>
#include <limits>

namespace mindrecord {

std::optional<uint64_t> JsonUnsigned(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  // A document built in code (not parsed) holds a non-negative int64 as signed.
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

std::optional<int64_t> JsonInt(const nlohmann::json& v, int64_t lo, int64_t hi, bool integral_floats) {
  int64_t x = 0;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (hi < 0 || u > static_cast<uint64_t>(hi)) return std::nullopt;
    x = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    x = v.get<int64_t>();
  } else if (integral_floats && v.is_number_float()) {
    const double d = v.get<double>();
    // Within +-2^63 the cast is defined; [lo, hi] is then checked on the integer.
    if (!std::isfinite(d) || d != std::floor(d) || d < -9.2e18 || d > 9.2e18) return std::nullopt;
    x = static_cast<int64_t>(d);
  } else {
    return std::nullopt;
  }
  if (x < lo || x > hi) return std::nullopt;
  return x;
}

std::optional<int64_t> JsonInt64(const nlohmann::json& v) {
  return JsonInt(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

}  // namespace mindrecord
