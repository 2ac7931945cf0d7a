// NormalizePad: MindSpore's Normalize followed by one more channel of zeros
// (image_utils.cc NormalizePad), on the Normalize kernel (normalize.h).
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"NormalizePad","mean":[...],"std":[...],"dtype":"float32","is_hwc":true}
// mean in [0, 255], std in (0, 255], 1 to 4 values each, as many of both.
// is_hwc: an HWC (or HW) image -> float32 [H, W, C + 1]; else a CHW image ->
// float32 [C + 1, H, W]. Channel k is (x - mean[k]) / std[k] (one value
// serves every channel), the last channel is 0. Input: uint8 or float32.
// dtype "float16" is refused (there is no float16 tensor type).
// Thread safety: immutable; Apply is safe from many threads.
class NormalizePadOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  NormalizePadOp(std::vector<double> mean, std::vector<double> std, bool is_hwc)
      : mean_(std::move(mean)), std_(std::move(std)), is_hwc_(is_hwc) {}
  std::string name() const override { return "NormalizePad"; }
  nlohmann::json ToJson() const override {
    return {{"op", "NormalizePad"}, {"mean", mean_}, {"std", std_}, {"dtype", "float32"}, {"is_hwc", is_hwc_}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Result<Tensor> ApplyHwc(const Tensor& input, std::mt19937_64& rng) const;
  Result<Tensor> ApplyChw(const Tensor& input, std::mt19937_64& rng) const;
  std::vector<double> mean_;
  std::vector<double> std_;
  bool is_hwc_;
};

}  // namespace mindrecord::ops
