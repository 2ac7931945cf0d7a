// Rotations and affine warps (MindSpore's Rotate / Affine kernels in
// image_utils.cc), and the RandomRotation op.
#pragma once

#include <optional>
#include <utility>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// `img` rotated counter-clockwise by `degrees` about `center` ((x, y);
// default the image centre ((w - 1) / 2, (h - 1) / 2)), outside filled with
// `fill`: cv::getRotationMatrix2D + cv::warpAffine. With `expand` the output
// is the rotated image's bounding box (RotatedRect::boundingRect2f, sizes
// rounded), else the input's size. uint8 or float32, HW or HWC.
Result<Tensor> RotateImage(const Tensor& img, const ImageDims& d, double degrees,
                           std::optional<std::pair<double, double>> center, Interpolation interp, bool expand,
                           const FillValue& fill, const std::string& op);

// MindSpore's affine warp about the image centre ((w - 1) / 2, (h - 1) / 2):
// rotation `degrees`, translation (tx, ty) in pixels, `scale`, shears
// (sx, sy) in degrees (GetAffineMatrix: M = T * C * R * S * SHy * SHx * C^-1,
// the forward map given to cv::warpAffine). Output has the input's size.
Result<Tensor> AffineImage(const Tensor& img, const ImageDims& d, double degrees, double tx, double ty,
                           double scale, double shear_x, double shear_y, Interpolation interp, const FillValue& fill,
                           const std::string& op);

// {"op":"RandomRotation","degrees":[lo, hi],"resample":"nearest",
//  "expand":false,"center":null | [x, y],"fill_value":0 | [r,g,b]}: rotates
// by an angle drawn uniformly from [lo, hi] (one draw). resample is
// nearest, bilinear, bicubic or area (which warps take as bilinear). Thread safety: immutable; Apply is safe from
// many threads.
class RandomRotationOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomRotation"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double lo_ = 0, hi_ = 0;
  Interpolation interp_ = Interpolation::kNearest;
  bool expand_ = false;
  std::optional<std::pair<double, double>> center_;
  FillValue fill_;
};

}  // namespace mindrecord::ops
