// {"op":"Resample","orig_freq":16000,"new_freq":16000,
// "resample_method":"sinc_interpolation"|"kaiser_window",
// "lowpass_filter_width":6,"rolloff":0.99,"beta":14.769656459379492}:
// MindSpore's (and torchaudio's) band-limited sinc resampling of waveforms
// <..., time>: the rates reduced by their common divisor to o -> d, each
// output phase a windowed sinc of 2 W + o taps (Hann-like or Kaiser window,
// cut off at rolloff * min(o, d)), read every o input samples;
// ceil(d * length / o) samples out. Equal rates return the input as it is.
// The kernel is computed once when small; otherwise (rates without a large
// common divisor) each output sample computes the few taps it needs.
// Integer input computes in float32, float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class ResampleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Resample"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  // The weight of tap `tap` of output phase `phase`.
  double Weight(int64_t phase, int64_t tap) const;
  template <typename T>
  void Row(const T* x, int64_t len, T* out, int64_t out_len) const;

  nlohmann::json spec_;
  bool identity_ = false;
  int64_t o_ = 1, d_ = 1, width_ = 0, taps_ = 0;
  double base_ = 1, lpw_ = 6, beta_ = 0, i0_beta_ = 1;
  bool kaiser_ = false;
  std::vector<double> kernel_;  // [d, taps], when small enough
};

}  // namespace mindrecord::ops
