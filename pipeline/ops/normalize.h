// Normalize: per-channel (x - mean) / std, output float32.
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"Normalize","mean":[m0,m1,m2],"std":[s0,s1,s2]}: on an HW/HWC uint8
// or float32 image (channels last), out = (x - mean[c]) / std[c] in float32.
// Values apply to the raw pixel range (MindSpore convention: for uint8 input
// use e.g. mean [123.675, 116.28, 103.53], std [58.395, 57.12, 57.375]).
// One value broadcasts to all channels; otherwise the count must equal C.
// Thread safety: immutable; Apply is safe from many threads.
class NormalizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  NormalizeOp(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {}
  std::string name() const override { return "Normalize"; }
  nlohmann::json ToJson() const override { return {{"op", "Normalize"}, {"mean", mean_}, {"std", std_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::vector<double> mean_;
  std::vector<double> std_;
};

}  // namespace mindrecord::ops
