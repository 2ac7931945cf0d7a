// Shape: a tensor's dimensions, held inline up to Shape::kInline of them.
// Every row of a pipeline makes tensors (one per column, more per op), and a
// std::vector shape was a heap allocation and free per tensor: on small rows
// the allocator's slow paths, since batches move tensors between threads,
// were a tenth of a worker's instructions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace mindrecord {

// Thread safety: a value type.
class Shape {
 public:
  // Up to this many dimensions need no allocation (an NHWC batch has 4).
  static constexpr size_t kInline = 5;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { Assign(dims.begin(), dims.end()); }
  Shape(const std::vector<int64_t>& dims) { Assign(dims.data(), dims.data() + dims.size()); }  // NOLINT: implicit
  Shape(const int64_t* first, const int64_t* last) { Assign(first, last); }
  Shape(const Shape& o) { Assign(o.begin(), o.end()); }
  Shape(Shape&& o) noexcept : size_(o.size_), heap_(std::move(o.heap_)) {
    std::copy(o.inline_, o.inline_ + kInline, inline_);
    o.size_ = 0;
  }
  Shape& operator=(const Shape& o) {
    if (this != &o) Assign(o.begin(), o.end());
    return *this;
  }
  Shape& operator=(Shape&& o) noexcept {
    if (this != &o) {
      size_ = o.size_;
      heap_ = std::move(o.heap_);
      std::copy(o.inline_, o.inline_ + kInline, inline_);
      o.size_ = 0;
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  int64_t* data() { return size_ <= kInline ? inline_ : heap_.data(); }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t front() const { return data()[0]; }
  int64_t back() const { return data()[size_ - 1]; }

  void Assign(const int64_t* first, const int64_t* last) {
    const size_t n = static_cast<size_t>(last - first);
    if (n <= kInline) {
      std::copy(first, last, inline_);
      heap_.clear();
    } else {
      heap_.assign(first, last);
    }
    size_ = n;
  }

  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  explicit operator std::vector<int64_t>() const { return vec(); }

  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator==(const Shape& a, const std::vector<int64_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend std::ostream& operator<<(std::ostream& os, const Shape& s) {
    os << '[';
    for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    return os << ']';
  }

 private:
  size_t size_ = 0;
  int64_t inline_[kInline] = {};
  std::vector<int64_t> heap_;  // more than kInline dimensions
};

}  // namespace mindrecord
