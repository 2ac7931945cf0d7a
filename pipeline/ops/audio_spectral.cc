#include "pipeline/ops/audio_spectral.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

#include "pipeline/ops/audio_scale.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

Result<int64_t> AudioCount(const nlohmann::json& spec, const std::string& op, const char* key, int64_t lo,
                         int64_t def) {
  MR_ASSIGN_OR_RETURN(int v, GetIntIn(spec, op, key, lo, INT32_MAX, static_cast<int>(def)));
  return v;
}


// Frames a row of `len` samples gives.
Result<int64_t> FrameCount(const StftParams& p, int64_t len, const std::string& op) {
  const int64_t padded = len + 2 * p.pad + (p.center ? 2 * (p.n_fft / 2) : 0);
  if (len + 2 * p.pad == 0) return Status::InvalidArgument(op + ": the waveform is empty");
  if (p.n_fft > padded)
    return Status::InvalidArgument(op + ": n_fft " + std::to_string(p.n_fft) + " is more than the " +
                                   std::to_string(padded) + " samples of a padded row");
  return (padded - p.n_fft) / p.hop_length + 1;
}

// Frames go through the DFT kFrameBlock at a time, so a worker's scratch
// stays bounded whatever a waveform's length.
constexpr int64_t kFrameBlock = 64;

template <typename T>
struct StftScratch {
  cv::Mat frames, spectrum;
  std::vector<T> window;
  std::vector<double> power;
};

// One scratch per worker thread and element type, reused row after row.
template <typename T>
StftScratch<T>& ThreadScratch() {
  thread_local StftScratch<T> scratch;
  return scratch;
}

// Sample p of a row as the STFT reads it: zero-padded by `pad`, then by
// `half` on each side with the pad mode.
template <typename T>
T PaddedSample(const T* x, int64_t len, const StftParams& p, int64_t half, int64_t at) {
  const int64_t q = BorderIndex(at - half, len + 2 * p.pad, p.pad_mode);
  const int64_t r = q - p.pad;
  return q >= 0 && r >= 0 && r < len ? x[r] : T(0);
}

// The DFT of every frame of one row, kFrameBlock frames at a time:
// sink(first_frame, spectrum) with spectrum [frames in the block, n_fft],
// each row packed as Bin reads it.
template <typename T, typename Sink>
void StftFrames(const T* x, int64_t len, const StftParams& p, const std::vector<double>& window, int64_t frames,
                Sink sink) {
  StftScratch<T>& s = ThreadScratch<T>();
  s.window.assign(window.begin(), window.end());
  const int64_t half = p.center ? p.n_fft / 2 : 0, offset = half + p.pad;  // the padded index of x[0]
  constexpr int kType = std::is_same_v<T, double> ? CV_64F : CV_32F;
  for (int64_t j0 = 0; j0 < frames; j0 += kFrameBlock) {
    const int64_t count = std::min(kFrameBlock, frames - j0);
    s.frames.create(static_cast<int>(count), static_cast<int>(p.n_fft), kType);
    for (int64_t j = 0; j < count; ++j) {
      T* row = s.frames.template ptr<T>(static_cast<int>(j));
      const int64_t at = (j0 + j) * p.hop_length, first = at - offset;
      const T* w = s.window.data();
      if (first >= 0 && first + p.n_fft <= len) {
        const T* src = x + first;
        for (int64_t n = 0; n < p.n_fft; ++n) row[n] = src[n] * w[n];
      } else {
        for (int64_t n = 0; n < p.n_fft; ++n) row[n] = PaddedSample(x, len, p, half, at + n) * w[n];
      }
    }
    cv::dft(s.frames, s.spectrum, cv::DFT_ROWS);  // OpenCV's packed real spectrum (CCS)
    sink(j0, s.spectrum);
  }
}

// Bin k of a frame's DFT from OpenCV's packed spectrum of a real frame of
// n samples: X0, then (re, im) of bins 1 .., then X[n/2] for even n; bins
// past n/2 are the conjugates of those below.
template <typename T>
inline std::pair<double, double> Bin(const T* X, int64_t k, int64_t n) {
  if (k > n / 2) {
    const auto [re, im] = Bin(X, n - k, n);
    return {re, -im};
  }
  if (k == 0) return {X[0], 0.0};
  if (2 * k == n) return {X[n - 1], 0.0};
  return {X[2 * k - 1], X[2 * k]};
}

