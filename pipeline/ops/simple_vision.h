// MindSpore 2.x's fixed-parameter vision ops built from the shared kernels:
// HorizontalFlip, VerticalFlip, Crop, ResizedCrop, RandomGrayscale, Erase.
#pragma once

#include <vector>

#include "pipeline/ops/flip.h"
#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// {"op":"HorizontalFlip"} / {"op":"VerticalFlip"}: always mirrors an HW/HWC
// image (any element type) left-right / top-bottom.
// Thread safety: immutable; Apply is safe from many threads.
class FlipOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> MakeHorizontal(const nlohmann::json& spec);
  static Result<std::unique_ptr<TensorOp>> MakeVertical(const nlohmann::json& spec);
  explicit FlipOp(FlipAxis axis) : axis_(axis) {}
  std::string name() const override { return axis_ == FlipAxis::kHorizontal ? "HorizontalFlip" : "VerticalFlip"; }
  nlohmann::json ToJson() const override { return {{"op", name()}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  FlipAxis axis_;
};

// A fixed crop window: top/left in [0, 2^31), size from GetSize.
struct CropBox {
  int top = 0, left = 0;
  Size2 size;
  // Fails unless the window lies inside the h x w image (MindSpore raises
  // rather than padding).
  Status CheckInside(const ImageDims& d, const std::string& op) const;
};

// {"op":"Crop","coordinates":[top,left],"size":s | [h,w]}: the window
// [top, top+h) x [left, left+w) of an HW/HWC image (any numeric type); a
// window reaching outside the image is InvalidArgument.
// Thread safety: immutable; Apply is safe from many threads.
class CropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Crop"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  CropBox box_;
};

// {"op":"ResizedCrop","top":t,"left":l,"height":h,"width":w,"size":s | [h,w],
//  "interpolation":"bilinear"}: Crop of (t, l, h, w), then Resize to size
// (an int resizes the shorter side keeping the aspect ratio). HW/HWC uint8
// or float32. Thread safety: immutable; Apply is safe from many threads.
class ResizedCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "ResizedCrop"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  CropBox box_;
  Size2 size_;
  Interpolation interp_ = Interpolation::kBilinear;
};

// {"op":"RandomGrayscale","prob":0.1}: with probability prob, an HWC RGB
// image (uint8 or float32) becomes its luma (0.299 R + 0.587 G + 0.114 B)
// repeated in 3 channels; a 1-channel (HW or HWC) image is already gray and
// is returned as is. Always draws one number.
// Thread safety: immutable; Apply is safe from many threads.
class RandomGrayscaleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomGrayscale"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomGrayscale"}, {"prob", prob_}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double prob_ = 0.1;
};

// {"op":"ToPIL"}: MindSpore's ToPIL turns a decoded array into a PIL image
// for the PIL ops after it. Pipeline columns are arrays, and every op here
// takes arrays, so in a pipeline it checks that the value is an image
// PIL.Image.fromarray would take (a numeric HW or HWC array, 1 to 4 channels)
// and passes it on unchanged; called by hand (python/mindrecord) it returns a
// PIL image.
// Thread safety: stateless; Apply is safe from many threads.
class ToPILOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "ToPIL"; }
  nlohmann::json ToJson() const override { return {{"op", "ToPIL"}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
};

// {"op":"Erase","top":t,"left":l,"height":h,"width":w,"value":v | [r,g,b],
//  "inplace":false}: sets the window (clipped to the image) of an HWC image
// (uint8, saturated, or float32) to value. The op always writes its own
// buffer; "inplace" is kept for the spec (see python/README.md).
// Thread safety: immutable; Apply is safe from many threads.
class EraseOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Erase"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int top_ = 0, left_ = 0, height_ = 1, width_ = 1;
  std::vector<double> value_{0};
  bool inplace_ = false;
};

// {"op":"PadToSize","size":s | [h,w],"offset":null | o | [top,left],
//  "fill_value":0 | [r,g,b],"padding_mode":"constant"}: pads an HW/HWC
// image (uint8 or float32) to size, with the image's top-left corner at
// offset (null: centred, (size - image) / 2 rounded down). A size smaller
// than the image, or offset + image beyond size, is InvalidArgument.
// Thread safety: immutable; Apply is safe from many threads.
class PadToSizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "PadToSize"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
  bool has_offset_ = false;
  int off_top_ = 0, off_left_ = 0;
  nlohmann::json offset_spec_;  // as given, for ToJson
  FillValue fill_;
  PaddingMode mode_ = PaddingMode::kConstant;
};

// RandomResize's draw: bilinear, nearest, bicubic or area, uniformly
// (MindSpore's order), from one integer.
Interpolation DrawResizeInterpolation(std::mt19937_64& rng);

// {"op":"RandomResize","size":s | [h,w]}: Resize with an interpolation drawn
// uniformly per image from bilinear, nearest, bicubic and area (MindSpore's
// order). Draws one integer. Thread safety: immutable; Apply is safe from
// many threads.
class RandomResizeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomResize"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomResize"}, {"size", size_.ToJson()}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
};

}  // namespace mindrecord::ops
