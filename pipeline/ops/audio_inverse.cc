#include "pipeline/ops/audio_inverse.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

#include "pipeline/ops/audio_stretch.h"
#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

// Samples the inverse STFT of `frames` frames gives (center: less the
// n_fft / 2 padded at each end).
int64_t IstftSamples(int64_t frames, const StftParams& p) {
  const int64_t full = p.n_fft + p.hop_length * (frames - 1);
  return p.center ? full - 2 * (p.n_fft / 2) : full;
}

// The waveform of one row's complex spectrogram spec [bins, frames, 2]
// (bins 0 .. n_fft / 2 read; the spectrum times `scale`) into out: `count`
// samples from sample `skip` on (after center's padding), zeros past the
// frames. InvalidArgument naming `op` where the windows' overlap-add leaves
// a sample uncovered.
template <typename T>
Status Istft(const T* spec, int64_t frames, const StftParams& p, const std::vector<double>& window, double scale,
             int64_t skip, int64_t count, const std::string& op, T* out) {
  const int64_t n = p.n_fft, hop = p.hop_length, full = n + hop * (frames - 1);
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(full)));
  std::vector<double> y(static_cast<size_t>(full), 0.0), envelope(static_cast<size_t>(full), 0.0);
  constexpr int kType = std::is_same_v<T, double> ? CV_64F : CV_32F;
  constexpr int64_t kBlock = 64;
  cv::Mat packed, wave;
  for (int64_t j0 = 0; j0 < frames; j0 += kBlock) {
    const int64_t block = std::min(kBlock, frames - j0);
    packed.create(static_cast<int>(block), static_cast<int>(n), kType);
    for (int64_t j = 0; j < block; ++j) {
      // OpenCV's packed spectrum of a real frame: X0, (re, im) of bins 1 .., X[n/2] for even n.
      T* row = packed.template ptr<T>(static_cast<int>(j));
      auto part = [&](int64_t k, int im) {
        return static_cast<T>(static_cast<double>(spec[(k * frames + j0 + j) * 2 + im]) * scale);
      };
      row[0] = part(0, 0);
      for (int64_t k = 1; 2 * k < n; ++k) {
        row[2 * k - 1] = part(k, 0);
        row[2 * k] = part(k, 1);
      }
      if (n % 2 == 0 && n > 1) row[n - 1] = part(n / 2, 0);
    }
    cv::dft(packed, wave, cv::DFT_INVERSE | cv::DFT_SCALE | cv::DFT_ROWS | cv::DFT_REAL_OUTPUT);
    for (int64_t j = 0; j < block; ++j) {
      const T* w = wave.template ptr<T>(static_cast<int>(j));
      double* sum = y.data() + (j0 + j) * hop;
      for (int64_t i = 0; i < n; ++i) sum[i] += static_cast<double>(w[i]) * window[static_cast<size_t>(i)];
    }
  }
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t i = 0; i < n; ++i)
      envelope[static_cast<size_t>(f * hop + i)] += window[static_cast<size_t>(i)] * window[static_cast<size_t>(i)];
  const int64_t start = (p.center ? n / 2 : 0) + skip;
  for (int64_t i = 0; i < count; ++i) {
    if (start + i >= full) {
      out[i] = T(0);
      continue;
    }
    const double e = envelope[static_cast<size_t>(start + i)];
    if (e < 1e-11)
      return Status::InvalidArgument(op + ": the window's overlap-add is below 1e-11 at sample " +
                                     std::to_string(start + i) + " (hop_length too long for the window?)");
    out[i] = static_cast<T>(y[static_cast<size_t>(start + i)] / e);
  }
  return Status::OK();
}


}  // namespace

// ---- InverseSpectrogram ---------------------------------------------------------

Result<std::unique_ptr<TensorOp>> InverseSpectrogramOp::Make(const nlohmann::json& spec) {
  const std::string op = "InverseSpectrogram";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"length", "n_fft", "win_length", "hop_length", "pad", "window",
                                          "normalized", "center", "pad_mode", "onesided"}));
  MR_ASSIGN_OR_RETURN(int length, GetIntIn(spec, op, "length", -1, INT32_MAX, -1));
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(spec, op, true));
  p.power = 0;
  return std::unique_ptr<TensorOp>(new InverseSpectrogramOp(p, length));
}