double WindowScale(const StftParams& p, const std::vector<double>& window) {
  if (!p.normalized) return 1.0;
  double sq = 0;
  for (double w : window) sq += w * w;
  return sq > 0 ? 1.0 / std::sqrt(sq) : 1.0;
}

// |X|^power from a complex bin's squared magnitude.
inline double Power(double sq, double power) {
  return power == 2.0 ? sq : power == 1.0 ? std::sqrt(sq) : std::pow(sq, 0.5 * power);
}

// The spectrogram of every row of x into out ([rows, bins, frames(, 2)]).
template <typename T>
void Stft(const T* x, int64_t rows, int64_t len, const StftParams& p, const std::vector<double>& window,
          int64_t frames, T* out) {
  const int64_t bins = p.bins();
  const int64_t per_row = bins * frames * (p.power == 0 ? 2 : 1);
  const double scale = WindowScale(p, window);
  for (int64_t r = 0; r < rows; ++r) {
    T* o = out + r * per_row;
    StftFrames(x + r * len, len, p, window, frames, [&](int64_t j0, const cv::Mat& spectrum) {
      for (int j = 0; j < spectrum.rows; ++j) {
        const T* X = spectrum.template ptr<T>(j);
        const int64_t t = j0 + j;
        for (int64_t k = 0; k < bins; ++k) {
          auto [re, im] = Bin(X, k, p.n_fft);
          re *= scale;
          im *= scale;
          if (p.power == 0) {
            o[(k * frames + t) * 2] = static_cast<T>(re);
            o[(k * frames + t) * 2 + 1] = static_cast<T>(im);
          } else {
            o[k * frames + t] = static_cast<T>(Power(re * re + im * im, p.power));
          }
        }
      }
    });
  }
}

// Spectrogram then the filters `mel` (MelScale's, or LFCC's linear ones) of
// every row of x into out ([rows, filters, frames]), frame by frame: no
// spectrogram is kept.
template <typename T>
void FilterStft(const Tensor& x, const StftParams& p, const FilterBands& mel, const std::vector<double>& window,
             int64_t frames, T* out) {
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1), bins = p.bins();
  const int64_t n_mels = static_cast<int64_t>(mel.lo.size());
  const double scale = WindowScale(p, window);
  for (int64_t r = 0; r < rows; ++r) {
    T* o = out + r * n_mels * frames;
    StftFrames(x.data_as<T>() + r * len, len, p, window, frames, [&](int64_t j0, const cv::Mat& spectrum) {
      std::vector<double>& power = ThreadScratch<T>().power;
      power.resize(static_cast<size_t>(bins));
      for (int j = 0; j < spectrum.rows; ++j) {
        const T* X = spectrum.template ptr<T>(j);
        for (int64_t k = 0; k < bins; ++k) {
          auto [re, im] = Bin(X, k, p.n_fft);
          re *= scale;
          im *= scale;
          power[static_cast<size_t>(k)] = Power(re * re + im * im, p.power);
        }
        for (int64_t m = 0; m < n_mels; ++m) {
          const size_t lo = static_cast<size_t>(mel.lo[static_cast<size_t>(m)]);
          const size_t count = static_cast<size_t>(mel.hi[static_cast<size_t>(m)]) - lo;
          const double* w = mel.weights.data() + mel.at[static_cast<size_t>(m)];
          const double* pw = power.data() + lo;
          double acc = 0;
          for (size_t f = 0; f < count; ++f) acc += w[f] * pw[f];
          o[m * frames + j0 + j] = static_cast<T>(acc);
        }
      }
    });
  }
}

// The shape of the spectrogram of x: its leading dimensions, then `rows`
// (bins or mels), then the frames (then 2 for complex values).
Shape SpectrumShape(const Tensor& x, int64_t rows, int64_t frames, bool complex) {
  Shape shape(x.shape().begin(), x.shape().end() - 1);
  shape.push_back(rows);
  shape.push_back(frames);
  if (complex) shape.push_back(2);
  return shape;
}

