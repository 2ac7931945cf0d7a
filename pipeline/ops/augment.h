// The image operations of the augmentation policies (AutoAugment,
// RandAugment), with MindSpore's kernels (image_utils.cc ApplyAugment and the
// Posterize, Solarize, AutoContrast, Equalize, Invert, Sharpness ops). All
// take and give HWC uint8 RGB images (3 channels) and are pure functions.
#pragma once

#include <string>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// x & ~(2^(8 - bits) - 1): keeps the top `bits` bits (0..8).
Result<Tensor> Posterize(const Tensor& img, int bits, const std::string& op);
// 255 - x where x >= threshold.
Result<Tensor> Solarize(const Tensor& img, double threshold, const std::string& op);
// Per channel, maps [lo, hi] (the lowest and highest values present) to
// [0, 255]: clamp(int(x * 255 / (hi - lo) - lo * 255 / (hi - lo))); a channel
// with one value is kept.
Result<Tensor> AutoContrast(const Tensor& img, const std::string& op);
// cv::equalizeHist on each channel.
Result<Tensor> Equalize(const Tensor& img, const std::string& op);
// 255 - x.
Result<Tensor> Invert(const Tensor& img, const std::string& op);
// Blend with a smoothed copy (kernel [1 1 1; 1 5 1; 1 1 1] / 13, border
// pixels unsmoothed): x * factor + smooth * (1 - factor).
Result<Tensor> Sharpness(const Tensor& img, double factor, const std::string& op);

// One policy step by MindSpore's name (ShearX, ShearY, TranslateX,
// TranslateY, Rotate, Brightness, Color, Contrast, Sharpness, Posterize,
// Solarize, AutoContrast, Equalize, Invert, Identity) at `magnitude`, as
// MindSpore's ApplyAugment: shears of `magnitude` radians about the image
// centre, translations by int(magnitude) pixels, rotation by `magnitude`
// degrees, enhancements by a factor 1 + magnitude, posterize to
// int(magnitude) bits, solarize above `magnitude`. Geometric steps use
// `interp` and fill with `fill`.
Result<Tensor> ApplyAugment(const Tensor& img, const std::string& name, double magnitude, Interpolation interp,
                            const FillValue& fill, const std::string& op);

}  // namespace mindrecord::ops
