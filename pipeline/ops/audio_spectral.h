// Spectral ops of MindSpore's audio module, over waveforms <..., time> (each
// row of the leading dimensions on its own; integer input computes in
// float32, float64 in float64):
// - {"op":"Spectrogram","n_fft":400,"win_length":400,"hop_length":200,
//   "pad":0,"window":"hann","power":2.0,"normalized":false,"center":true,
//   "pad_mode":"reflect","onesided":true}: each row zero-padded by `pad`,
//   then (center) by n_fft / 2 on both sides with pad_mode; frames of n_fft
//   samples every hop_length times the window (win_length long, centred in
//   n_fft); their DFT (normalized: divided by the window's L2 norm) as
//   |X|^power, or (power 0) as [re, im] in a last dimension of 2. Gives
//   <..., n_fft / 2 + 1 (n_fft when not onesided), frames[, 2]>.
// - {"op":"MelScale","n_mels":128,"sample_rate":16000,"f_min":0,"f_max":8000,
//   "n_stft":201,"norm":"none","mel_type":"htk"}: <..., n_stft, time> ->
//   <..., n_mels, time> through melscale_fbanks (audio_util.h).
// - {"op":"MelSpectrogram", Spectrogram's keys (power > 0) and MelScale's}:
//   the two in one op, n_stft = n_fft / 2 + 1.
// - {"op":"MFCC","sample_rate","n_mfcc":40,"norm":"ortho","log_mels":false,
//   "mel":{MelSpectrogram's keys}}: the mel spectrogram in decibels (top_db
//   80; log_mels: ln(x + 1e-6)) through create_dct: <..., n_mfcc, time>,
//   float32.
// - {"op":"LFCC","sample_rate":16000,"n_filter":128,"n_lfcc":40,"f_min":0,
//   "f_max":8000,"norm":"ortho","log_lf":false,"spec":{Spectrogram's keys}}:
//   as MFCC through linear_fbanks' filters: <..., n_lfcc, time>, float32.
// - {"op":"SpectralCentroid","sample_rate","n_fft","win_length",
//   "hop_length","pad","window"}: each frame's magnitude-weighted mean
//   frequency (bins spread over [0, sample_rate / 2]): <..., 1, time>; a
//   silent frame gives NaN (0 / 0), as MindSpore's.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op.h"

namespace mindrecord::ops {

struct StftParams {
  int64_t n_fft = 400;
  int64_t win_length = 400;
  int64_t hop_length = 200;
  int64_t pad = 0;
  Window window = Window::kHann;
  double power = 2.0;
  bool normalized = false;
  bool center = true;
  Border pad_mode = Border::kReflect;
  bool onesided = true;

  // Reads the keys above from `spec` (`allow_complex`: power 0 allowed).
  static Result<StftParams> Parse(const nlohmann::json& spec, const std::string& op, bool allow_complex);
  void AddTo(nlohmann::json& spec) const;
  int64_t bins() const { return onesided ? n_fft / 2 + 1 : n_fft; }
};

struct MelParams {
  int64_t n_mels = 128;
  int64_t sample_rate = 16000;
  double f_min = 0.0;
  double f_max = 8000.0;
  bool slaney_norm = false;
  bool slaney_scale = false;

  static Result<MelParams> Parse(const nlohmann::json& spec, const std::string& op);
  void AddTo(nlohmann::json& spec) const;
};

// The window of `p` centred in n_fft samples, zeros around it.
std::vector<double> StftWindow(const StftParams& p);
// The complex STFT of one row of `len` samples (p.power ignored; `window`
// is StftWindow(p), which the caller keeps): values [p.bins(), frames, 2]
// (re, im), `frames` set; InvalidArgument naming `op` when the row is too
// short for n_fft.
template <typename T>
Result<std::vector<T>> ComplexStft(const T* x, int64_t len, const StftParams& p, const std::vector<double>& window,
                                   const std::string& op, int64_t* frames);

// Triangular filters fb [n_freqs, n_filters] (mel or linear) with, per
// filter, the bins it covers [lo, hi) (the rest are zero) and their weights
// one after another (weights[at[m] + f - lo[m]]).
struct FilterBands {
  std::vector<double> fb;
  std::vector<int64_t> lo, hi;
  std::vector<double> weights;
  std::vector<size_t> at;
  FilterBands(std::vector<double> filters, int64_t n_freqs, int64_t n_filters);
  static FilterBands Mel(const MelParams& m, int64_t n_stft);
};

class SpectrogramOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit SpectrogramOp(StftParams p);
  std::string name() const override { return "Spectrogram"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  std::vector<double> window_;  // n_fft long: the window centred, zeros around it
};

class MelScaleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MelScaleOp(MelParams m, int64_t n_stft);
  std::string name() const override { return "MelScale"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  MelParams m_;
  int64_t n_stft_;
  FilterBands bands_;
};

class MelSpectrogramOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MelSpectrogramOp(StftParams p, MelParams m);
  std::string name() const override { return "MelSpectrogram"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  MelParams m_;
  std::vector<double> window_;
  FilterBands bands_;
};

class MfccOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MfccOp(StftParams p, MelParams m, int64_t n_mfcc, bool ortho, bool log_mels);
  std::string name() const override { return "MFCC"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  MelParams m_;
  int64_t n_mfcc_;
  bool ortho_, log_mels_;
  std::vector<double> window_;
  FilterBands bands_;
  std::vector<double> dct_;
};

class LfccOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "LFCC"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  LfccOp(nlohmann::json spec, StftParams p, FilterBands bands, int64_t n_lfcc, bool ortho, bool log_lf);
  nlohmann::json spec_;
  StftParams p_;
  FilterBands bands_;
  int64_t n_lfcc_;
  bool log_lf_;
  std::vector<double> window_, dct_;
};

class SpectralCentroidOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  SpectralCentroidOp(StftParams p, int64_t sample_rate);
  std::string name() const override { return "SpectralCentroid"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  StftParams p_;
  int64_t sample_rate_;
  std::vector<double> window_;
};

}  // namespace mindrecord::ops