// Frames per row of x, with the result's size checked.
Result<int64_t> CheckedFrames(const Tensor& x, const StftParams& p, int64_t rows_out, bool complex,
                              const std::string& op) {
  MR_ASSIGN_OR_RETURN(int64_t frames, FrameCount(p, x.shape().back(), op));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(OuterCount(x.shape(), 1)) *
                                                 static_cast<double>(rows_out) * static_cast<double>(frames) *
                                                 (complex ? 2 : 1)));
  return frames;
}

// out[m, t] = sum_f fb[f, m] * spec[f, t] for each of `count` matrices.
template <typename T>
void ApplyFilterbank(const T* spec, int64_t count, int64_t n_freqs, int64_t time, const FilterBands& mel, T* out) {
  const int64_t n_filters = static_cast<int64_t>(mel.lo.size());
  std::vector<double> acc(static_cast<size_t>(time));
  for (int64_t c = 0; c < count; ++c) {
    const T* s = spec + c * n_freqs * time;
    T* o = out + c * n_filters * time;
    for (int64_t m = 0; m < n_filters; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t f = mel.lo[static_cast<size_t>(m)]; f < mel.hi[static_cast<size_t>(m)]; ++f) {
        const double w = mel.fb[static_cast<size_t>(f * n_filters + m)];
        for (int64_t t = 0; t < time; ++t) acc[static_cast<size_t>(t)] += w * static_cast<double>(s[f * time + t]);
      }
      for (int64_t t = 0; t < time; ++t) o[m * time + t] = static_cast<T>(acc[static_cast<size_t>(t)]);
    }
  }
}

}  // namespace

FilterBands::FilterBands(std::vector<double> filters, int64_t n_freqs, int64_t n_filters)
    : fb(std::move(filters)), lo(static_cast<size_t>(n_filters), 0), hi(static_cast<size_t>(n_filters), 0) {
  for (int64_t j = 0; j < n_filters; ++j) {
    for (int64_t f = 0; f < n_freqs; ++f) {
      if (fb[static_cast<size_t>(f * n_filters + j)] == 0) continue;
      if (hi[static_cast<size_t>(j)] == 0) lo[static_cast<size_t>(j)] = f;
      hi[static_cast<size_t>(j)] = f + 1;
    }
    at.push_back(weights.size());
    for (int64_t f = lo[static_cast<size_t>(j)]; f < hi[static_cast<size_t>(j)]; ++f)
      weights.push_back(fb[static_cast<size_t>(f * n_filters + j)]);
  }
}

FilterBands FilterBands::Mel(const MelParams& m, int64_t n_stft) {
  return FilterBands(MelFilterbank(n_stft, m.f_min, m.f_max, m.n_mels, m.sample_rate, m.slaney_norm, m.slaney_scale),
                     n_stft, m.n_mels);
}

std::vector<double> StftWindow(const StftParams& p) {
  std::vector<double> w = MakeWindow(p.window, p.win_length), out(static_cast<size_t>(p.n_fft), 0.0);
  std::copy(w.begin(), w.end(), out.begin() + (p.n_fft - p.win_length) / 2);
  return out;
}

template <typename T>
Result<std::vector<T>> ComplexStft(const T* x, int64_t len, const StftParams& p, const std::vector<double>& window,
                                   const std::string& op, int64_t* frames) {
  MR_ASSIGN_OR_RETURN(*frames, FrameCount(p, len, op));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(p.bins()) * static_cast<double>(*frames) * 2));
  StftParams complex = p;
  complex.power = 0;
  std::vector<T> out(static_cast<size_t>(p.bins() * *frames * 2));
  Stft(x, 1, len, complex, window, *frames, out.data());
  return out;
}
template Result<std::vector<float>> ComplexStft<float>(const float*, int64_t, const StftParams&,
                                                       const std::vector<double>&, const std::string&, int64_t*);
template Result<std::vector<double>> ComplexStft<double>(const double*, int64_t, const StftParams&,
                                                         const std::vector<double>&, const std::string&, int64_t*);

