// Tokenizers of MindSpore's text module: a string in, its tokens out as a
// 1-D array of strings (pipeline/strings.h), with `with_offsets` also the
// tokens' byte offsets (start and limit columns; int32, where MindSpore's are
// uint32: there are no uint32 tensors here, and strings are under 2 GiB).
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

// The input is one string (a string column's value, or a 0-d array of
// strings); not UTF-8 is InvalidArgument. A string without tokens gives one
// empty token (offsets 0, 0), as MindSpore's tokenizers do.
class TokenizerOp : public TensorOp {
 public:
  enum class Kind { kWhitespace, kUnicodeChar };
  static Result<std::unique_ptr<TensorOp>> MakeWhitespace(const nlohmann::json& spec);
  static Result<std::unique_ptr<TensorOp>> MakeUnicodeChar(const nlohmann::json& spec);
  TokenizerOp(Kind kind, bool with_offsets) : kind_(kind), with_offsets_(with_offsets) {}
  std::string name() const override;
  nlohmann::json ToJson() const override { return {{"op", name()}, {"with_offsets", with_offsets_}}; }
  int num_outputs() const override { return with_offsets_ ? 3 : 1; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Kind kind_;
  bool with_offsets_;
};

// The string of a one-string input: a kString tensor, or a kStrings tensor
// of one element and rank 0. InvalidArgument naming `op` otherwise.
Result<std::string_view> OneString(const Tensor& t, const std::string& op);

}  // namespace mindrecord::ops
