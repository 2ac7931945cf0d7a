// String-array tensors (TensorType::kStrings): arrays of UTF-8 strings of
// any shape, what text ops (tokenizers, Lookup's input) take and give, as
// MindSpore's string tensors. shape() counts strings; the buffer holds
// uint64 offsets[n + 1] (n = num_elements(): offsets[0] = 0, non-decreasing,
// offsets[n] = the characters' total) followed by the characters, string i
// being characters [offsets[i], offsets[i + 1]).
// Such a tensor is never stacked into a batch buffer (its rows batch as a
// list) and only ops that say so take it (TensorOp::takes_strings).
// Thread safety: free functions on values; StringsBuilder is single-threaded.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// A kStrings tensor of `shape` holding `items` (prod(shape) of them) in order.
Tensor MakeStrings(Shape shape, std::span<const std::string_view> items);
Tensor MakeStrings(Shape shape, std::span<const std::string> items);

// The strings of a kStrings tensor, views into its buffer (valid while the
// tensor lives). InvalidArgument when `t` is not kStrings or its offsets do
// not describe its buffer (e.g. bytes restored from elsewhere).
Result<std::vector<std::string_view>> ReadStrings(const Tensor& t);

// Strings appended one by one, then made into one tensor.
class StringsBuilder {
 public:
  void Add(std::string_view s);
  size_t size() const { return ends_.size(); }
  // A kStrings tensor of `shape` (prod(shape) == size()); nullopt shape: [size()].
  Tensor Finish(const Shape& shape);
  Tensor Finish() { return Finish(Shape{static_cast<int64_t>(size())}); }

 private:
  std::string chars_;
  std::vector<uint64_t> ends_;
};

}  // namespace mindrecord
