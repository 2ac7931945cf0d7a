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

// The window centred in n_fft samples, zeros around it.
std::vector<double> PaddedWindow(const StftParams& p) {
  std::vector<double> w = MakeWindow(p.window, p.win_length), out(static_cast<size_t>(p.n_fft), 0.0);
  std::copy(w.begin(), w.end(), out.begin() + (p.n_fft - p.win_length) / 2);
  return out;
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

// The spectrogram of one row: out[bin * frames + frame] (power 0: [re, im]
// pairs). `scratch` keeps its buffers between rows.
template <typename T>
struct StftScratch {
  std::vector<T> zero_padded, padded;
  cv::Mat frames, spectrum;
};

template <typename T>
void StftRow(const T* x, int64_t len, const StftParams& p, const std::vector<double>& window, int64_t frames,
             StftScratch<T>& s, T* out) {
  const int64_t l1 = len + 2 * p.pad, half = p.center ? p.n_fft / 2 : 0;
  s.zero_padded.assign(static_cast<size_t>(l1), T(0));
  std::copy(x, x + len, s.zero_padded.begin() + p.pad);
  s.padded.resize(static_cast<size_t>(l1 + 2 * half));
  PadRow(s.zero_padded.data(), l1, half, half, p.pad_mode, s.padded.data());
  constexpr int kType = std::is_same_v<T, double> ? CV_64F : CV_32F;
  s.frames.create(static_cast<int>(frames), static_cast<int>(p.n_fft), kType);
  for (int64_t j = 0; j < frames; ++j) {
    T* row = s.frames.template ptr<T>(static_cast<int>(j));
    const T* src = s.padded.data() + j * p.hop_length;
    for (int64_t n = 0; n < p.n_fft; ++n) row[n] = static_cast<T>(src[n] * window[static_cast<size_t>(n)]);
  }
  cv::dft(s.frames, s.spectrum, cv::DFT_ROWS | cv::DFT_COMPLEX_OUTPUT);
  double scale = 1.0;
  if (p.normalized) {
    double sq = 0;
    for (double w : window) sq += w * w;
    scale = sq > 0 ? 1.0 / std::sqrt(sq) : 1.0;
  }
  const int64_t bins = p.bins();
  for (int64_t j = 0; j < frames; ++j) {
    const T* X = s.spectrum.template ptr<T>(static_cast<int>(j));
    for (int64_t k = 0; k < bins; ++k) {
      const double re = X[2 * k] * scale, im = X[2 * k + 1] * scale;
      if (p.power == 0) {
        out[(k * frames + j) * 2] = static_cast<T>(re);
        out[(k * frames + j) * 2 + 1] = static_cast<T>(im);
        continue;
      }
      const double sq = re * re + im * im;
      out[k * frames + j] =
          static_cast<T>(p.power == 2.0 ? sq : p.power == 1.0 ? std::sqrt(sq) : std::pow(sq, 0.5 * p.power));
    }
  }
}

// The spectrogram of every row of x: values [rows, bins, frames(, 2)] and
// the result's shape.
template <typename T>
Result<std::vector<T>> Stft(const Tensor& x, const StftParams& p, const std::vector<double>& window,
                            const std::string& op, Shape* shape, int64_t* frames_out) {
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  MR_ASSIGN_OR_RETURN(int64_t frames, FrameCount(p, len, op));
  const double per_row = static_cast<double>(p.bins()) * static_cast<double>(frames) * (p.power == 0 ? 2 : 1);
  MR_RETURN_IF_ERROR(CheckOutputElements(op, per_row * static_cast<double>(rows)));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(frames) * static_cast<double>(p.n_fft)));
  std::vector<T> out(static_cast<size_t>(per_row) * static_cast<size_t>(rows));
  StftScratch<T> scratch;
  for (int64_t r = 0; r < rows; ++r)
    StftRow(x.data_as<T>() + r * len, len, p, window, frames, scratch, out.data() + r * static_cast<int64_t>(per_row));
  *shape = Shape(x.shape().begin(), x.shape().end() - 1);
  shape->push_back(p.bins());
  shape->push_back(frames);
  if (p.power == 0) shape->push_back(2);
  *frames_out = frames;
  return out;
}

// out[m, t] = sum_f fb[f, m] * spec[f, t] for each of `count` matrices.
template <typename T>
void ApplyFilterbank(const T* spec, int64_t count, int64_t n_freqs, int64_t time, const std::vector<double>& fb,
                     int64_t n_filters, T* out) {
  std::vector<double> acc(static_cast<size_t>(time));
  for (int64_t c = 0; c < count; ++c) {
    const T* s = spec + c * n_freqs * time;
    T* o = out + c * n_filters * time;
    for (int64_t m = 0; m < n_filters; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t f = 0; f < n_freqs; ++f) {
        const double w = fb[static_cast<size_t>(f * n_filters + m)];
        if (w == 0) continue;
        for (int64_t t = 0; t < time; ++t) acc[static_cast<size_t>(t)] += w * static_cast<double>(s[f * time + t]);
      }
      for (int64_t t = 0; t < time; ++t) o[m * time + t] = static_cast<T>(acc[static_cast<size_t>(t)]);
    }
  }
}

std::vector<double> MelBank(const MelParams& m, int64_t n_stft) {
  return MelFilterbank(n_stft, m.f_min, m.f_max, m.n_mels, m.sample_rate, m.slaney_norm, m.slaney_scale);
}

