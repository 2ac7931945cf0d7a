#include "mindrecord/json_guard.h"

namespace mindrecord {

Status CheckJsonShape(std::string_view text, const std::string& what, const JsonLimits& limits) {
  int depth = 0;
  uint64_t elements = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > limits.max_depth) {
          return Status::Corruption(what + ": JSON nests deeper than " + std::to_string(limits.max_depth) +
                                    " levels; refused before parsing");
        }
        [[fallthrough]];
      case ',':
        if (++elements > limits.max_elements) {
          return Status::Corruption(what + ": JSON holds more than " + std::to_string(limits.max_elements) +
                                    " elements; refused before parsing");
        }
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        break;
    }
  }
  return Status::OK();
}

}  // namespace mindrecord
