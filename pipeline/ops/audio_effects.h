// SoX's effects in MindSpore's audio module (torchaudio's algorithms), over
// waveforms <..., time>; integer input computes in float32, float64 in
// float64:
// - {"op":"Contrast","enhancement_amount":75}: sin(t + a sin 4t), t = x pi/2,
//   a = amount / 750 (a compressor-like distortion).
// - {"op":"Overdrive","gain":20,"color":20}: a cubic soft clipper on the
//   input raised by `gain` dB and offset by color / 200, then a DC-blocking
//   filter, mixed with the dry signal; clamped to [-1, 1].
// - {"op":"Phaser","sample_rate":r,"gain_in":0.4,"gain_out":0.74,
//   "delay_ms":3,"decay":0.4,"mod_speed":0.5,"sinusoidal":true}: a feedback
//   delay line whose tap a sine (or triangle) at mod_speed Hz moves over
//   [1, delay]; clamped to [-1, 1].
// - {"op":"Flanger","sample_rate":r,"delay":0,"depth":2,"regen":0,"width":71,
//   "speed":0.5,"phase":25,"modulation":"sinusoidal"|"triangular",
//   "interpolation":"linear"|"quadratic"}: over <..., channel (at most 4),
//   time>: a swept delay (delay to delay + depth ms) mixed in by `width`
//   percent with `regen` percent fed back, each channel's sweep `phase`
//   percent after the previous one's; clamped to [-1, 1] and given back in
//   the input's type (as MindSpore's: integer input gives -1, 0 or 1).
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class ContrastOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit ContrastOp(double amount) : amount_(amount) {}
  std::string name() const override { return "Contrast"; }
  nlohmann::json ToJson() const override { return {{"op", "Contrast"}, {"enhancement_amount", amount_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double amount_;
};

class OverdriveOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  OverdriveOp(double gain, double color) : gain_(gain), color_(color) {}
  std::string name() const override { return "Overdrive"; }
  nlohmann::json ToJson() const override { return {{"op", "Overdrive"}, {"gain", gain_}, {"color", color_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double gain_, color_;
};

class PhaserOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Phaser"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  nlohmann::json spec_;
  double gain_in_ = 0, gain_out_ = 0, decay_ = 0;
  std::vector<int32_t> mod_;  // the tap's delay, per step of the modulation's period
  int64_t delay_len_ = 0;
};

class FlangerOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Flanger"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  nlohmann::json spec_;
  double feedback_ = 0, dry_ = 0, wet_ = 0, phase_ = 0;
  bool quadratic_ = false;
  std::vector<float> lfo_;  // the delay in samples, per step of the sweep's period
  int64_t delay_len_ = 0;
};

}  // namespace mindrecord::ops