Result<StftParams> StftParams::Parse(const nlohmann::json& spec, const std::string& op, bool allow_complex) {
  StftParams p;
  MR_ASSIGN_OR_RETURN(p.n_fft, AudioCount(spec, op, "n_fft", 1, 400));
  MR_ASSIGN_OR_RETURN(p.win_length, AudioCount(spec, op, "win_length", 1, p.n_fft));
  if (p.win_length > p.n_fft)
    return BadParameter(op, "win_length", "must be at most n_fft (" + std::to_string(p.n_fft) + "), got " +
                                              std::to_string(p.win_length));
  MR_ASSIGN_OR_RETURN(p.hop_length, AudioCount(spec, op, "hop_length", 1, std::max<int64_t>(p.win_length / 2, 1)));
  MR_ASSIGN_OR_RETURN(p.pad, AudioCount(spec, op, "pad", 0, 0));
  MR_ASSIGN_OR_RETURN(p.window, GetWindow(spec, op, "window", Window::kHann));
  MR_ASSIGN_OR_RETURN(p.power, GetNumber(spec, op, "power", 2.0));
  if (!std::isfinite(p.power) || p.power < 0 || (!allow_complex && p.power == 0))
    return BadParameter(op, "power", allow_complex ? "must be a number >= 0" : "must be a number > 0");
  MR_ASSIGN_OR_RETURN(p.normalized, GetBool(spec, op, "normalized", false));
  MR_ASSIGN_OR_RETURN(p.center, GetBool(spec, op, "center", true));
  MR_ASSIGN_OR_RETURN(p.pad_mode, GetBorder(spec, op, "pad_mode", Border::kReflect));
  MR_ASSIGN_OR_RETURN(p.onesided, GetBool(spec, op, "onesided", true));
  return p;
}

void StftParams::AddTo(nlohmann::json& j) const {
  j["n_fft"] = n_fft;
  j["win_length"] = win_length;
  j["hop_length"] = hop_length;
  j["pad"] = pad;
  j["window"] = WindowName(window);
  j["power"] = power;
  j["normalized"] = normalized;
  j["center"] = center;
  j["pad_mode"] = BorderName(pad_mode);
  j["onesided"] = onesided;
}

Result<MelParams> MelParams::Parse(const nlohmann::json& spec, const std::string& op) {
  MelParams m;
  MR_ASSIGN_OR_RETURN(m.n_mels, AudioCount(spec, op, "n_mels", 1, 128));
  MR_ASSIGN_OR_RETURN(m.sample_rate, AudioCount(spec, op, "sample_rate", 1, 16000));
  MR_ASSIGN_OR_RETURN(m.f_min, GetNumber(spec, op, "f_min", 0.0));
  MR_ASSIGN_OR_RETURN(m.f_max, GetNumber(spec, op, "f_max", static_cast<double>(m.sample_rate / 2)));
  if (!std::isfinite(m.f_min) || !std::isfinite(m.f_max) || !(m.f_min < m.f_max))
    return BadParameter(op, "f_max", "must be more than f_min (" + std::to_string(m.f_min) + "), got " +
                                         std::to_string(m.f_max));
  MR_ASSIGN_OR_RETURN(std::string norm, GetString(spec, op, "norm", "none"));
  MR_ASSIGN_OR_RETURN(std::string scale, GetString(spec, op, "mel_type", "htk"));
  if (norm != "none" && norm != "slaney") return BadParameter(op, "norm", "must be none or slaney, got \"" + norm + "\"");
  if (scale != "htk" && scale != "slaney")
    return BadParameter(op, "mel_type", "must be htk or slaney, got \"" + scale + "\"");
  m.slaney_norm = norm == "slaney";
  m.slaney_scale = scale == "slaney";
  return m;
}

void MelParams::AddTo(nlohmann::json& j) const {
  j["n_mels"] = n_mels;
  j["sample_rate"] = sample_rate;
  j["f_min"] = f_min;
  j["f_max"] = f_max;
  j["norm"] = slaney_norm ? "slaney" : "none";
  j["mel_type"] = slaney_scale ? "slaney" : "htk";
}

// ---- Spectrogram ------------------------------------------------------------

SpectrogramOp::SpectrogramOp(StftParams p) : p_(p), window_(StftWindow(p)) {}

Result<std::unique_ptr<TensorOp>> SpectrogramOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Spectrogram", {"n_fft", "win_length", "hop_length", "pad", "window", "power",
                                                     "normalized", "center", "pad_mode", "onesided"}));
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(spec, "Spectrogram", true));
  return std::unique_ptr<TensorOp>(new SpectrogramOp(p));
}

