// CenterCrop and RandomCrop on HW/HWC uint8 or float32 images.
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// The window [top, top+h) x [left, left+w) of `img`; parts outside the image
// are filled with `fill` (converted to the element type, saturating as
// OpenCV's Scalar fill does). Works for any numeric element type.
Tensor CropWindow(const Tensor& img, const ImageDims& d, int top, int left, int h, int w, double fill = 0);

// The dims of an HW/HWC image of any numeric element type (ops that only
// move pixels: crops, flips, patches); InvalidArgument naming `op` otherwise.
Result<ImageDims> CropDims(const Tensor& t, const std::string& op);

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

// The parameters RandomCrop and RandomCropWithBBox share: the window size
// and the padding added first. `fill_key` is the fill parameter's name
// ("fill" for RandomCrop, "fill_value" for RandomCropWithBBox, as MindSpore
// names them).
struct RandomCropParams {
  Size2 size;
  Padding pad;
  nlohmann::json padding_spec;  // as given, for ToJson
  bool pad_if_needed = false;
  FillValue fill;
  PaddingMode mode = PaddingMode::kConstant;

  static Result<RandomCropParams> FromJson(const nlohmann::json& spec, const std::string& op, const char* fill_key,
                                           bool fill_byte_range);
  // Adds the parameters after j's "op" and "size".
  void ToJson(nlohmann::json* j, const char* fill_key) const;
  // The padding for an image of d: `pad`, grown to the window when
  // pad_if_needed.
  Padding PaddingFor(const ImageDims& d) const;
  // After padding by `p`, the image `d` must hold the window.
  Status CheckFits(const ImageDims& padded, const std::string& op) const;
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
  RandomCropParams p_;
};

}  // namespace mindrecord::ops
