// GaussianBlur (MindSpore's vision.GaussianBlur: cv::GaussianBlur).
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"GaussianBlur","kernel_size":k | [kx, ky],"sigma":null | s | [sx, sy]}:
// blurs an HW/HWC uint8 or float32 image with a Gaussian kernel kx wide and
// ky high (odd, >= 1), reflecting the border (OpenCV's default,
// REFLECT_101). A sigma of 0 (or none) is derived from the kernel size as
// 0.15 k + 0.35; MindSpore's rule for one value (or none) is kept: it serves
// both axes, derived from kx. Sigmas are float32, as MindSpore passes them.
// ToJson gives the resolved [sx, sy]. Thread safety: immutable; Apply is safe
// from many threads.
class GaussianBlurOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "GaussianBlur"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int kx_ = 1, ky_ = 1;
  float sx_ = 0, sy_ = 0;
};

}  // namespace mindrecord::ops
