// Fused decode ops that the plan optimizer emits (see fuse.h): they read the
// JPEG header first, work out the resolution the next op needs, and decode
// with DCT-domain downscaling straight to just above it. Non-JPEG inputs take
// the plain path (full decode, then the op).
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/random_resized_crop.h"

namespace mindrecord::ops {

// {"op":"DecodeResize","size":[h,w] | s,"interpolation":"bilinear","all_factors":false}
// = Decode + Resize with the same output size (pixel values differ slightly:
// the downscale is partly done by the IDCT). Thread safety: immutable; Apply
// is safe from many threads.
class DecodeResizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  DecodeResizeOp(Size2 size, Interpolation interp, bool all_factors)
      : size_(size), interp_(interp), all_factors_(all_factors) {}
  std::string name() const override { return "DecodeResize"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
  Interpolation interp_;
  bool all_factors_;
};

// {"op":"DecodeRandomResizedCrop", ...RandomResizedCrop parameters...,
//  "all_factors":false} = Decode + RandomResizedCrop: the crop window is drawn
// from the header's dimensions with exactly the same rng draws as the unfused
// pair (same window for the same seed), then the JPEG is decoded at the
// smallest scale that keeps the window >= the output size, and the scaled
// window is resized. {"op":"RandomCropDecodeResize", same parameters} (MindSpore's
// name) builds the same op. Only the window's rows and columns of a JPEG are
// decoded. Thread safety: immutable; Apply is safe from many threads.
class DecodeRandomResizedCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  DecodeRandomResizedCropOp(RandomResizedCropParams p, bool all_factors)
      : p_(std::move(p)), all_factors_(all_factors) {}
  std::string name() const override { return "DecodeRandomResizedCrop"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  RandomResizedCropParams p_;
  bool all_factors_;
};

}  // namespace mindrecord::ops
