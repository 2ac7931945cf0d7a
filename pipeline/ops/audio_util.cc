#include "pipeline/ops/audio_util.h"

#include <algorithm>
#include <cmath>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/scalar.h"

namespace mindrecord::ops {

namespace {

// n points evenly spaced over [a, b] (one point: a).
std::vector<double> AudioLinspace(double a, double b, int64_t n) {
  std::vector<double> v(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = n == 1 ? a : a + static_cast<double>(i) * (b - a) / static_cast<double>(n - 1);
  return v;
}

// Slaney's scale: linear below 1 kHz (200/3 Hz a mel), logarithmic above.
constexpr double kSlaneyHzPerMel = 200.0 / 3.0, kSlaneyMinLogHz = 1000.0, kSlaneyMinLogMel = 15.0;
const double kSlaneyLogStep = std::log(6.4) / 27.0;

double HzToMel(double f, bool slaney) {
  if (!slaney) return 2595.0 * std::log10(1.0 + f / 700.0);
  if (f >= kSlaneyMinLogHz) return kSlaneyMinLogMel + std::log(f / kSlaneyMinLogHz) / kSlaneyLogStep;
  return f / kSlaneyHzPerMel;
}

double MelToHz(double m, bool slaney) {
  if (!slaney) return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0);
  if (m >= kSlaneyMinLogMel) return kSlaneyMinLogHz * std::exp(kSlaneyLogStep * (m - kSlaneyMinLogMel));
  return kSlaneyHzPerMel * m;
}

// Triangles with corners f_pts[j], f_pts[j + 1], f_pts[j + 2] over the bins.
std::vector<double> Triangles(int64_t n_freqs, const std::vector<double>& f_pts, int64_t n_filters,
                              int64_t sample_rate) {
  const std::vector<double> freqs = AudioLinspace(0.0, static_cast<double>(sample_rate) / 2.0, n_freqs);
  std::vector<double> fb(static_cast<size_t>(n_freqs * n_filters), 0.0);
  for (int64_t f = 0; f < n_freqs; ++f) {
    for (int64_t j = 0; j < n_filters; ++j) {
      const size_t k = static_cast<size_t>(j);
      const double down = (freqs[static_cast<size_t>(f)] - f_pts[k]) / (f_pts[k + 1] - f_pts[k]);
      const double up = (f_pts[k + 2] - freqs[static_cast<size_t>(f)]) / (f_pts[k + 2] - f_pts[k + 1]);
      const double v = std::max(0.0, std::min(down, up));
      fb[static_cast<size_t>(f * n_filters + j)] = std::isfinite(v) ? v : 0.0;
    }
  }
  return fb;
}

Result<int64_t> MatrixCount(const nlohmann::json& r, const char* key, int64_t lo) {
  if (!r.contains(key) || !r[key].is_number_integer() || r[key].get<int64_t>() < lo ||
      r[key].get<int64_t>() > INT32_MAX)
    return Status::InvalidArgument(std::string("audio matrix: ") + key + " must be an integer in [" +
                                   std::to_string(lo) + ", 2^31)");
  return r[key].get<int64_t>();
}

// A string member of the request (`def` when absent).
Result<std::string> MatrixName(const nlohmann::json& r, const char* key, const char* def) {
  if (!r.contains(key)) return std::string(def);
  if (!r[key].is_string()) return Status::InvalidArgument(std::string("audio matrix: ") + key + " must be a string");
  return r[key].get<std::string>();
}

Result<double> MatrixReal(const nlohmann::json& r, const char* key) {
  if (!r.contains(key) || !r[key].is_number() || !std::isfinite(r[key].get<double>()))
    return Status::InvalidArgument(std::string("audio matrix: ") + key + " must be a finite number");
  return r[key].get<double>();
}

}  // namespace

Result<Tensor> AudioInput(Tensor t, const std::string& op, size_t min_rank, const char* layout) {
  if (!t.defined() || !IsNumericType(t.type()))
    return Status::InvalidArgument(op + ": expected a numeric array " + layout + ", got " + t.DebugString());
  if (t.shape().size() < min_rank)
    return Status::InvalidArgument(op + ": expected an array of shape " + layout + " (at least " +
                                   std::to_string(min_rank) + " dimensions), got " + t.DebugString());
  if (t.type() == TensorType::kFloat32 || t.type() == TensorType::kFloat64) return t;
  Tensor out = Tensor::Make(TensorType::kFloat32, t.shape());
  float* dst = out.mutable_data_as<float>();
  const int64_t n = t.num_elements();
  VisitNumeric(t.type(), [&](auto tag) {
    using S = decltype(tag);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(LoadElement<S>(t.data(), i));
  });
  return out;
}

int64_t OuterCount(const Shape& shape, size_t inner) {
  int64_t n = 1;
  for (size_t i = 0; i + inner < shape.size(); ++i) n *= shape[i];
  return n;
}

Status CheckOutputElements(const std::string& op, double elements) {
  if (elements > static_cast<double>(int64_t{1} << 31))
    return Status::InvalidArgument(op + ": the result would hold " + std::to_string(static_cast<int64_t>(elements)) +
                                   " elements (more than 2^31): the parameters do not suit this input");
  return Status::OK();
}

Result<Border> GetBorder(const nlohmann::json& spec, const std::string& op, const char* key, Border def) {
  MR_ASSIGN_OR_RETURN(std::string s, GetString(spec, op, key, BorderName(def)));
  if (s == "constant") return Border::kConstant;
  if (s == "edge") return Border::kEdge;
  if (s == "reflect") return Border::kReflect;
  if (s == "symmetric") return Border::kSymmetric;
  return BadParameter(op, key, "must be constant, edge, reflect or symmetric, got \"" + s + "\"");
}

const char* BorderName(Border b) {
  switch (b) {
    case Border::kConstant: return "constant";
    case Border::kEdge: return "edge";
    case Border::kReflect: return "reflect";
    default: return "symmetric";
  }
}

int64_t BorderIndex(int64_t i, int64_t n, Border mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case Border::kConstant: return -1;
    case Border::kEdge: return i < 0 ? 0 : n - 1;
    case Border::kReflect: {
      const int64_t period = 2 * (n - 1);
      int64_t j = period == 0 ? 0 : ((i % period) + period) % period;
      return j >= n ? period - j : j;
    }
    default: {
      const int64_t period = 2 * n;
      const int64_t j = ((i % period) + period) % period;
      return j >= n ? period - 1 - j : j;
    }
  }
}


