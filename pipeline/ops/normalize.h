// Normalize: per-channel (x - mean) / std, and Rescale: x * r + s; output float32.
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"Normalize","mean":[m0,m1,m2],"std":[s0,s1,s2]}: on an HW/HWC uint8
// or float32 image (channels last), out = (x - mean[c]) / std[c] in float32.
// Values apply to the raw pixel range (MindSpore convention: for uint8 input
// use e.g. mean [123.675, 116.28, 103.53], std [58.395, 57.12, 57.375]).
// One value broadcasts to all channels; otherwise the count must equal C.
// "is_hwc": false (MindSpore's argument) takes a [C, H, W] image and gives
// float32 [C, H, W], plane by plane.
// Thread safety: immutable; Apply is safe from many threads.
//
// {"op":"NormalizeHWC2CHW", same parameters} is Normalize then HWC2CHW in one
// pass ([H, W, C] in, float32 [C, H, W] out): what the plan optimizer
// (fuse.h) makes of the pair.
class NormalizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  static Result<std::unique_ptr<TensorOp>> MakeHWC2CHW(const nlohmann::json& spec);
  NormalizeOp(std::vector<double> mean, std::vector<double> std, bool chw = false, bool planar_in = false)
      : mean_(std::move(mean)), std_(std::move(std)), chw_(chw), planar_in_(planar_in) {}
  std::string name() const override { return chw_ ? "NormalizeHWC2CHW" : "Normalize"; }
  nlohmann::json ToJson() const override {
    nlohmann::json j = {{"op", name()}, {"mean", mean_}, {"std", std_}};
    if (planar_in_) j["is_hwc"] = false;
    return j;
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const override;

 private:
  Result<Tensor> Run(const Tensor& input, const OutputSlot* slot) const;
  Result<Tensor> RunPlanar(const Tensor& input) const;
  std::vector<double> mean_;
  std::vector<double> std_;
  bool chw_;        // output planar [C, H, W]
  bool planar_in_;  // "is_hwc": false: input and output [C, H, W] (MindSpore's is_hwc)
};

// {"op":"ToTensor","output_type":"float32"}: MindSpore's vision.ToTensor: an
// [H, W, C] or [H, W] uint8 or float32 image -> [C, H, W] (C = 1 for an HW
// image) holding x / 255, in `output_type` (any numeric type; default
// float32: the values NormalizeHWC2CHW with mean 0 and std 255 gives, in one
// pass, written into a batch slot where it can be).
// Thread safety: immutable; Apply is safe from many threads.
class ToTensorOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit ToTensorOp(TensorType out) : out_(out), scale_({0.0}, {255.0}, true) {}
  std::string name() const override { return "ToTensor"; }
  nlohmann::json ToJson() const override { return {{"op", "ToTensor"}, {"output_type", TensorTypeName(out_)}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const override;

 private:
  Result<Tensor> Run(Tensor input, std::mt19937_64& rng, const OutputSlot* slot) const;
  TensorType out_;
  NormalizeOp scale_;
};

// {"op":"Rescale","rescale":r,"shift":s}: MindSpore's vision.Rescale, any
// numeric tensor -> float32 x * r + s (e.g. r = 1/255, s = 0 for [0, 1]).
// Thread safety: immutable; Apply is safe from many threads.
class RescaleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  RescaleOp(double rescale, double shift) : rescale_(rescale), shift_(shift) {}
  std::string name() const override { return "Rescale"; }
  nlohmann::json ToJson() const override { return {{"op", "Rescale"}, {"rescale", rescale_}, {"shift", shift_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double rescale_;
  double shift_;
};

}  // namespace mindrecord::ops