nlohmann::json SpectrogramOp::ToJson() const {
  nlohmann::json j = {{"op", "Spectrogram"}};
  p_.AddTo(j);
  return j;
}

Result<Tensor> SpectrogramOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  MR_ASSIGN_OR_RETURN(int64_t frames, CheckedFrames(x, p_, p_.bins(), p_.power == 0, name()));
  Tensor out = Tensor::Make(x.type(), SpectrumShape(x, p_.bins(), frames, p_.power == 0));
  if (x.type() == TensorType::kFloat64)
    Stft(x.data_as<double>(), OuterCount(x.shape(), 1), x.shape().back(), p_, window_, frames,
         out.mutable_data_as<double>());
  else
    Stft(x.data_as<float>(), OuterCount(x.shape(), 1), x.shape().back(), p_, window_, frames,
         out.mutable_data_as<float>());
  return out;
}

// ---- MelScale ---------------------------------------------------------------

MelScaleOp::MelScaleOp(MelParams m, int64_t n_stft) : m_(m), n_stft_(n_stft), bands_(FilterBands::Mel(m, n_stft)) {}

Result<std::unique_ptr<TensorOp>> MelScaleOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(
      CheckKeys(spec, "MelScale", {"n_mels", "sample_rate", "f_min", "f_max", "n_stft", "norm", "mel_type"}));
  MR_ASSIGN_OR_RETURN(MelParams m, MelParams::Parse(spec, "MelScale"));
  MR_ASSIGN_OR_RETURN(int64_t n_stft, AudioCount(spec, "MelScale", "n_stft", 1, 201));
  MR_RETURN_IF_ERROR(CheckOutputElements("MelScale", static_cast<double>(n_stft) * static_cast<double>(m.n_mels)));
  return std::unique_ptr<TensorOp>(new MelScaleOp(m, n_stft));
}

nlohmann::json MelScaleOp::ToJson() const {
  nlohmann::json j = {{"op", "MelScale"}, {"n_stft", n_stft_}};
  m_.AddTo(j);
  return j;
}

Result<Tensor> MelScaleOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., freq, time>"));
  const Shape& s = x.shape();
  if (s[s.size() - 2] != n_stft_)
    return Status::InvalidArgument(name() + ": expected " + std::to_string(n_stft_) +
                                   " frequency bins (n_stft) in <..., freq, time>, got " + x.DebugString());
  const int64_t count = OuterCount(s, 2), time = s.back();
  Shape out_shape = s;
  out_shape[s.size() - 2] = m_.n_mels;
  MR_RETURN_IF_ERROR(
      CheckOutputElements(name(), static_cast<double>(count) * static_cast<double>(m_.n_mels) * static_cast<double>(time)));
  Tensor out = Tensor::Make(x.type(), out_shape);
  if (x.type() == TensorType::kFloat64)
    ApplyFilterbank(x.data_as<double>(), count, n_stft_, time, bands_, out.mutable_data_as<double>());
  else
    ApplyFilterbank(x.data_as<float>(), count, n_stft_, time, bands_, out.mutable_data_as<float>());
  return out;
}

// ---- MelSpectrogram ---------------------------------------------------------

namespace {
const std::initializer_list<const char*> kMelSpectrogramKeys = {
    "n_fft", "win_length", "hop_length", "pad", "window", "power", "normalized", "center", "pad_mode", "onesided",
    "n_mels", "sample_rate", "f_min", "f_max", "norm", "mel_type"};
}  // namespace

MelSpectrogramOp::MelSpectrogramOp(StftParams p, MelParams m)
    : p_(p), m_(m), window_(StftWindow(p)), bands_(FilterBands::Mel(m, p.bins())) {}

Result<std::unique_ptr<TensorOp>> MelSpectrogramOp::Make(const nlohmann::json& spec) {
  const std::string op = "MelSpectrogram";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, kMelSpectrogramKeys));
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(spec, op, false));
  if (!p.onesided) return BadParameter(op, "onesided", "must be true (the mel filters take n_fft / 2 + 1 bins)");
  MR_ASSIGN_OR_RETURN(MelParams m, MelParams::Parse(spec, op));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(p.bins()) * static_cast<double>(m.n_mels)));
  return std::unique_ptr<TensorOp>(new MelSpectrogramOp(p, m));
}

