// MindSpore's FiveCrop and TenCrop (Python ops over PIL images in MindSpore:
// py_transforms_util.py five_crop / ten_crop), on HW/HWC images of any
// numeric type. Each gives its crops as separate columns: a map names them
// with output_columns, or the next op (e.g. a Python callable stacking them)
// takes them all.
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// The five (h x w) crops of MindSpore's five_crop, in its order: top-left,
// top-right, bottom-left, bottom-right, centre. The centre's top is
// round((H - h) / 2) with Python's round (half to even), its left likewise.
// A crop larger than the image is InvalidArgument naming `op`.
Result<std::vector<Tensor>> FiveCrops(const Tensor& img, const ImageDims& d, int h, int w, const std::string& op);

// {"op":"FiveCrop","size":s | [h,w]}: one image in, its five crops out
// (FiveCrops). Thread safety: immutable; ApplyColumns is safe from many threads.
class FiveCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "FiveCrop"; }
  nlohmann::json ToJson() const override { return {{"op", "FiveCrop"}, {"size", size_.ToJson()}}; }
  int num_outputs() const override { return 5; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
};

// {"op":"TenCrop","size":s | [h,w],"use_vertical_flip":false}: one image
// in, ten crops out: the five crops of the image, then the five crops of the
// image flipped left-right (top-bottom with use_vertical_flip), as
// MindSpore's ten_crop. Thread safety: immutable; ApplyColumns is safe from
// many threads.
class TenCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "TenCrop"; }
  nlohmann::json ToJson() const override {
    return {{"op", "TenCrop"}, {"size", size_.ToJson()}, {"use_vertical_flip", vertical_}};
  }
  int num_outputs() const override { return 10; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
  bool vertical_ = false;
};

}  // namespace mindrecord::ops
