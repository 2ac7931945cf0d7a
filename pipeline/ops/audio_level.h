// Sample-level ops of MindSpore's audio module over waveforms <..., time>
// (integer input computes in float32, float64 in float64):
// - {"op":"Gain","gain_db":1.0}: x * 10^(gain_db / 20).
// - {"op":"Vol","gain":g,"gain_type":"amplitude"|"power"|"db"}: x * g,
//   x * sqrt(g) or x * 10^(g / 20), then clamped to [-1, 1].
// - {"op":"DCShift","shift":s,"limiter_gain":l}: x + s clamped to [-1, 1];
//   with a limiter gain other than s, the samples beyond the threshold
//   1 - (|s| - l) on the shifted side are compressed towards it (SoX's dcshift).
// - {"op":"Fade","fade_in_len":0,"fade_out_len":0,"fade_shape":"linear"}: the
//   first and last samples of each row scaled by the fade curve (linear,
//   exponential, logarithmic, quarter_sine, half_sine).
// - {"op":"MuLawEncoding","quantization_channels":256}: int32 codes in
//   [0, channels); {"op":"MuLawDecoding",...}: codes back to [-1, 1].
// - {"op":"ComputeDeltas","win_length":5,"pad_mode":"edge"}: the delta
//   (local slope) of each row of <..., freq, time>.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op.h"

namespace mindrecord::ops {

// Gain, Vol and DCShift: a function of each sample alone.
class SampleGainOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return spec_["op"].get<std::string>(); }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  nlohmann::json spec_;
  enum class Kind : uint8_t { kScale, kScaleClamped, kDcShift } kind_ = Kind::kScale;
  double factor_ = 1.0;          // kScale, kScaleClamped
  double shift_ = 0, limiter_ = 0;  // kDcShift
};

class FadeOp : public TensorOp {
 public:
  enum class Curve : uint8_t { kLinear, kExponential, kLogarithmic, kQuarterSine, kHalfSine };
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  FadeOp(int64_t in, int64_t out, Curve shape) : in_(in), out_(out), shape_(shape) {}
  std::string name() const override { return "Fade"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t in_, out_;
  Curve shape_;
};

class MuLawOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MuLawOp(bool encode, int64_t channels) : encode_(encode), channels_(channels) {}
  std::string name() const override { return encode_ ? "MuLawEncoding" : "MuLawDecoding"; }
  nlohmann::json ToJson() const override { return {{"op", name()}, {"quantization_channels", channels_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  bool encode_;
  int64_t channels_;
};

class ComputeDeltasOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ComputeDeltasOp(int64_t win_length, Border pad_mode) : win_length_(win_length), pad_mode_(pad_mode) {}
  std::string name() const override { return "ComputeDeltas"; }
  nlohmann::json ToJson() const override {
    return {{"op", "ComputeDeltas"}, {"win_length", win_length_}, {"pad_mode", BorderName(pad_mode_)}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t win_length_;
  Border pad_mode_;
};

}  // namespace mindrecord::ops