nlohmann::json MelSpectrogramOp::ToJson() const {
  nlohmann::json j = {{"op", "MelSpectrogram"}};
  p_.AddTo(j);
  m_.AddTo(j);
  return j;
}

Result<Tensor> MelSpectrogramOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  MR_ASSIGN_OR_RETURN(int64_t frames, CheckedFrames(x, p_, m_.n_mels, false, name()));
  Tensor out = Tensor::Make(x.type(), SpectrumShape(x, m_.n_mels, frames, false));
  if (x.type() == TensorType::kFloat64)
    FilterStft(x, p_, bands_, window_, frames, out.mutable_data_as<double>());
  else
    FilterStft(x, p_, bands_, window_, frames, out.mutable_data_as<float>());
  return out;
}

// ---- MFCC -------------------------------------------------------------------

MfccOp::MfccOp(StftParams p, MelParams m, int64_t n_mfcc, bool ortho, bool log_mels)
    : p_(p),
      m_(m),
      n_mfcc_(n_mfcc),
      ortho_(ortho),
      log_mels_(log_mels),
      window_(StftWindow(p)),
      bands_(FilterBands::Mel(m, p.bins())),
      dct_(DctMatrix(n_mfcc, m.n_mels, ortho)) {}

Result<std::unique_ptr<TensorOp>> MfccOp::Make(const nlohmann::json& spec) {
  const std::string op = "MFCC";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "n_mfcc", "norm", "log_mels", "mel"}));
  MR_ASSIGN_OR_RETURN(int64_t n_mfcc, AudioCount(spec, op, "n_mfcc", 1, 40));
  MR_ASSIGN_OR_RETURN(std::string norm, GetString(spec, op, "norm", "ortho"));
  if (norm != "ortho" && norm != "none") return BadParameter(op, "norm", "must be ortho or none, got \"" + norm + "\"");
  MR_ASSIGN_OR_RETURN(bool log_mels, GetBool(spec, op, "log_mels", false));
  nlohmann::json mel = spec.contains("mel") ? spec["mel"] : nlohmann::json::object();
  if (!mel.is_object()) return BadParameter(op, "mel", "must be an object of MelSpectrogram's parameters");
  if (mel.contains("sample_rate")) return BadParameter(op, "mel", "must not hold sample_rate (MFCC's own is used)");
  MR_ASSIGN_OR_RETURN(int64_t sample_rate, AudioCount(spec, op, "sample_rate", 1, 16000));
  mel["sample_rate"] = sample_rate;
  MR_RETURN_IF_ERROR(CheckKeys(mel, op + " mel", kMelSpectrogramKeys));
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(mel, op, false));
  if (!p.onesided) return BadParameter(op, "onesided", "must be true (the mel filters take n_fft / 2 + 1 bins)");
  MR_ASSIGN_OR_RETURN(MelParams m, MelParams::Parse(mel, op));
  if (m.n_mels < n_mfcc)
    return BadParameter(op, "n_mfcc", "must be at most n_mels (" + std::to_string(m.n_mels) + "), got " +
                                          std::to_string(n_mfcc));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(p.bins()) * static_cast<double>(m.n_mels)));
  return std::unique_ptr<TensorOp>(new MfccOp(p, m, n_mfcc, norm == "ortho", log_mels));
}

nlohmann::json MfccOp::ToJson() const {
  nlohmann::json mel = nlohmann::json::object();
  p_.AddTo(mel);
  m_.AddTo(mel);
  mel.erase("sample_rate");
  return {{"op", "MFCC"}, {"sample_rate", m_.sample_rate}, {"n_mfcc", n_mfcc_}, {"norm", ortho_ ? "ortho" : "none"},
          {"log_mels", log_mels_}, {"mel", mel}};
}