nlohmann::json InverseSpectrogramOp::ToJson() const {
  nlohmann::json j = {{"op", "InverseSpectrogram"}, {"length", length_}};
  p_.AddTo(j);
  j.erase("power");
  return j;
}

Result<Tensor> InverseSpectrogramOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 3, "<..., freq, time, complex=2>"));
  const Shape& s = x.shape();
  const size_t rank = s.size();
  if (s[rank - 1] != 2 || s[rank - 3] != p_.bins() || s[rank - 2] == 0)
    return Status::InvalidArgument(name() + ": expected <..., " + std::to_string(p_.bins()) +
                                   " frequency bins, time (> 0), complex=2> for n_fft " + std::to_string(p_.n_fft) +
                                   ", got " + x.DebugString());
  const int64_t frames = s[rank - 2], count = OuterCount(s, 3), bins = p_.bins();
  double scale = 1.0;
  if (p_.normalized) {
    double sq = 0;
    for (double w : window_) sq += w * w;
    scale = std::sqrt(sq);
  }
  // torchaudio's: with a length, the waveform holds `pad` more samples at each end, then dropped.
  const int64_t skip = length_ >= 0 ? p_.pad : 0;
  const int64_t samples = length_ >= 0 ? length_ : IstftSamples(frames, p_);
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(count) * static_cast<double>(samples)));
  Shape shape(s.begin(), s.end() - 3);
  shape.push_back(samples);
  Tensor out = Tensor::Make(x.type(), shape);
  auto run = [&](auto tag) -> Status {
    using T = decltype(tag);
    for (int64_t c = 0; c < count; ++c)
      MR_RETURN_IF_ERROR(Istft(x.data_as<T>() + c * bins * frames * 2, frames, p_, window_, scale, skip, samples,
                               name(), out.mutable_data_as<T>() + c * samples));
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(x.type() == TensorType::kFloat64 ? run(double{}) : run(float{}));
  return out;
}

// ---- PitchShift -------------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> PitchShiftOp::Make(const nlohmann::json& spec) {
  const std::string op = "PitchShift";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "n_steps", "bins_per_octave", "n_fft", "win_length",
                                          "hop_length", "window"}));
  for (const char* k : {"sample_rate", "n_steps"})
    if (!spec.contains(k)) return Status::InvalidArgument(op + ": parameter '" + k + "' is required");
  MR_ASSIGN_OR_RETURN(int sample_rate, GetIntIn(spec, op, "sample_rate", 1, INT32_MAX));
  MR_ASSIGN_OR_RETURN(int n_steps, GetIntIn(spec, op, "n_steps", INT32_MIN, INT32_MAX));
  MR_ASSIGN_OR_RETURN(int per_octave, GetIntIn(spec, op, "bins_per_octave", INT32_MIN, INT32_MAX, 12));
  if (per_octave == 0) return BadParameter(op, "bins_per_octave", "must not be 0");
  nlohmann::json stft = {{"n_fft", spec.value("n_fft", nlohmann::json(512))}};
  for (const char* k : {"win_length", "hop_length", "window"})
    if (spec.contains(k)) stft[k] = spec[k];
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(stft, op, true));
  p.power = 0;
  std::unique_ptr<PitchShiftOp> ps(new PitchShiftOp());
  ps->p_ = p;
  ps->rate_ = std::pow(2.0, -static_cast<double>(n_steps) / static_cast<double>(per_octave));
  if (!std::isfinite(ps->rate_) || ps->rate_ <= 0 || ps->rate_ > 16777216.0)
    return BadParameter(op, "n_steps", "shifts beyond what a stretch can hold");
  ps->window_ = StftWindow(p);
  const double from = std::trunc(static_cast<double>(sample_rate) / ps->rate_);
  if (from < 1 || from > 16777216.0) return BadParameter(op, "n_steps", "shifts the rate out of (0, 16777216]");
  MR_ASSIGN_OR_RETURN(ps->resample_, MakeOp({{"op", "Resample"}, {"orig_freq", from},
                                             {"new_freq", static_cast<double>(sample_rate)}}));
  ps->spec_ = {{"op", op}, {"sample_rate", sample_rate}, {"n_steps", n_steps}, {"bins_per_octave", per_octave},
               {"n_fft", p.n_fft}, {"win_length", p.win_length}, {"hop_length", p.hop_length},
               {"window", WindowName(p.window)}};
  return std::unique_ptr<TensorOp>(std::move(ps));
}

