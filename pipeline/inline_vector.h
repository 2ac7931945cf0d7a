// InlineVector<T, N>: a growable array whose first N elements need no heap
// allocation. Pipelines make small arrays per row (a tensor's dimensions, a
// row's instructions); a std::vector for each was an allocation and a free
// per row on the workers' hot path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace mindrecord {

// T must be trivially copyable. The elements are held inline while there are
// at most N of them, on the heap once there are more.
// Thread safety: a value type.
template <typename T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "InlineVector holds trivially copyable elements");

 public:
  static constexpr size_t kInline = N;

  InlineVector() = default;
  InlineVector(const T* first, const T* last) { assign(first, last); }
  InlineVector(const InlineVector& o) { assign(o.begin(), o.end()); }
  InlineVector(InlineVector&& o) noexcept { TakeFrom(o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) TakeFrom(o);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return size_ <= N ? inline_ : heap_.data(); }
  T* data() { return size_ <= N ? inline_ : heap_.data(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& operator[](size_t i) { return data()[i]; }
  const T& front() const { return data()[0]; }
  const T& back() const { return data()[size_ - 1]; }

  void assign(const T* first, const T* last) {
    const size_t n = static_cast<size_t>(last - first);
    if (n <= N) {
      std::copy(first, last, inline_);
      heap_.clear();
    } else {
      heap_.assign(first, last);
    }
    size_ = n;
  }

  void push_back(const T& v) {
    if (size_ < N) {
      inline_[size_++] = v;
      return;
    }
    if (size_ == N) heap_.assign(inline_, inline_ + N);
    heap_.push_back(v);
    ++size_;
  }

 private:
  void TakeFrom(InlineVector& o) {
    size_ = o.size_;
    heap_ = std::move(o.heap_);
    std::copy(o.inline_, o.inline_ + N, inline_);
    o.size_ = 0;
    o.heap_.clear();
  }

  size_t size_ = 0;
  T inline_[N] = {};
  std::vector<T> heap_;  // the elements, when there are more than N
};

}  // namespace mindrecord