namespace {

// MFCC (LFCC) from the mel (linear) filters' spectrogram `mel` ([count,
// filters, time], in place): decibels (or the log), then the DCT into out
// ([count, n_mfcc, time]).
template <typename T>
void Cepstra(std::vector<T>& mel, const Shape& shape, bool log_mels, const std::vector<double>& dct,
                 int64_t n_mfcc, float* out) {
  const int64_t n_mels = shape[shape.size() - 2], time = shape.back(), count = OuterCount(shape, 2);
  if (log_mels) {
    for (T& v : mel) v = static_cast<T>(std::log(static_cast<double>(v) + 1e-6));
  } else {
    ToDecibels(mel.data(), shape, 10.0, 0.0, 80.0);
  }
  std::vector<double> acc(static_cast<size_t>(time));
  for (int64_t c = 0; c < count; ++c) {
    const T* m = mel.data() + c * n_mels * time;
    for (int64_t k = 0; k < n_mfcc; ++k) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t i = 0; i < n_mels; ++i) {
        const double w = dct[static_cast<size_t>(i * n_mfcc + k)];
        for (int64_t t = 0; t < time; ++t) acc[static_cast<size_t>(t)] += w * static_cast<double>(m[i * time + t]);
      }
      for (int64_t t = 0; t < time; ++t) out[(c * n_mfcc + k) * time + t] = static_cast<float>(acc[static_cast<size_t>(t)]);
    }
  }
}

// MFCC's and LFCC's Apply: the filters' spectrogram of the input, then
// Cepstra: <..., n_out, frames>, float32.
Result<Tensor> Cepstrum(Tensor input, const std::string& op, const StftParams& p, const FilterBands& bands,
                        const std::vector<double>& window, const std::vector<double>& dct, int64_t n_out, bool log) {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), op, 1, "<..., time>"));
  const int64_t filters = static_cast<int64_t>(bands.lo.size());
  MR_ASSIGN_OR_RETURN(int64_t frames, CheckedFrames(x, p, filters, false, op));
  const Shape bands_shape = SpectrumShape(x, filters, frames, false);
  Shape shape = bands_shape;
  shape[shape.size() - 2] = n_out;
  Tensor out = Tensor::Make(TensorType::kFloat32, shape);
  const size_t size = static_cast<size_t>(OuterCount(x.shape(), 1) * filters * frames);
  auto run = [&](auto tag) {
    std::vector<decltype(tag)> filtered(size);
    FilterStft(x, p, bands, window, frames, filtered.data());
    Cepstra(filtered, bands_shape, log, dct, n_out, out.mutable_data_as<float>());
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace

Result<Tensor> MfccOp::Apply(Tensor input, std::mt19937_64&) const {
  return Cepstrum(std::move(input), name(), p_, bands_, window_, dct_, n_mfcc_, log_mels_);
}

// ---- LFCC -------------------------------------------------------------------

LfccOp::LfccOp(nlohmann::json spec, StftParams p, FilterBands bands, int64_t n_lfcc, bool ortho, bool log_lf)
    : spec_(std::move(spec)),
      p_(p),
      bands_(std::move(bands)),
      n_lfcc_(n_lfcc),
      log_lf_(log_lf),
      window_(StftWindow(p)),
      dct_(DctMatrix(n_lfcc, static_cast<int64_t>(bands_.lo.size()), ortho)) {}

Result<std::unique_ptr<TensorOp>> LfccOp::Make(const nlohmann::json& spec) {
  const std::string op = "LFCC";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "n_filter", "n_lfcc", "f_min", "f_max", "norm", "log_lf", "spec"}));
  MR_ASSIGN_OR_RETURN(int64_t sample_rate, AudioCount(spec, op, "sample_rate", 1, 16000));
  MR_ASSIGN_OR_RETURN(int64_t n_filter, AudioCount(spec, op, "n_filter", 1, 128));
  MR_ASSIGN_OR_RETURN(int64_t n_lfcc, AudioCount(spec, op, "n_lfcc", 1, 40));
  MR_ASSIGN_OR_RETURN(double f_min, GetNumber(spec, op, "f_min", 0.0));
  MR_ASSIGN_OR_RETURN(double f_max, GetNumber(spec, op, "f_max", static_cast<double>(sample_rate / 2)));
  if (!std::isfinite(f_min) || !std::isfinite(f_max) || f_min < 0 || f_min > f_max)
    return BadParameter(op, "f_max", "must be at least f_min (" + std::to_string(f_min) + ") >= 0, got " +
                                         std::to_string(f_max));
  MR_ASSIGN_OR_RETURN(std::string norm, GetString(spec, op, "norm", "ortho"));
  if (norm != "ortho" && norm != "none") return BadParameter(op, "norm", "must be ortho or none, got \"" + norm + "\"");
  MR_ASSIGN_OR_RETURN(bool log_lf, GetBool(spec, op, "log_lf", false));
  const nlohmann::json stft = spec.contains("spec") ? spec["spec"] : nlohmann::json::object();
  if (!stft.is_object()) return BadParameter(op, "spec", "must be an object of Spectrogram's parameters");
  MR_RETURN_IF_ERROR(CheckKeys(stft, op + " spec", {"n_fft", "win_length", "hop_length", "pad", "window", "power",
                                                    "normalized", "center", "pad_mode", "onesided"}));
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(stft, op, false));
  if (!p.onesided) return BadParameter(op, "onesided", "must be true (the filters take n_fft / 2 + 1 bins)");
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(p.bins()) * static_cast<double>(n_filter)));
  nlohmann::json out = {{"op", op}, {"sample_rate", sample_rate}, {"n_filter", n_filter}, {"n_lfcc", n_lfcc},
                        {"f_min", f_min}, {"f_max", f_max}, {"norm", norm}, {"log_lf", log_lf},
                        {"spec", nlohmann::json::object()}};
  p.AddTo(out["spec"]);
  FilterBands bands(LinearFilterbank(p.bins(), f_min, f_max, n_filter, sample_rate), p.bins(), n_filter);
  return std::unique_ptr<TensorOp>(new LfccOp(std::move(out), p, std::move(bands), n_lfcc, norm == "ortho", log_lf));
}