Result<Tensor> PitchShiftOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1), bins = p_.bins();
  Tensor out = Tensor::Make(x.type(), x.shape());
  auto run = [&](auto tag) -> Status {
    using T = decltype(tag);
    T* o = out.mutable_data_as<T>();
    for (int64_t r = 0; r < rows; ++r) {
      int64_t frames = 0;
      MR_ASSIGN_OR_RETURN(std::vector<T> spec, ComplexStft(x.data_as<T>() + r * len, len, p_, window_, name(), &frames));
      const int64_t stretched = static_cast<int64_t>(std::ceil(static_cast<double>(frames) / rate_));
      MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(bins) * static_cast<double>(stretched) * 2));
      std::vector<T> slow(static_cast<size_t>(bins * stretched * 2));
      for (int64_t k = 0; k < bins; ++k) {
        const double advance = bins == 1 ? 0.0 : kAudioPi * static_cast<double>(p_.hop_length) *
                                                      static_cast<double>(k) / static_cast<double>(bins - 1);
        StretchRow(spec.data() + k * frames * 2, frames, rate_, advance, slow.data() + k * stretched * 2, stretched);
      }
      const int64_t stretched_len = static_cast<int64_t>(std::nearbyint(static_cast<double>(len) / rate_));
      Tensor wave = Tensor::Make(x.type(), {stretched_len});
      MR_RETURN_IF_ERROR(Istft(slow.data(), stretched, p_, window_, 1.0, 0, stretched_len, name(),
                               wave.mutable_data_as<T>()));
      MR_ASSIGN_OR_RETURN(Tensor shifted, resample_->Apply(std::move(wave), rng));
      const T* v = shifted.data_as<T>();
      const int64_t n = std::min<int64_t>(len, shifted.shape().back());
      std::copy(v, v + n, o + r * len);
      std::fill(o + r * len + n, o + (r + 1) * len, T(0));
    }
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(x.type() == TensorType::kFloat64 ? run(double{}) : run(float{}));
  return out;
}

// ---- GriffinLim -------------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> GriffinLimOp::Make(const nlohmann::json& spec) {
  const std::string op = "GriffinLim";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"n_fft", "n_iter", "win_length", "hop_length", "window", "power",
                                          "momentum", "length", "rand_init"}));
  nlohmann::json stft = nlohmann::json::object();
  for (const char* k : {"n_fft", "win_length", "hop_length", "window"})
    if (spec.contains(k)) stft[k] = spec[k];
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(stft, op, true));
  p.power = 0;
  MR_ASSIGN_OR_RETURN(int n_iter, GetIntIn(spec, op, "n_iter", 1, 1 << 16, 32));
  MR_ASSIGN_OR_RETURN(double power, GetNumber(spec, op, "power", 2.0));
  if (!(power > 0) || !std::isfinite(power)) return BadParameter(op, "power", "must be a number > 0");
  MR_ASSIGN_OR_RETURN(double momentum, GetNumber(spec, op, "momentum", 0.99));
  if (!(momentum >= 0) || !std::isfinite(momentum)) return BadParameter(op, "momentum", "must be a number >= 0");
  MR_ASSIGN_OR_RETURN(int length, GetIntIn(spec, op, "length", -1, INT32_MAX, -1));
  MR_ASSIGN_OR_RETURN(bool rand_init, GetBool(spec, op, "rand_init", true));
  return std::unique_ptr<TensorOp>(new GriffinLimOp(p, n_iter, power, momentum, length, rand_init));
}