// Spectrogram then MelScale: values and shape <..., n_mels, frames>.
template <typename T>
Result<std::vector<T>> MelSpectrogram(const Tensor& x, const StftParams& p, const MelParams& m,
                                      const std::vector<double>& window, const std::vector<double>& fb,
                                      const std::string& op, Shape* shape) {
  int64_t frames = 0;
  MR_ASSIGN_OR_RETURN(std::vector<T> spec, Stft<T>(x, p, window, op, shape, &frames));
  const int64_t rows = OuterCount(x.shape(), 1);
  std::vector<T> mel(static_cast<size_t>(rows * m.n_mels * frames));
  ApplyFilterbank(spec.data(), rows, p.bins(), frames, fb, m.n_mels, mel.data());
  (*shape)[shape->size() - 2] = m.n_mels;
  return mel;
}

template <typename T>
Tensor ToTensor(const std::vector<T>& v, Shape shape) {
  Tensor t = Tensor::Make(std::is_same_v<T, double> ? TensorType::kFloat64 : TensorType::kFloat32, std::move(shape));
  std::copy(v.begin(), v.end(), t.mutable_data_as<T>());
  return t;
}

}  // namespace

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

SpectrogramOp::SpectrogramOp(StftParams p) : p_(p), window_(PaddedWindow(p)) {}

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
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(input, name(), 1, "<..., time>"));
  Shape shape;
  int64_t frames = 0;
  if (x.type() == TensorType::kFloat64) {
    MR_ASSIGN_OR_RETURN(std::vector<double> v, Stft<double>(x, p_, window_, name(), &shape, &frames));
    return ToTensor(v, shape);
  }
  MR_ASSIGN_OR_RETURN(std::vector<float> v, Stft<float>(x, p_, window_, name(), &shape, &frames));
  return ToTensor(v, shape);
}

// ---- MelScale ---------------------------------------------------------------

MelScaleOp::MelScaleOp(MelParams m, int64_t n_stft) : m_(m), n_stft_(n_stft), fb_(MelBank(m, n_stft)) {}

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
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(input, name(), 2, "<..., freq, time>"));
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
    ApplyFilterbank(x.data_as<double>(), count, n_stft_, time, fb_, m_.n_mels, out.mutable_data_as<double>());
  else
    ApplyFilterbank(x.data_as<float>(), count, n_stft_, time, fb_, m_.n_mels, out.mutable_data_as<float>());
  return out;
}

// ---- MelSpectrogram ---------------------------------------------------------

namespace {
const std::initializer_list<const char*> kMelSpectrogramKeys = {
    "n_fft", "win_length", "hop_length", "pad", "window", "power", "normalized", "center", "pad_mode", "onesided",
    "n_mels", "sample_rate", "f_min", "f_max", "norm", "mel_type"};
}  // namespace

MelSpectrogramOp::MelSpectrogramOp(StftParams p, MelParams m)
    : p_(p), m_(m), window_(PaddedWindow(p)), fb_(MelBank(m, p.bins())) {}

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
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(input, name(), 1, "<..., time>"));
  Shape shape;
  if (x.type() == TensorType::kFloat64) {
    MR_ASSIGN_OR_RETURN(std::vector<double> v, MelSpectrogram<double>(x, p_, m_, window_, fb_, name(), &shape));
    return ToTensor(v, shape);
  }
  MR_ASSIGN_OR_RETURN(std::vector<float> v, MelSpectrogram<float>(x, p_, m_, window_, fb_, name(), &shape));
  return ToTensor(v, shape);
}

// ---- MFCC -------------------------------------------------------------------

MfccOp::MfccOp(StftParams p, MelParams m, int64_t n_mfcc, bool ortho, bool log_mels)
    : p_(p),
      m_(m),
      n_mfcc_(n_mfcc),
      ortho_(ortho),
      log_mels_(log_mels),
      window_(PaddedWindow(p)),
      fb_(MelBank(m, p.bins())),
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

Result<Tensor> MfccOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(input, name(), 1, "<..., time>"));
  Shape shape;
  std::vector<double> mel;
  if (x.type() == TensorType::kFloat64) {
    MR_ASSIGN_OR_RETURN(mel, MelSpectrogram<double>(x, p_, m_, window_, fb_, name(), &shape));
  } else {
    MR_ASSIGN_OR_RETURN(std::vector<float> f, MelSpectrogram<float>(x, p_, m_, window_, fb_, name(), &shape));
    mel.assign(f.begin(), f.end());
  }
  if (log_mels_) {
    for (double& v : mel) v = std::log(v + 1e-6);
  } else {
    ToDecibels(mel.data(), shape, 10.0, 0.0, 80.0);
  }
  const int64_t time = shape.back(), count = OuterCount(shape, 2);
  shape[shape.size() - 2] = n_mfcc_;
  Tensor out = Tensor::Make(TensorType::kFloat32, shape);
  float* o = out.mutable_data_as<float>();
  std::vector<double> acc(static_cast<size_t>(time));
  for (int64_t c = 0; c < count; ++c) {
    const double* m = mel.data() + c * m_.n_mels * time;
    for (int64_t k = 0; k < n_mfcc_; ++k) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t i = 0; i < m_.n_mels; ++i) {
        const double w = dct_[static_cast<size_t>(i * n_mfcc_ + k)];
        for (int64_t t = 0; t < time; ++t) acc[static_cast<size_t>(t)] += w * m[i * time + t];
      }
      for (int64_t t = 0; t < time; ++t) o[(c * n_mfcc_ + k) * time + t] = static_cast<float>(acc[static_cast<size_t>(t)]);
    }
  }
  return out;
}

}  // namespace mindrecord::ops