Result<Tensor> LfccOp::Apply(Tensor input, std::mt19937_64&) const {
  return Cepstrum(std::move(input), name(), p_, bands_, window_, dct_, n_lfcc_, log_lf_);
}

// ---- SpectralCentroid ---------------------------------------------------------

SpectralCentroidOp::SpectralCentroidOp(StftParams p, int64_t sample_rate)
    : p_(p), sample_rate_(sample_rate), window_(StftWindow(p)) {}

Result<std::unique_ptr<TensorOp>> SpectralCentroidOp::Make(const nlohmann::json& spec) {
  const std::string op = "SpectralCentroid";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "n_fft", "win_length", "hop_length", "pad", "window"}));
  if (!spec.contains("sample_rate")) return Status::InvalidArgument(op + ": parameter 'sample_rate' is required");
  MR_ASSIGN_OR_RETURN(int64_t sample_rate, AudioCount(spec, op, "sample_rate", 1, 16000));
  // A magnitude spectrogram, centred with reflected ends (MindSpore's).
  MR_ASSIGN_OR_RETURN(StftParams p, StftParams::Parse(spec, op, false));
  p.power = 1.0;
  return std::unique_ptr<TensorOp>(new SpectralCentroidOp(p, sample_rate));
}

nlohmann::json SpectralCentroidOp::ToJson() const {
  return {{"op", "SpectralCentroid"}, {"sample_rate", sample_rate_}, {"n_fft", p_.n_fft}, {"win_length", p_.win_length},
          {"hop_length", p_.hop_length}, {"pad", p_.pad}, {"window", WindowName(p_.window)}};
}

Result<Tensor> SpectralCentroidOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  MR_ASSIGN_OR_RETURN(int64_t frames, CheckedFrames(x, p_, 1, false, name()));
  Tensor out = Tensor::Make(x.type(), SpectrumShape(x, 1, frames, false));
  const int64_t bins = p_.bins(), len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  const double top = static_cast<double>(sample_rate_ / 2);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_as<T>();
    for (int64_t r = 0; r < rows; ++r) {
      StftFrames(x.data_as<T>() + r * len, len, p_, window_, frames, [&](int64_t j0, const cv::Mat& spectrum) {
        for (int j = 0; j < spectrum.rows; ++j) {
          const T* X = spectrum.template ptr<T>(j);
          double weighted = 0, total = 0;
          for (int64_t k = 0; k < bins; ++k) {
            const auto [re, im] = Bin(X, k, p_.n_fft);
            const double magnitude = std::sqrt(re * re + im * im);
            weighted += (bins == 1 ? 0.0 : top * static_cast<double>(k) / static_cast<double>(bins - 1)) * magnitude;
            total += magnitude;
          }
          o[r * frames + j0 + j] = static_cast<T>(weighted / total);
        }
      });
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