nlohmann::json GriffinLimOp::ToJson() const {
  return {{"op", "GriffinLim"}, {"n_fft", p_.n_fft}, {"n_iter", n_iter_}, {"win_length", p_.win_length},
          {"hop_length", p_.hop_length}, {"window", WindowName(p_.window)}, {"power", power_},
          {"momentum", momentum_}, {"length", length_}, {"rand_init", rand_init_}};
}

Result<Tensor> GriffinLimOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., freq, time>"));
  const Shape& s = x.shape();
  const int64_t bins = s[s.size() - 2], frames = s.back(), count = OuterCount(s, 2);
  if (bins != p_.bins() || frames == 0)
    return Status::InvalidArgument(name() + ": expected <..., " + std::to_string(p_.bins()) +
                                   " frequency bins, time (> 0)> for n_fft " + std::to_string(p_.n_fft) + ", got " +
                                   x.DebugString());
  const size_t cells = static_cast<size_t>(bins * frames);
  const int64_t samples = length_ >= 0 ? length_ : IstftSamples(frames, p_);
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(count) * static_cast<double>(samples)));
  Shape shape(s.begin(), s.end() - 2);
  shape.push_back(samples);
  Tensor out = Tensor::Make(x.type(), shape);
  auto run = [&](auto tag) -> Status {
    using T = decltype(tag);
    std::vector<double> magnitude(cells), angles(2 * cells), previous(2 * cells);
    std::vector<T> spec(2 * cells), wave(static_cast<size_t>(samples));
    for (int64_t c = 0; c < count; ++c) {
      const T* m = x.data_as<T>() + c * static_cast<int64_t>(cells);
      for (size_t i = 0; i < cells; ++i) magnitude[i] = std::pow(std::max(0.0, static_cast<double>(m[i])), 1 / power_);
      // torchaudio's start: complex values uniform in [0, 1)^2, or 1.
      for (size_t i = 0; i < cells; ++i) {
        angles[2 * i] = rand_init_ ? RandUniform(rng, 0, 1) : 1.0;
        angles[2 * i + 1] = rand_init_ ? RandUniform(rng, 0, 1) : 0.0;
      }
      std::fill(previous.begin(), previous.end(), 0.0);
      auto combine = [&] {
        for (size_t i = 0; i < 2 * cells; ++i) spec[i] = static_cast<T>(magnitude[i / 2] * angles[i]);
      };
      const double keep = momentum_ / (1 + momentum_);
      for (int64_t it = 0; it < n_iter_; ++it) {
        combine();
        MR_RETURN_IF_ERROR(Istft(spec.data(), frames, p_, window_, 1.0, 0, samples, name(), wave.data()));
        int64_t rebuilt_frames = 0;
        MR_ASSIGN_OR_RETURN(std::vector<T> rebuilt,
                            ComplexStft(wave.data(), samples, p_, window_, name(), &rebuilt_frames));
        if (rebuilt_frames != frames)
          return Status::InvalidArgument(name() + ": length " + std::to_string(length_) + " gives " +
                                         std::to_string(rebuilt_frames) + " frames, not the input's " +
                                         std::to_string(frames));
        for (size_t i = 0; i < cells; ++i) {
          double re = static_cast<double>(rebuilt[2 * i]) - keep * previous[2 * i];
          double im = static_cast<double>(rebuilt[2 * i + 1]) - keep * previous[2 * i + 1];
          const double norm = std::hypot(re, im) + 1e-16;
          angles[2 * i] = re / norm;
          angles[2 * i + 1] = im / norm;
          previous[2 * i] = static_cast<double>(rebuilt[2 * i]);
          previous[2 * i + 1] = static_cast<double>(rebuilt[2 * i + 1]);
        }
      }
      combine();
      MR_RETURN_IF_ERROR(Istft(spec.data(), frames, p_, window_, 1.0, 0, samples, name(),
                               out.mutable_data_as<T>() + c * samples));
    }
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(x.type() == TensorType::kFloat64 ? run(double{}) : run(float{}));
  return out;
}

}  // namespace mindrecord::ops
