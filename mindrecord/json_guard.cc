#include "mindrecord/json_guard.h"

#include <vector>

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

Status CheckMsgpackShape(std::string_view bytes, const std::string& what, const JsonLimits& limits) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto* end = p + bytes.size();
  auto bad = [&](const std::string& why) { return Status::Corruption(what + ": msgpack " + why); };
  auto be = [&](int n, uint64_t* v) {
    if (end - p < n) return false;
    *v = 0;
    for (int k = 0; k < n; ++k) *v = (*v << 8) | p[k];
    p += n;
    return true;
  };
  std::vector<uint64_t> left{1};  // items still to read per open container
  uint64_t elements = 0;
  while (!left.empty()) {
    if (left.back() == 0) {
      left.pop_back();
      continue;
    }
    --left.back();
    if (p >= end) return bad("ends inside a value");
    const uint8_t t = *p++;
    uint64_t skip = 0, items = 0, len = 0;
    bool container = false;
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
      // one-byte value
    } else if (t >= 0x80 && t <= 0x8f) {
      container = true, items = 2 * uint64_t{t & 0x0fu};
    } else if (t >= 0x90 && t <= 0x9f) {
      container = true, items = t & 0x0fu;
    } else if (t >= 0xa0 && t <= 0xbf) {
      skip = t & 0x1fu;
    } else {
      switch (t) {
        case 0xc4: case 0xd9: if (!be(1, &skip)) return bad("ends inside a length"); break;
        case 0xc5: case 0xda: if (!be(2, &skip)) return bad("ends inside a length"); break;
        case 0xc6: case 0xdb: if (!be(4, &skip)) return bad("ends inside a length"); break;
        case 0xc7: if (!be(1, &len)) return bad("ends inside a length"); skip = len + 1; break;
        case 0xc8: if (!be(2, &len)) return bad("ends inside a length"); skip = len + 1; break;
        case 0xc9: if (!be(4, &len)) return bad("ends inside a length"); skip = len + 1; break;
        case 0xca: case 0xce: case 0xd2: skip = 4; break;
        case 0xcb: case 0xcf: case 0xd3: skip = 8; break;
        case 0xcc: case 0xd0: skip = 1; break;
        case 0xcd: case 0xd1: skip = 2; break;
        case 0xd4: skip = 2; break;
        case 0xd5: skip = 3; break;
        case 0xd6: skip = 5; break;
        case 0xd7: skip = 9; break;
        case 0xd8: skip = 17; break;
        case 0xdc: if (!be(2, &items)) return bad("ends inside a length"); container = true; break;
        case 0xdd: if (!be(4, &items)) return bad("ends inside a length"); container = true; break;
        case 0xde: if (!be(2, &items)) return bad("ends inside a length"); items *= 2; container = true; break;
        case 0xdf: if (!be(4, &items)) return bad("ends inside a length"); items *= 2; container = true; break;
        default: return bad("holds the invalid type byte 0xc1");
      }
    }
    if (skip > static_cast<uint64_t>(end - p)) return bad("value runs past the end of its bytes");
    p += skip;
    if (!container) continue;
    if (items > static_cast<uint64_t>(end - p)) {
      return bad("container claims " + std::to_string(items) + " elements but only " +
                 std::to_string(end - p) + " bytes follow");
    }
    elements += items + 1;
    if (elements > limits.max_elements) {
      return bad("holds more than " + std::to_string(limits.max_elements) + " elements");
    }
    if (static_cast<int>(left.size()) > limits.max_depth) {
      return bad("nests deeper than " + std::to_string(limits.max_depth) + " levels");
    }
    left.push_back(items);
  }
  return Status::OK();
}

}  // namespace mindrecord
