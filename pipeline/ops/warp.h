// Rotations, affine and perspective warps (MindSpore's Rotate / Affine /
// Perspective kernels in image_utils.cc), and the ops built on the first two:
// Rotate, RandomRotation, Affine, RandomAffine (perspective ops:
// perspective.h).
#pragma once

#include <array>
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

// A 3x3 homography, row-major.
using Homography = std::array<double, 9>;

// `img` warped by `m` with cv::warpPerspective, outside filled with 0 (OpenCV's
// default constant border, as MindSpore's Perspective): with `inverse` m maps
// output pixel coordinates to input ones (WARP_INVERSE_MAP), else input to
// output. Output has the input's size. Area is taken as bilinear.
Result<Tensor> WarpPerspectiveImage(const Tensor& img, const ImageDims& d, const Homography& m, bool inverse,
                                    Interpolation interp, const std::string& op);

// {"op":"Rotate","degrees":d,"resample":"nearest","expand":false,
//  "center":null | [x, y],"fill_value":0 | [r,g,b]}: MindSpore's Rotate, a
// fixed counter-clockwise turn by `degrees` (RotateImage). Thread safety:
// immutable; Apply is safe from many threads.
class RotateOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Rotate"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double degrees_ = 0;
  Interpolation interp_ = Interpolation::kNearest;
  bool expand_ = false;
  std::optional<std::pair<double, double>> center_;
  FillValue fill_;
};

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

// {"op":"Affine","degrees":d,"translate":[tx, ty],"scale":s,"shear":[sx, sy],
//  "resample":"nearest","fill_value":0 | [r,g,b]}: MindSpore's Affine, one
// fixed warp (AffineImage) about the image centre: `degrees` clockwise,
// translate as fractions of the width / height ([-1, 1]), scale > 0, shears
// in degrees ("shear": s means [s, 0]). Thread safety: immutable; Apply is
// safe from many threads.
class AffineOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Affine"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double degrees_ = 0, tx_ = 0, ty_ = 0, scale_ = 1, shear_x_ = 0, shear_y_ = 0;
  Interpolation interp_ = Interpolation::kNearest;
  FillValue fill_;
};

// {"op":"RandomAffine","degrees":[lo, hi] | d,"translate":[x0, x1, y0, y1],
//  "scale":[lo, hi],"shear":[x0, x1, y0, y1],"resample":"nearest",
//  "fill_value":0}: MindSpore's RandomAffine. Per image, in this order:
// angle ~ U[degrees] (taken mod 360), tx ~ U[x0 W, x1 W], ty ~ U[y0 H, y1 H],
// scale ~ U[scale], shear_x ~ U[shear x0, x1], shear_y ~ U[shear y0, y1]; then
// Affine's warp. Shorthands: degrees d = [-d, d]; translate [x0, x1] = no
// vertical shift; shear s = [-s, s, 0, 0], [x0, x1] = no vertical shear.
// Defaults are the identity. Thread safety: immutable; Apply is safe from
// many threads.
class RandomAffineOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomAffine"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::array<double, 2> degrees_{0, 0};
  std::array<double, 4> translate_{0, 0, 0, 0};
  std::array<double, 2> scale_{1, 1};
  std::array<double, 4> shear_{0, 0, 0, 0};
  Interpolation interp_ = Interpolation::kNearest;
  FillValue fill_;
};

}  // namespace mindrecord::ops
