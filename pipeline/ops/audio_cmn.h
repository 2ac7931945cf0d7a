// {"op":"SlidingWindowCmn","cmn_window":600,"min_cmn_window":100,
// "center":false,"norm_vars":false}: MindSpore's (Kaldi's) sliding-window
// cepstral mean normalization of features <..., time, freq> (the frames
// along the second-to-last axis, as MindSpore's kernel reads them): each
// frame minus the mean of a window of frames around it (centred, or the
// cmn_window frames before it, at least min_cmn_window, moved inside the
// row at its ends); norm_vars also divides by the window's standard
// deviation. A 2-D input of one frame gives its features squeezed to
// 1-D (MindSpore's). Integer input computes in float32, float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class SlidingWindowCmnOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  SlidingWindowCmnOp(int64_t window, int64_t min_window, bool center, bool norm_vars)
      : window_(window), min_window_(min_window), center_(center), norm_vars_(norm_vars) {}
  std::string name() const override { return "SlidingWindowCmn"; }
  nlohmann::json ToJson() const override {
    return {{"op", "SlidingWindowCmn"}, {"cmn_window", window_}, {"min_cmn_window", min_window_},
            {"center", center_}, {"norm_vars", norm_vars_}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t window_, min_window_;
  bool center_, norm_vars_;
};

}  // namespace mindrecord::ops
