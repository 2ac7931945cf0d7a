// Waveforms back from spectrograms (MindSpore's, as torchaudio's):
// - {"op":"InverseSpectrogram","length":-1, Spectrogram's keys but power}:
//   a complex spectrogram <..., freq, time, complex=2> (n_fft / 2 + 1 bins,
//   or n_fft when not onesided: the upper ones are then taken as the
//   conjugates of the lower) -> <..., samples>: each frame's inverse DFT
//   times the window, overlap-added, divided by the window's squared
//   overlap-add; center drops the n_fft / 2 samples padded at each end;
//   `length` (>= 0) cuts or zero-pads to that many samples (then `pad`
//   samples are dropped at each end). Where the windows leave a sample
//   uncovered (the envelope below 1e-11) is InvalidArgument.
// - {"op":"PitchShift","sample_rate","n_steps","bins_per_octave":12,
//   "n_fft":512,"win_length":512,"hop_length":128,"window":"hann"}: the
//   pitch moved by n_steps / bins_per_octave octaves, the length kept: the
//   STFT stretched by 2^(-n_steps / bins_per_octave) (TimeStretch's phase
//   vocoder), back to a waveform, resampled from sample_rate / rate to
//   sample_rate, cut or zero-padded to the input's length.
// - {"op":"GriffinLim","n_fft":400,"n_iter":32,"win_length":400,
//   "hop_length":200,"window":"hann","power":2.0,"momentum":0.99,
//   "length":-1,"rand_init":true}: a magnitude^power spectrogram <..., freq,
//   time> -> <..., samples> by fast Griffin-Lim (torchaudio's): phases from
//   n_iter rounds of inverse STFT and STFT, with momentum; rand_init starts
//   from the row's seed.
// Integer input computes in float32, float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/ops/audio_spectral.h"
#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class InverseSpectrogramOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  InverseSpectrogramOp(StftParams p, int64_t length) : p_(p), length_(length), window_(StftWindow(p)) {}
  std::string name() const override { return "InverseSpectrogram"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  int64_t length_;  // -1: as many samples as the frames give
  std::vector<double> window_;
};

class PitchShiftOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "PitchShift"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  nlohmann::json spec_;
  StftParams p_;
  double rate_ = 1;
  std::vector<double> window_;
  std::unique_ptr<TensorOp> resample_;
};

class GriffinLimOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  GriffinLimOp(StftParams p, int64_t n_iter, double power, double momentum, int64_t length, bool rand_init)
      : p_(p), n_iter_(n_iter), power_(power), momentum_(momentum), length_(length), rand_init_(rand_init),
        window_(StftWindow(p)) {}
  std::string name() const override { return "GriffinLim"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return rand_init_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  int64_t n_iter_;
  double power_, momentum_;
  int64_t length_;  // -1: as many samples as the frames give
  bool rand_init_;
  std::vector<double> window_;
};

}  // namespace mindrecord::ops