Result<Window> GetWindow(const nlohmann::json& spec, const std::string& op, const char* key, Window def) {
  MR_ASSIGN_OR_RETURN(std::string s, GetString(spec, op, key, WindowName(def)));
  for (Window w : {Window::kHann, Window::kHamming, Window::kBlackman, Window::kBartlett, Window::kKaiser})
    if (s == WindowName(w)) return w;
  return BadParameter(op, key, "must be hann, hamming, blackman, bartlett or kaiser, got \"" + s + "\"");
}

const char* WindowName(Window w) {
  switch (w) {
    case Window::kHann: return "hann";
    case Window::kHamming: return "hamming";
    case Window::kBlackman: return "blackman";
    case Window::kBartlett: return "bartlett";
    default: return "kaiser";
  }
}

std::vector<double> MakeWindow(Window w, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n), 1.0);
  if (n <= 1) return v;
  const double N = static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i);
    double& o = v[static_cast<size_t>(i)];
    switch (w) {
      case Window::kHann: o = 0.5 - 0.5 * std::cos(2 * kAudioPi * x / N); break;
      case Window::kHamming: o = 0.54 - 0.46 * std::cos(2 * kAudioPi * x / N); break;
      case Window::kBlackman: o = 0.42 - 0.5 * std::cos(2 * kAudioPi * x / N) + 0.08 * std::cos(4 * kAudioPi * x / N); break;
      case Window::kBartlett: o = 1.0 - std::fabs(2.0 * x / N - 1.0); break;
      case Window::kKaiser: {
        constexpr double kBeta = 12.0;
        const double r = 2.0 * x / N - 1.0;
        o = std::cyl_bessel_i(0.0, kBeta * std::sqrt(std::max(0.0, 1.0 - r * r))) / std::cyl_bessel_i(0.0, kBeta);
        break;
      }
    }
  }
  return v;
}

std::vector<double> MelFilterbank(int64_t n_freqs, double f_min, double f_max, int64_t n_mels, int64_t sample_rate,
                                  bool slaney_norm, bool slaney_scale) {
  const std::vector<double> m_pts =
      AudioLinspace(HzToMel(f_min, slaney_scale), HzToMel(f_max, slaney_scale), n_mels + 2);
  std::vector<double> f_pts(m_pts.size());
  for (size_t i = 0; i < m_pts.size(); ++i) f_pts[i] = MelToHz(m_pts[i], slaney_scale);
  std::vector<double> fb = Triangles(n_freqs, f_pts, n_mels, sample_rate);
  if (slaney_norm) {
    for (int64_t j = 0; j < n_mels; ++j) {
      const double scale = 2.0 / (f_pts[static_cast<size_t>(j + 2)] - f_pts[static_cast<size_t>(j)]);
      for (int64_t f = 0; f < n_freqs; ++f) fb[static_cast<size_t>(f * n_mels + j)] *= std::isfinite(scale) ? scale : 0.0;
    }
  }
  return fb;
}

