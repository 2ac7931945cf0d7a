// Lookup (MindSpore's text.Lookup): strings -> their ids in a vocabulary.
// {"op":"Lookup","vocab":{"token":id,...},"unknown_id":id,"data_type":"int32"}:
// each string of the input (one string, or an array of strings of any
// shape) becomes its id, in an array of the input's shape (a 0-d array for
// one string) of `data_type` (numeric, default int32). A string not in the
// vocabulary gets `unknown_id`, or without one is InvalidArgument naming it.
// Ids are in [0, 2^31).
// Thread safety: immutable (the vocabulary is shared, read-only); Apply is
// safe from many threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class LookupOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Lookup"; }
  nlohmann::json ToJson() const override;
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Vocab = std::unordered_map<std::string, int32_t, Hash, std::equal_to<>>;
  LookupOp(std::shared_ptr<const Vocab> vocab, std::optional<int32_t> unknown, TensorType type)
      : vocab_(std::move(vocab)), unknown_(unknown), type_(type) {}

  std::shared_ptr<const Vocab> vocab_;
  std::optional<int32_t> unknown_;
  TensorType type_;
};

}  // namespace mindrecord::ops
