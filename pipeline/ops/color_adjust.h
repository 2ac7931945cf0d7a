// Colour adjustments with MindSpore's kernels (image_utils.cc AdjustBrightness,
// AdjustContrast, AdjustSaturation, AdjustHue) and RandomColorAdjust.
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// MindSpore's FLOAT_MAX_INTEGER: the largest factor its color ops accept.
inline constexpr double kFactorMax = 16777216;

// Each takes an HWC uint8 RGB image (3 channels) and returns a new one;
// results saturate to [0, 255] with rounding. `op` names the caller.
// x * factor.
Result<Tensor> AdjustBrightness(const Tensor& img, double factor, const std::string& op);
// Blend with the image's mean grey level m (round(mean(RGB2GRAY))):
// m * (1 - factor) + x * factor.
Result<Tensor> AdjustContrast(const Tensor& img, double factor, const std::string& op);
// Blend with the image's grey version: grey * (1 - factor) + x * factor.
Result<Tensor> AdjustSaturation(const Tensor& img, double factor, const std::string& op);
// Shifts hue by `hue` turns (in [-0.5, 0.5]) in OpenCV's 8-bit full-range HSV
// (RGB2HSV_FULL: 256 hue steps per turn): h += trunc(hue * 255) mod 256.
Result<Tensor> AdjustHue(const Tensor& img, double hue, const std::string& op);

// {"op":"RandomColorAdjust","brightness":[lo,hi],"contrast":[lo,hi],
//  "saturation":[lo,hi],"hue":[lo,hi]} (defaults [1,1], [1,1], [1,1], [0,0]:
// no change). A single number v means [max(0, 1 - v), 1 + v] (hue: [-v, v],
// v <= 0.5). As MindSpore's RandomColorAdjustOp: the four adjustments are
// taken in a random order (Fisher-Yates: 3 draws); each whose range is not
// the identity draws its factor uniformly from its range and is applied.
// Input: HWC uint8 with 3 channels. Thread safety: immutable; Apply is safe
// from many threads.
class RandomColorAdjustOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomColorAdjust"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  // brightness, contrast, saturation, hue: [lo, hi]
  std::array<std::array<double, 2>, 4> ranges_{{{1, 1}, {1, 1}, {1, 1}, {0, 0}}};
};

// Checks an HWC uint8 image with 3 channels for `op`.
Result<ImageDims> CheckRgb(const Tensor& t, const std::string& op);
// Checks an HW uint8 image, or an HWC one with 1 or 3 channels, for `op`.
Result<ImageDims> CheckGrayOrRgb(const Tensor& t, const std::string& op);

}  // namespace mindrecord::ops
