// MindSpore's random colour-noise ops RandomColor (colour balance with a
// random factor) and RandomLighting (AlexNet's PCA lighting noise) as
// pipeline ops (MindSpore's random_color_op.cc, random_lighting_op.cc and
// image_utils.cc RandomLighting).
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"RandomColor","degrees":[lo, hi]}  0 <= lo <= hi <= 2^24, default
// [0.1, 1.9]: one draw t ~ U[lo, hi), kept as float (MindSpore's
// uniform_real_distribution<float>); |t - 1| < 0.00195 returns the input,
// |t| < 0.00195 its grey version (OpenCV's RGB2GRAY in 3 channels), else
// grey * (1 - t) + x * t rounded and saturated: AdjustSaturation(t), the
// blend MindSpore's kernel computes (color_adjust.h). Input: HWC uint8 with
// 3 channels. Thread safety: immutable; Apply is safe from many threads.
class RandomColorOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  RandomColorOp(double lo, double hi) : lo_(lo), hi_(hi) {}
  std::string name() const override { return "RandomColor"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomColor"}, {"degrees", {lo_, hi_}}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double lo_, hi_;  // the range of the factor
};

// {"op":"RandomLighting","alpha":0.05}  alpha in [0, 2^24]: three draws
// a_r, a_g, a_b ~ N(0, alpha) as float (in that order); each channel k of an
// HWC uint8 RGB image gets sum_j eigvec[k][j] * eigval[j] * a_j added (the
// ImageNet PCA table of MindSpore's kernel, in float), rounded to nearest
// (ties to even) and saturated to [0, 255]. alpha 0 returns the input's
// values. Input: HWC uint8 with 3 channels (MindSpore's kernel reads any
// other type's bytes as uint8; here that is an error).
// Thread safety: immutable; Apply is safe from many threads.
class RandomLightingOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit RandomLightingOp(double alpha) : alpha_(alpha) {}
  std::string name() const override { return "RandomLighting"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomLighting"}, {"alpha", alpha_}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double alpha_;  // the standard deviation of the three draws
};

}  // namespace mindrecord::ops
