// RandomHorizontalFlip.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"RandomHorizontalFlip","p":0.5}: mirrors an HW/HWC image (any
// element type) left-right with probability p, in place. Always
// draws exactly one number from rng (so later ops see the same stream
// whatever the outcome). Thread safety: immutable; Apply is safe from many threads.
class RandomHorizontalFlipOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit RandomHorizontalFlipOp(double p) : p_(p) {}
  std::string name() const override { return "RandomHorizontalFlip"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomHorizontalFlip"}, {"p", p_}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double p_;
};

}  // namespace mindrecord::ops
