// Ops over ops (MindSpore's mindspore.dataset.transforms): Compose,
// RandomApply, RandomChoice, RandomOrder; and vision.UniformAugment,
// vision.RandomSelectSubpolicy. Their "transforms" are nested op
// specs, built like a column's op list (registered ops such as Python
// callables included, runs of built-in ops fused), so they nest freely.
#pragma once

#include <memory>
#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// The child ops of a combinator and how many columns they take and give.
// Thread safety: immutable after Build; the ops' Apply may run on many
// threads at once.
class OpList {
 public:
  // Builds spec["transforms"] (a non-empty list of op specs) for `op`.
  static Result<OpList> Build(const nlohmann::json& spec, const std::string& op);
  // Appends the op built from one spec (not fused with its neighbours).
  Status Add(const nlohmann::json& spec, const std::string& op);
  size_t size() const { return ops_.size(); }
  const TensorOp& at(size_t i) const { return *ops_[i]; }
  nlohmann::json ToJson() const;
  bool any_random() const;
  // Runs ops `order` (indices) in turn over `cols`; each op takes the columns
  // the previous one gave. Errors are prefixed with `op`.
  Result<std::vector<Tensor>> Run(std::vector<Tensor> cols, const std::vector<size_t>& order,
                                  std::mt19937_64& rng, const std::string& op) const;

 private:
  std::vector<std::shared_ptr<const TensorOp>> ops_;
};

// Shared base: name, child list, column counts. Thread safety: immutable;
// Apply/ApplyColumns are safe from many threads (children share the caller's rng).
class CombinatorOp : public TensorOp {
 public:
  std::string name() const override { return name_; }
  int num_inputs() const override { return in_; }
  int num_outputs() const override { return out_; }
  bool takes_strings() const override { return true; }  // each child is checked (OpList::Run)
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 protected:
  CombinatorOp(std::string name, OpList ops, int in, int out)
      : name_(std::move(name)), ops_(std::move(ops)), in_(in), out_(out) {}
  // Checks that every child takes and gives the same number of columns (and,
  // with `same_in_out`, as many as it takes); sets in_/out_.
  static Status CheckUniform(const OpList& ops, const std::string& op, bool same_in_out, int* in, int* out);
  Result<std::vector<Tensor>> CheckInputs(std::vector<Tensor> inputs) const;

  std::string name_;
  OpList ops_;
  int in_ = 1;
  int out_ = 1;
};

// {"op":"Compose","transforms":[spec, ...]}: the ops in order; each takes the
// columns the previous one gave (an image+boxes op may follow a per-column op
// only when the counts match). The last op may write into the batch slot.
class ComposeOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override { return {{"op", "Compose"}, {"transforms", ops_.ToJson()}}; }
  bool is_random() const override { return ops_.any_random(); }
  Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  using CombinatorOp::CombinatorOp;
};

// {"op":"RandomApply","transforms":[...],"prob":0.5}: all the ops in order with
// probability prob, else nothing. Draws one number, then the ops' own draws.
// Every op must give as many columns as it takes.
class RandomApplyOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override {
    return {{"op", "RandomApply"}, {"transforms", ops_.ToJson()}, {"prob", prob_}};
  }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  RandomApplyOp(OpList ops, int in, int out, double prob)
      : CombinatorOp("RandomApply", std::move(ops), in, out), prob_(prob) {}
  double prob_;
};

// {"op":"RandomChoice","transforms":[...]}: one op chosen uniformly. All ops
// take and give the same numbers of columns.
class RandomChoiceOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override { return {{"op", "RandomChoice"}, {"transforms", ops_.ToJson()}}; }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  using CombinatorOp::CombinatorOp;
};

// {"op":"RandomOrder","transforms":[...]}: all ops, in a uniformly random
// order (Fisher-Yates). Every op gives as many columns as it takes.
class RandomOrderOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override { return {{"op", "RandomOrder"}, {"transforms", ops_.ToJson()}}; }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  using CombinatorOp::CombinatorOp;
};

// {"op":"UniformAugment","transforms":[...],"num_ops":2}: MindSpore's
// UniformAugment. Picks num_ops of the ops uniformly without replacement,
// kept in list order (std::sample's selection sampling: one draw per op
// considered), then runs each picked op with probability 1/2 (one draw before
// the op's own draws), as MindSpore's UniformAugOp does. 1 <= num_ops <=
// the number of ops; every op gives as many columns as it takes, the same
// for all.
class UniformAugmentOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override {
    return {{"op", "UniformAugment"}, {"transforms", ops_.ToJson()}, {"num_ops", num_ops_}};
  }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  UniformAugmentOp(OpList ops, int in, int out, int num_ops)
      : CombinatorOp("UniformAugment", std::move(ops), in, out), num_ops_(num_ops) {}
  int num_ops_;
};

// {"op":"RandomSelectSubpolicy","policy":[[{"transform": spec, "prob": p}, ...], ...]}:
// MindSpore's RandomSelectSubpolicy. Picks one sub-policy uniformly, then
// applies each of its steps in order with its probability (one draw per
// step, then the step's own draws). Every transform gives as many columns as
// it takes, the same for all. Thread safety: immutable; Apply is safe from
// many threads.
class RandomSelectSubpolicyOp : public CombinatorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  struct Step {
    size_t op;  // index in ops_
    double prob;
  };
  RandomSelectSubpolicyOp(OpList ops, int in, int out, std::vector<std::vector<Step>> policy)
      : CombinatorOp("RandomSelectSubpolicy", std::move(ops), in, out), policy_(std::move(policy)) {}
  std::vector<std::vector<Step>> policy_;
};

}  // namespace mindrecord::ops
