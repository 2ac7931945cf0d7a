// Masking ops of MindSpore's audio module (SpecAugment), over <..., freq,
// time> (integer input becomes float32; float64 stays float64). One mask per
// row, the same for all its channels:
// - {"op":"TimeMasking","iid_masks":false,"mask_param":w,"mask_start":s,
//   "mask_value":v} and FrequencyMasking: iid_masks false masks [s, s + w)
//   of the time (frequency) axis with v; true draws the width from [0, w]
//   and then the start from [0, length - width], from the row's seed (so
//   reproducible at any worker count; MindSpore's kernels keep a generator
//   of their own).
// - {"op":"MaskAlongAxis","mask_start","mask_width","mask_value","axis"}:
//   [start, start + width) along axis 1 (frequency) or 2 (time).
// - {"op":"MaskAlongAxisIID","mask_param","mask_value","axis"}: as iid masks.
// A mask past the axis's end, or a mask_param longer than the axis, is
// InvalidArgument naming the op.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class AxisMaskOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return name_; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return random_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::string name_;
  bool random_ = false;  // width and start drawn per row
  int64_t width_ = 0;    // the width, or (random) the largest one
  int64_t start_ = 0;
  double value_ = 0;
  int axis_ = 2;  // 1: frequency, 2: time
};

}  // namespace mindrecord::ops
