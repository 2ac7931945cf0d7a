// CenterCrop and RandomCrop on HW/HWC uint8 or float32 images.
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// The window [top, top+h) x [left, left+w) of `img`; parts outside the image
// are filled with `fill`. Works for any element type.
Tensor CropWindow(const Tensor& img, const ImageDims& d, int top, int left, int h, int w, double fill = 0);

// {"op":"CenterCrop","size":[h,w] | s}. Window top = (H - h) / 2, left =
// (W - w) / 2 (integer division); a crop larger than the image is padded with
// zeros around it. Thread safety: immutable; Apply is safe from many threads.
class CenterCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit CenterCropOp(Size2 size) : size_(size) {}
  std::string name() const override { return "CenterCrop"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
};

// {"op":"RandomCrop","size":[h,w] | s,"padding":p | [lr,tb] | [l,t,r,b],
//  "pad_if_needed":false,"fill":0 | [r,g,b],"padding_mode":"constant"}
// (torchvision semantics; modes constant, edge, reflect, symmetric). After
// padding, the window offset is uniform over all positions; an image still
// smaller than the crop is an InvalidArgument. Draws two integers from rng.
// Thread safety: immutable; Apply is safe from many threads.
class RandomCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomCrop"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
  Padding pad_;
  nlohmann::json padding_spec_;  // as given, for ToJson
  bool pad_if_needed_ = false;
  FillValue fill_;
  PaddingMode mode_ = PaddingMode::kConstant;
};

}  // namespace mindrecord::ops
