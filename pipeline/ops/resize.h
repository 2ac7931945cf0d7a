// Resize: HW/HWC uint8 or float32 image to a new size.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Output (height, width) for `size` applied to an h x w image: [h, w] is
// exact; an int s resizes the shorter side to s and keeps the aspect ratio
// (longer side = floor(s * long / short), as torchvision).
void ResizeTarget(const Size2& size, int h, int w, int* out_h, int* out_w);

// Resizes `img` (checked by CheckImage) to out_h x out_w. `op` names the
// caller in errors.
Result<Tensor> ResizeImage(const Tensor& img, const ImageDims& d, int out_h, int out_w, Interpolation interp,
                           const std::string& op);

// {"op":"Resize","size":[h,w] | s,"interpolation":"bilinear"}; interpolation
// is nearest, bilinear (default), bicubic or area.
// Thread safety: immutable; Apply is safe from many threads.
class ResizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ResizeOp(Size2 size, Interpolation interp) : size_(size), interp_(interp) {}
  std::string name() const override { return "Resize"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  const Size2& size() const { return size_; }
  Interpolation interpolation() const { return interp_; }

 private:
  Size2 size_;
  Interpolation interp_;
};

// Reads "interpolation" (default bilinear) for `op`.
Result<Interpolation> GetInterpolation(const nlohmann::json& spec, const std::string& op);

}  // namespace mindrecord::ops
