// Detection ops on an image and its boxes (MindSpore's *WithBBox ops and
// bounding_box.cc): two columns in, two out. Boxes are [n, k >= 4] rows
// (x, y, width, height, extra columns kept as they are), as MindSpore and the
// project's VOC/COCO converters lay them out; results are float32.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Boxes read as float32 [n, k] after MindSpore's checks against an image of
// width x height: rank 2, k >= 4, x >= 0, y >= 0, x + w <= width,
// y + h <= height. Errors are InvalidArgument naming `op` and the box.
Result<Tensor> CheckBoxes(const Tensor& boxes, int width, int height, const std::string& op);

// MindSpore's UpdateBBoxesForCrop for the window [x0, x1) x [y0, y1) of
// checked float32 boxes: boxes that do not touch the window are dropped, the
// others clipped to it and moved into its coordinates (extra columns kept).
Tensor CropBoxes(const Tensor& boxes, float x0, float y0, float x1, float y1);

// MindSpore's UpdateBBoxesForResize: x and width times sx, y and height times
// sy, in place on checked float32 boxes.
void ScaleBoxes(Tensor* boxes, float sx, float sy);

// ResizeWithBBox's kernel: the image resized to `size` (an int sets the
// shorter side) with `interp`, and the boxes scaled along.
Result<std::vector<Tensor>> ResizeWithBoxes(std::vector<Tensor> inputs, const Size2& size, Interpolation interp,
                                            const std::string& op);

// Shared base: (image, boxes) in and out; Apply on one column is an error.
// Thread safety: immutable; ApplyColumns is safe from many threads.
class ImageBoxesOp : public TensorOp {
 public:
  int num_inputs() const override { return 2; }
  int num_outputs() const override { return 2; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

  // The image's dims and the checked boxes, for `op`.
  static Result<std::pair<ImageDims, Tensor>> Inputs(const std::vector<Tensor>& inputs, const std::string& op);
  static std::vector<Tensor> Pair(Tensor image, Tensor boxes);
};

// {"op":"RandomHorizontalFlipWithBBox","p":0.5} / {"op":"RandomVerticalFlipWithBBox","p":0.5}:
// with probability p (one draw) mirrors the image and each box
// (x' = W - x - w; vertical: y' = H - y - h).
class RandomFlipWithBBoxOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> MakeHorizontal(const nlohmann::json& spec);
  static Result<std::unique_ptr<TensorOp>> MakeVertical(const nlohmann::json& spec);
  RandomFlipWithBBoxOp(bool vertical, double p) : vertical_(vertical), p_(p) {}
  std::string name() const override {
    return vertical_ ? "RandomVerticalFlipWithBBox" : "RandomHorizontalFlipWithBBox";
  }
  nlohmann::json ToJson() const override { return {{"op", name()}, {"p", p_}}; }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  bool vertical_;
  double p_;
};

// {"op":"ResizeWithBBox","size":[h,w] | s,"interpolation":"bilinear"}: Resize
// (an int s sets the shorter side) and boxes scaled by (W'/W, H'/H).
class ResizeWithBBoxOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ResizeWithBBoxOp(Size2 size, Interpolation interp) : size_(size), interp_(interp) {}
  std::string name() const override { return "ResizeWithBBox"; }
  nlohmann::json ToJson() const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
  Interpolation interp_;
};

}  // namespace mindrecord::ops
