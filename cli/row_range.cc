#include "cli/row_range.h"

#include <charconv>

namespace mindrecord::cli {

Status ParseRowRange(const std::string& spec, uint64_t n, uint64_t* begin, uint64_t* end) {
  *begin = 0;
  *end = n;
  if (spec.empty()) return Status::OK();
  bool too_large = false;
  auto num = [&](const std::string& s, uint64_t* out) -> bool {
    if (s.empty()) return true;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
    }
    const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
    too_large = too_large || r.ec == std::errc::result_out_of_range;
    return r.ec == std::errc();
  };
  auto colon = spec.find(':');
  if (colon == std::string::npos) {
    if (!num(spec, begin)) {
      if (too_large) return Status::InvalidArgument("--rows '" + spec + "': row numbers go up to 18446744073709551615");
      return Status::InvalidArgument("--rows '" + spec + "' is not A:B");
    }
    *end = *begin + 1;
  } else if (!num(spec.substr(0, colon), begin) || !num(spec.substr(colon + 1), end)) {
    if (too_large) return Status::InvalidArgument("--rows '" + spec + "': row numbers go up to 18446744073709551615");
    return Status::InvalidArgument("--rows '" + spec + "' is not A:B with non-negative integers");
  }
  // A range outside the dataset is a mistake, not an empty answer.
  const std::string has = "the dataset has " + std::to_string(n) + " rows";
  if (colon == std::string::npos && *begin >= n) {
    return Status::InvalidArgument("--rows '" + spec + "': no such row (" + has + ", 0 to " +
                                   (n ? std::to_string(n - 1) : std::string("none")) + ")");
  }
  if (*begin > n || *end > n) return Status::InvalidArgument("--rows '" + spec + "' is outside the dataset (" + has + ")");
  if (*begin > *end) return Status::InvalidArgument("--rows '" + spec + "': A is after B");
  return Status::OK();
}

}  // namespace mindrecord::cli
