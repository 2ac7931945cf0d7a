// IIR filters of MindSpore's audio module over waveforms <..., time>, each
// row from a zero state (integer input computes in float32, float64 in
// float64): y[n] = (sum_j b[j] x[n - j] - sum_{j>=1} a[j] y[n - j]) / a[0].
// - {"op":"LFilter","a_coeffs":[..],"b_coeffs":[..],"clamp":true}: the
//   output clamped to [-1, 1] (the recursion keeps the unclamped values).
// - {"op":"Filtfilt",...}: forward unclamped, then backward (zero phase).
// - {"op":"Biquad","b0","b1","b2","a0","a1","a2"} and the biquads of SoX
//   that MindSpore names (coefficients from their parameters, clamped):
//   AllpassBiquad, BandBiquad, BandpassBiquad, BandrejectBiquad, BassBiquad,
//   EqualizerBiquad, HighpassBiquad, LowpassBiquad, TrebleBiquad,
//   DeemphBiquad (44.1 / 48 kHz), RiaaBiquad (44.1 / 48 / 88.2 / 96 kHz).
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class FilterOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return spec_["op"].get<std::string>(); }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  nlohmann::json spec_;          // the parameters as given (defaults filled)
  std::vector<double> a_, b_;    // divided by a[0]; a_[0] == 1
  bool clamp_ = true;
  bool both_ways_ = false;       // Filtfilt
};

}  // namespace mindrecord::ops