std::vector<double> LinearFilterbank(int64_t n_freqs, double f_min, double f_max, int64_t n_filters,
                                     int64_t sample_rate) {
  return Triangles(n_freqs, AudioLinspace(f_min, f_max, n_filters + 2), n_filters, sample_rate);
}

std::vector<double> DctMatrix(int64_t n_mfcc, int64_t n_mels, bool ortho) {
  std::vector<double> d(static_cast<size_t>(n_mels * n_mfcc));
  const double scale = ortho ? std::sqrt(2.0 / static_cast<double>(n_mels)) : 2.0;
  for (int64_t i = 0; i < n_mels; ++i) {
    for (int64_t j = 0; j < n_mfcc; ++j) {
      double v = scale * std::cos(kAudioPi / static_cast<double>(n_mels) * (static_cast<double>(i) + 0.5) *
                                  static_cast<double>(j));
      if (ortho && j == 0) v /= std::sqrt(2.0);
      d[static_cast<size_t>(i * n_mfcc + j)] = v;
    }
  }
  return d;
}

Tensor MatrixTensor(const std::vector<double>& values, Shape shape, bool f64) {
  Tensor t = Tensor::Make(f64 ? TensorType::kFloat64 : TensorType::kFloat32, std::move(shape));
  if (f64) {
    std::copy(values.begin(), values.end(), t.mutable_data_as<double>());
  } else {
    float* dst = t.mutable_data_as<float>();
    for (size_t i = 0; i < values.size(); ++i) dst[i] = static_cast<float>(values[i]);
  }
  return t;
}

Result<Tensor> AudioMatrix(const nlohmann::json& r) {
  if (!r.is_object() || !r.contains("matrix") || !r["matrix"].is_string())
    return Status::InvalidArgument("audio matrix: expected {\"matrix\": name, ...}");
  const std::string kind = r["matrix"].get<std::string>();
  if (kind == "create_dct") {
    MR_ASSIGN_OR_RETURN(int64_t n_mfcc, MatrixCount(r, "n_mfcc", 1));
    MR_ASSIGN_OR_RETURN(int64_t n_mels, MatrixCount(r, "n_mels", 1));
    MR_RETURN_IF_ERROR(CheckOutputElements("create_dct", static_cast<double>(n_mfcc) * static_cast<double>(n_mels)));
    MR_ASSIGN_OR_RETURN(std::string norm, MatrixName(r, "norm", "none"));
    const bool ortho = norm == "ortho";
    return MatrixTensor(DctMatrix(n_mfcc, n_mels, ortho), {n_mels, n_mfcc}, false);
  }
  if (kind != "melscale_fbanks" && kind != "linear_fbanks")
    return Status::InvalidArgument("audio matrix: unknown matrix \"" + kind + "\"");
  const bool mel = kind == "melscale_fbanks";
  MR_ASSIGN_OR_RETURN(int64_t n_freqs, MatrixCount(r, "n_freqs", 0));
  MR_ASSIGN_OR_RETURN(int64_t n_filters, MatrixCount(r, mel ? "n_mels" : "n_filter", 1));
  MR_ASSIGN_OR_RETURN(int64_t sample_rate, MatrixCount(r, "sample_rate", 1));
  MR_ASSIGN_OR_RETURN(double f_min, MatrixReal(r, "f_min"));
  MR_ASSIGN_OR_RETURN(double f_max, MatrixReal(r, "f_max"));
  MR_RETURN_IF_ERROR(CheckOutputElements(kind, static_cast<double>(n_freqs) * static_cast<double>(n_filters)));
  MR_ASSIGN_OR_RETURN(std::string norm, MatrixName(r, "norm", "none"));
  MR_ASSIGN_OR_RETURN(std::string mel_type, MatrixName(r, "mel_type", "htk"));
  std::vector<double> fb = mel ? MelFilterbank(n_freqs, f_min, f_max, n_filters, sample_rate, norm == "slaney",
                                               mel_type == "slaney")
                               : LinearFilterbank(n_freqs, f_min, f_max, n_filters, sample_rate);
  return MatrixTensor(fb, {n_freqs, n_filters}, false);
}

}  // namespace mindrecord::ops
