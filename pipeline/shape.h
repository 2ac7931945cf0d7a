// Shape: a tensor's dimensions, held inline up to Shape::kInline of them
// (pipeline/inline_vector.h): every row of a pipeline makes tensors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "pipeline/inline_vector.h"

namespace mindrecord {

// Thread safety: a value type.
class Shape : public InlineVector<int64_t, 5> {  // an NHWC batch has 4 dimensions
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : InlineVector(dims.begin(), dims.end()) {}
  Shape(const std::vector<int64_t>& dims) : InlineVector(dims.data(), dims.data() + dims.size()) {}  // NOLINT: implicit
  Shape(const int64_t* first, const int64_t* last) : InlineVector(first, last) {}

  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  explicit operator std::vector<int64_t>() const { return vec(); }

  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator==(const Shape& a, const std::vector<int64_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
};

// "[2,3,4]": how error messages and Tensor::DebugString show a shape.
inline std::string ShapeString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(s[i]);
  }
  return out + "]";
}

inline std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << ShapeString(s); }

}  // namespace mindrecord
