// {"op":"TimeStretch","hop_length":200,"n_freq":201,"fixed_rate":1.0}:
// MindSpore's (torchaudio's) phase vocoder: a complex spectrogram <...,
// n_freq, time, complex=2> sped up by fixed_rate (> 1: fewer frames, < 1:
// more), ceil(time / fixed_rate) frames: magnitudes interpolated between the
// two frames around each new time step, phases advanced by the bins'
// expected advance per hop plus their wrapped deviation. A rate of 1 returns
// the input as it is. A frequency axis other than n_freq is InvalidArgument
// (MindSpore's would read the wrong phase advance). Integer input computes
// in float32, float64 in float64.
// {"op":"PhaseVocoder","rate":r,"phase_advance":[a_0, ... a_freq-1]}: the
// same stretch with each bin's expected phase advance per frame given
// (MindSpore's PhaseVocoder, torchaudio's phase_vocoder); the input's
// frequency axis must have one advance per bin.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

// One frequency row of a complex spectrogram, z [frames, 2], stretched by
// `rate` into y [out_frames, 2] (out_frames = ceil(frames / rate)), the
// phase advancing `advance` radians a frame.
template <typename T>
void StretchRow(const T* z, int64_t frames, double rate, double advance, T* y, int64_t out_frames);

class TimeStretchOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  TimeStretchOp(double hop, int64_t n_freq, double rate) : hop_(hop), n_freq_(n_freq), rate_(rate) {}
  std::string name() const override { return "TimeStretch"; }
  nlohmann::json ToJson() const override {
    return {{"op", "TimeStretch"}, {"hop_length", hop_}, {"n_freq", n_freq_}, {"fixed_rate", rate_}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double hop_;
  int64_t n_freq_;
  double rate_;
};

class PhaseVocoderOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  PhaseVocoderOp(double rate, std::vector<double> advance) : rate_(rate), advance_(std::move(advance)) {}
  std::string name() const override { return "PhaseVocoder"; }
  nlohmann::json ToJson() const override {
    return {{"op", "PhaseVocoder"}, {"rate", rate_}, {"phase_advance", advance_}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double rate_;
  std::vector<double> advance_;
};

}  // namespace mindrecord::ops
