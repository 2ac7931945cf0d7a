// The image operations of the augmentation policies (AutoAugment,
// RandAugment) and of the point ops (point_ops.h), with MindSpore's kernels
// (image_utils.cc ApplyAugment, AutoContrast, Equalize and the Posterize,
// Solarize, Invert, Sharpness ops). All take and give uint8 images and are
// pure functions; each states the shapes it takes, as MindSpore's does.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// x & ~(2^(8 - bits) - 1): keeps the top `bits` bits (0..8). HW or HWC.
Result<Tensor> Posterize(const Tensor& img, int bits, const std::string& op);
// 255 - x for x in [lo, hi] when lo < hi, for x >= lo when lo == hi (as
// MindSpore's Solarize with threshold (min, max)). HW or HWC, 1 or 3 channels.
Result<Tensor> Solarize(const Tensor& img, double lo, double hi, const std::string& op);
// 255 - x where x >= threshold.
Result<Tensor> Solarize(const Tensor& img, double threshold, const std::string& op);
// Per channel, maps [lo, hi] to [0, 255]: clamp(int(x * 255 / (hi - lo) -
// lo * 255 / (hi - lo))), in float as MindSpore's; a channel with hi <= lo is
// kept. lo and hi come from the channel's histogram with the `ignore` values
// removed, then int(cutoff) percent of the remaining pixels cut from each end
// (MindSpore passes the cutoff on as a whole percentage). HW or HWC, 1 or 3
// channels; cutoff in [0, 50), ignore values in [0, 255].
Result<Tensor> AutoContrast(const Tensor& img, double cutoff, const std::vector<int>& ignore,
                            const std::string& op);
// AutoContrast with cutoff 0 and nothing ignored: [min, max] -> [0, 255].
Result<Tensor> AutoContrast(const Tensor& img, const std::string& op);
// cv::equalizeHist on each channel. HW or HWC, 1 or 3 channels.
Result<Tensor> Equalize(const Tensor& img, const std::string& op);
// 255 - x. HWC with 3 channels (MindSpore's Invert takes no other).
Result<Tensor> Invert(const Tensor& img, const std::string& op);
// Blend with a smoothed copy (kernel [1 1 1; 1 5 1; 1 1 1] / 13, border
// pixels unsmoothed): x * factor + smooth * (1 - factor). HW or HWC.
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
