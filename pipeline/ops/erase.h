// Erasing rectangles: CutOut (MindSpore's CutOutOp / Erase kernel) and
// RandomErasing (MindSpore's Python RandomErasing, torchvision's semantics
// with MindSpore's parameter draws).
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Sets the window [top, top+h) x [left, left+w) (clipped to the image) of an
// image to `value[c]` per channel: HWC (`hwc`) or CHW, uint8 (saturated) or
// float32; a 2-D image has one channel. `value` holds one entry per channel
// or one for all. In place on `img`'s own buffer.
Status FillWindow(Tensor* img, bool hwc, int top, int left, int h, int w, const std::vector<double>& value);

// {"op":"CutOut","length":L,"num_patches":1,"is_hwc":true}: num_patches
// black L x L squares. As MindSpore's Erase kernel (bounded = false): each
// top-left corner is drawn as U{0..H+L} - L, then U{0..W+L} - L, so a square
// may be clipped by the border or miss the image. L larger than the image is
// InvalidArgument. Input HWC (is_hwc) or CHW, uint8 or float32.
// Thread safety: immutable; Apply is safe from many threads.
class CutOutOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "CutOut"; }
  nlohmann::json ToJson() const override {
    return {{"op", "CutOut"}, {"length", length_}, {"num_patches", patches_}, {"is_hwc", hwc_}};
  }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int length_ = 1;
  int patches_ = 1;
  bool hwc_ = true;
};

// {"op":"RandomErasing","prob":0.5,"scale":[0.02,0.33],"ratio":[0.3,3.3],
//  "value":0 | [v0,v1,v2] | "random","max_attempts":10} on a CHW image
// (after ToTensor / HWC2CHW; uint8 or float32). With probability prob, up to
// max_attempts tries of area = U(scale) * H * W, aspect = U(ratio),
// w = round(sqrt(area * aspect)), h = round(w / aspect); the first with
// h < H and w < W is erased at a uniform position with `value` ("random":
// N(0, 1) per element, saturated for uint8). No fitting try: unchanged.
// Thread safety: immutable; Apply is safe from many threads.
class RandomErasingOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomErasing"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double prob_ = 0.5;
  std::array<double, 2> scale_{0.02, 0.33};
  std::array<double, 2> ratio_{0.3, 3.3};
  std::vector<double> value_{0};
  bool random_value_ = false;
  int max_attempts_ = 10;
};

}  // namespace mindrecord::ops
