// Decode: encoded image bytes -> HWC uint8 RGB.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"Decode"} or {"op":"Decode","target_size":[h,w] | s}.
// With target_size, a JPEG is decoded with DCT-domain downscaling to the
// smallest scale (1/2, 1/4, 1/8; all 1/8 steps with "all_factors":true) whose
// output is still >= [h, w] (an int s: shorter side >= s). The output is that
// scaled image, not exactly target_size: follow with Resize/crop as usual.
// Input: a 1-D bytes or uint8 tensor. Thread safety: immutable; Apply is safe
// from many threads (one libturbojpeg handle per thread).
class DecodeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  DecodeOp(Size2 target, bool all_factors) : target_(target), all_factors_(all_factors) {}
  std::string name() const override { return "Decode"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Size2 target_;  // h == 0: full size
  bool all_factors_ = false;
};

// Checks that `t` holds encoded bytes (1-D bytes/uint8); `op` names the caller.
Status CheckEncoded(const Tensor& t, const std::string& op);

}  // namespace mindrecord::ops
