// MindSpore's Perspective (a C++ kernel: image_utils.cc Perspective) and
// RandomPerspective (a Python op over PIL images in MindSpore:
// py_transforms_util.py get_perspective_params + perspective), both on
// HW/HWC uint8 or float32 images through WarpPerspectiveImage (warp.h).
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/warp.h"

namespace mindrecord::ops {

// Four (x, y) corners: top-left, top-right, bottom-right, bottom-left.
using Quad = std::array<std::array<double, 2>, 4>;

// {"op":"Perspective","start_points":[[x,y] x 4],"end_points":[[x,y] x 4],
//  "interpolation":"bilinear"}: the homography taking start_points to
// end_points (cv::getPerspectiveTransform, DECOMP_LU, on float points) warps
// the image (cv::warpPerspective, output of the input's size, 0 outside), as
// MindSpore's kernel. Points are int32; three collinear points in either list
// are refused (no invertible homography). Interpolation: nearest, bilinear,
// bicubic or area (a warp takes area as bilinear, as OpenCV does).
// Thread safety: immutable; Apply is safe from many threads.
class PerspectiveOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Perspective"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Quad start_{}, end_{};
  Homography forward_{};  // start -> end, computed once
  Interpolation interp_ = Interpolation::kBilinear;
};

// {"op":"RandomPerspective","distortion_scale":0.5,"prob":0.5,
//  "interpolation":"bicubic"}: with probability prob (one draw, u < prob, as
// MindSpore's `prob > random.random()`), the corners of the W x H image,
// (0, 0), (W-1, 0), (W-1, H-1), (0, H-1), move to corners drawn as MindSpore's
// get_perspective_params does, with dw = int(W / 2 * scale), dh = int(H / 2
// * scale) and inclusive integer draws in this order: top-left x in [0, dw],
// y in [0, dh]; top-right x in [W-dw-1, W-1], y in [0, dh]; bottom-right x
// in [W-dw-1, W-1], y in [H-dh-1, H-1]; bottom-left x in [0, dw], y in
// [H-dh-1, H-1]. The warp follows PIL's Image.transform(PERSPECTIVE) that
// MindSpore calls: coefficients by least squares (so degenerate corners on
// 1-pixel images still give a result), pixel centres at +0.5, 0 outside;
// the samples are OpenCV's (see python/README.md). Interpolation: nearest,
// bilinear or bicubic. Thread safety: immutable; Apply is safe from many
// threads.
class RandomPerspectiveOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomPerspective"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double distortion_scale_ = 0.5;
  double prob_ = 0.5;
  Interpolation interp_ = Interpolation::kBicubic;
};

}  // namespace mindrecord::ops
