// RandomHorizontalFlip and RandomVerticalFlip.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

enum class FlipAxis : uint8_t { kHorizontal, kVertical };

// Mirrors an HW/HWC image of any numeric element type left-right
// (kHorizontal) or top-bottom (kVertical), in place (MutableData() copies a
// shared buffer first). `op` names the caller in errors.
Result<Tensor> FlipImage(Tensor input, FlipAxis axis, const std::string& op);

// {"op":"RandomHorizontalFlip","p":0.5} / {"op":"RandomVerticalFlip","p":0.5}:
// mirrors an HW/HWC image (any element type) with probability p, in place.
// Always draws exactly one number from rng (so later ops see the same stream
// whatever the outcome). Thread safety: immutable; Apply is safe from many threads.
class RandomFlipOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> MakeHorizontal(const nlohmann::json& spec);
  static Result<std::unique_ptr<TensorOp>> MakeVertical(const nlohmann::json& spec);
  RandomFlipOp(FlipAxis axis, double p) : axis_(axis), p_(p) {}
  std::string name() const override {
    return axis_ == FlipAxis::kHorizontal ? "RandomHorizontalFlip" : "RandomVerticalFlip";
  }
  nlohmann::json ToJson() const override { return {{"op", name()}, {"p", p_}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  FlipAxis axis_;
  double p_;
};

}  // namespace mindrecord::ops
