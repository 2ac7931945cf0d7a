// MindSpore's SlicePatches (kernels/image/slice_patches_op.cc and
// image_utils.cc SlicePatches): one image in, num_height * num_width
// patches out, as separate columns.
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"SlicePatches","num_height":1,"num_width":1,"slice_mode":"pad",
//  "fill_value":0}: cuts an HW/HWC image (any numeric type) into a
// num_height x num_width grid of equal patches, given row by row. A patch is
// ceil(H / num_height) x ceil(W / num_width) in "pad" mode (the image padded
// on the right and bottom with fill_value, in [0, 255]), floor(...) in "drop"
// mode (the remainder dropped). num_height > H or num_width > W is
// InvalidArgument. With 1 x 1 the input (numeric, rank >= 2) is the one
// output, unchanged, as MindSpore does. num_height * num_width is at most
// 2^20 (the output columns). Thread safety: immutable; ApplyColumns is safe
// from many threads.
class SlicePatchesOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "SlicePatches"; }
  nlohmann::json ToJson() const override;
  int num_outputs() const override { return num_h_ * num_w_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  int num_h_ = 1, num_w_ = 1;
  bool drop_ = false;
  int fill_ = 0;
};

}  // namespace mindrecord::ops
