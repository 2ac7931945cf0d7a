// Sequence ops of MindSpore's text module, over arrays of strings
// (pipeline/strings.h) and, where MindSpore's take them, numeric arrays:
// - {"op":"Truncate","max_seq_len":n}: a 1-D array keeps its first n
//   elements, a 2-D array each row's first n.
// - {"op":"TruncateSequencePair","max_length":n}: two 1-D columns in and out;
//   while their lengths sum to more than n, the longer loses its last element
//   (the second on a tie).
// - {"op":"SlidingWindow","width":w,"axis":0}: a 1-D array of n elements
//   gives its n - w + 1 windows, [n - w + 1, w]; fewer than w elements give an
//   empty [0] array.
// - {"op":"Ngram","n":[..],"left_pad":[token,width],"right_pad":[token,width],
//   "separator":" "}: a 1-D array of strings gives, for each n in turn, its
//   n-grams (the pads added; each n-gram its tokens joined by the separator),
//   or one empty string for an n larger than the padded sequence.
// - {"op":"AddToken","token":t,"begin":true}: t added at the start (or end)
//   of a 1-D array of strings, or of each row of a 2-D one.
// - {"op":"ToNumber","data_type":"int32"}: each string (one string, or an
//   array of any shape) parsed as a number of that type; a string that is not
//   one, or out of the type's range, is InvalidArgument naming it.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class TruncateOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit TruncateOp(int64_t max) : max_(max) {}
  std::string name() const override { return "Truncate"; }
  nlohmann::json ToJson() const override { return {{"op", "Truncate"}, {"max_seq_len", max_}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t max_;
};

class TruncateSequencePairOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit TruncateSequencePairOp(int64_t max) : max_(max) {}
  std::string name() const override { return "TruncateSequencePair"; }
  nlohmann::json ToJson() const override { return {{"op", "TruncateSequencePair"}, {"max_length", max_}}; }
  int num_inputs() const override { return 2; }
  int num_outputs() const override { return 2; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  int64_t max_;
};

class SlidingWindowOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit SlidingWindowOp(int64_t width) : width_(width) {}
  std::string name() const override { return "SlidingWindow"; }
  nlohmann::json ToJson() const override { return {{"op", "SlidingWindow"}, {"width", width_}, {"axis", 0}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t width_;
};

class NgramOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Ngram"; }
  nlohmann::json ToJson() const override;
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::vector<int> n_;
  std::string left_, right_, separator_;
  int left_width_ = 0, right_width_ = 0;
};

class AddTokenOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  AddTokenOp(std::string token, bool begin) : token_(std::move(token)), begin_(begin) {}
  std::string name() const override { return "AddToken"; }
  nlohmann::json ToJson() const override { return {{"op", "AddToken"}, {"token", token_}, {"begin", begin_}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::string token_;
  bool begin_;
};

class ToNumberOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit ToNumberOp(TensorType type) : type_(type) {}
  std::string name() const override { return "ToNumber"; }
  nlohmann::json ToJson() const override { return {{"op", "ToNumber"}, {"data_type", TensorTypeName(type_)}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  TensorType type_;
};

}  // namespace mindrecord::ops
