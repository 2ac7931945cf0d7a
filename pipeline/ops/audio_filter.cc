#include "pipeline/ops/audio_filter.h"

#include <cmath>
#include <complex>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

// A finite number parameter; required when `def` is empty.
Result<double> FilterParam(const nlohmann::json& spec, const std::string& op, const char* key,
                           std::optional<double> def, nlohmann::json& out) {
  if (!def && !spec.contains(key)) return Status::InvalidArgument(op + ": parameter '" + key + "' is required");
  MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, op, key, def.value_or(0.0)));
  if (!std::isfinite(v)) return BadParameter(op, key, "must be a finite number");
  out[key] = v;
  return v;
}

Result<int64_t> SampleRate(const nlohmann::json& spec, const std::string& op, nlohmann::json& out) {
  if (!spec.contains("sample_rate")) return Status::InvalidArgument(op + ": parameter 'sample_rate' is required");
  MR_ASSIGN_OR_RETURN(int sr, GetIntIn(spec, op, "sample_rate", INT32_MIN, INT32_MAX));
  if (sr == 0) return BadParameter(op, "sample_rate", "must not be 0");
  out["sample_rate"] = sr;
  return sr;
}

Result<double> Quality(const nlohmann::json& spec, const std::string& op, nlohmann::json& out) {
  MR_ASSIGN_OR_RETURN(double q, FilterParam(spec, op, "Q", 0.707, out));
  if (!(q > 0 && q <= 1)) return BadParameter(op, "Q", "must be in (0, 1], got " + std::to_string(q));
  return q;
}

struct Coeffs {
  std::vector<double> b, a;
};

// SoX's shelving filters (bass: low shelf, treble: high shelf) at w0 with
// gain A (amplitude^(1/2)) and alpha.
Coeffs Shelf(bool treble, double w0, double A, double alpha) {
  const double c = std::cos(w0), s = 2 * std::sqrt(A) * alpha, sign = treble ? 1.0 : -1.0;
  return {{A * ((A + 1) + sign * (A - 1) * c + s), -2 * sign * A * ((A - 1) + sign * (A + 1) * c),
           A * ((A + 1) + sign * (A - 1) * c - s)},
          {(A + 1) - sign * (A - 1) * c + s, 2 * sign * ((A - 1) - sign * (A + 1) * c),
           (A + 1) - sign * (A - 1) * c - s}};
}

// The coefficients of biquad `op` from its parameters (recorded in `out`).
Result<Coeffs> BiquadCoeffs(const nlohmann::json& spec, const std::string& op, nlohmann::json& out) {
  if (op == "Biquad") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"b0", "b1", "b2", "a0", "a1", "a2"}));
    Coeffs c{std::vector<double>(3), std::vector<double>(3)};
    const char* bk[] = {"b0", "b1", "b2"};
    const char* ak[] = {"a0", "a1", "a2"};
    for (int i = 0; i < 3; ++i) {
      MR_ASSIGN_OR_RETURN(c.b[i], FilterParam(spec, op, bk[i], std::nullopt, out));
      MR_ASSIGN_OR_RETURN(c.a[i], FilterParam(spec, op, ak[i], std::nullopt, out));
    }
    return c;
  }
  if (op == "DeemphBiquad" || op == "RiaaBiquad") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate"}));
    MR_ASSIGN_OR_RETURN(int64_t sr, SampleRate(spec, op, out));
    if (op == "DeemphBiquad") {
      if (sr != 44100 && sr != 48000) return BadParameter(op, "sample_rate", "must be 44100 or 48000");
      const double f = sr == 44100 ? 5283 : 5356, S = sr == 44100 ? 0.4845 : 0.479,
                   gain = sr == 44100 ? -9.477 : -9.62;
      const double w0 = 2 * kAudioPi * f / static_cast<double>(sr), A = std::pow(10.0, gain / 40.0);
      const double alpha = std::sin(w0) / 2 * std::sqrt((A + 1 / A) * (1 / S - 1) + 2);
      return Shelf(true, w0, A, alpha);
    }
    // Zeros and poles of the RIAA playback curve at each rate.
    double z0, z1, p0, p1;
    switch (sr) {
      case 44100: z0 = -0.2014898, z1 = 0.9233820, p0 = 0.7083149, p1 = 0.9924091; break;
      case 48000: z0 = -0.1766069, z1 = 0.9321590, p0 = 0.7396325, p1 = 0.9931330; break;
      case 88200: z0 = -0.1168735, z1 = 0.9648312, p0 = 0.8590646, p1 = 0.9964002; break;
      case 96000: z0 = -0.1141486, z1 = 0.9676817, p0 = 0.8699137, p1 = 0.9966946; break;
      default: return BadParameter(op, "sample_rate", "must be 44100, 48000, 88200 or 96000");
    }
    Coeffs c{{1, -(z0 + z1), z0 * z1}, {1, -(p0 + p1), p0 * p1}};
    // 0 dB at 1 kHz.
    const double w = 2 * kAudioPi * 1000 / static_cast<double>(sr);
    auto at = [w](const std::vector<double>& k) {
      return std::abs(k[0] + k[1] * std::polar(1.0, -w) + k[2] * std::polar(1.0, -2 * w));
    };
    const double g = at(c.a) / at(c.b);
    for (double& b : c.b) b *= g;
    return c;
  }
  // The rest: a frequency, Q and (some) a gain.
  const bool has_gain = op == "BassBiquad" || op == "TrebleBiquad" || op == "EqualizerBiquad";
  const char* freq_key = op == "LowpassBiquad" || op == "HighpassBiquad" ? "cutoff_freq"
                         : op == "EqualizerBiquad"                        ? "center_freq"
                                                                          : "central_freq";
  const char* flag = op == "BandBiquad" ? "noise" : op == "BandpassBiquad" ? "const_skirt_gain" : nullptr;
  if (flag) {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", freq_key, "Q", flag}));
  } else if (has_gain) {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", freq_key, "Q", "gain"}));
  } else if (op == "AllpassBiquad" || op == "BandrejectBiquad" || op == "LowpassBiquad" || op == "HighpassBiquad") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", freq_key, "Q"}));
  } else {
    return Status::InvalidArgument("unknown filter op \"" + op + "\"");
  }
  MR_ASSIGN_OR_RETURN(int64_t sr, SampleRate(spec, op, out));
  std::optional<double> freq_def;
  if (op == "BassBiquad") freq_def = 100.0;
  if (op == "TrebleBiquad") freq_def = 3000.0;
  MR_ASSIGN_OR_RETURN(double f, FilterParam(spec, op, freq_key, freq_def, out));
  MR_ASSIGN_OR_RETURN(double q, Quality(spec, op, out));
  double gain = 0;
  if (has_gain) {
    MR_ASSIGN_OR_RETURN(gain, FilterParam(spec, op, "gain", std::nullopt, out));
  }
  bool flag_on = false;
  if (flag) {
    MR_ASSIGN_OR_RETURN(flag_on, GetBool(spec, op, flag, false));
    out[flag] = flag_on;
  }
  const double w0 = 2 * kAudioPi * f / static_cast<double>(sr), c = std::cos(w0);
  const double alpha = std::sin(w0) / 2 / q, A = std::pow(10.0, gain / 40.0);
  const std::vector<double> poles = {1 + alpha, -2 * c, 1 - alpha};
  if (op == "AllpassBiquad") return Coeffs{{1 - alpha, -2 * c, 1 + alpha}, poles};
  if (op == "BandrejectBiquad") return Coeffs{{1, -2 * c, 1}, poles};
  if (op == "LowpassBiquad") return Coeffs{{(1 - c) / 2, 1 - c, (1 - c) / 2}, poles};
  if (op == "HighpassBiquad") return Coeffs{{(1 + c) / 2, -1 - c, (1 + c) / 2}, poles};
  if (op == "BandpassBiquad") {
    const double g = flag_on ? std::sin(w0) / 2 : alpha;
    return Coeffs{{g, 0, -g}, poles};
  }
  if (op == "EqualizerBiquad")
    return Coeffs{{1 + alpha * A, -2 * c, 1 - alpha * A}, {1 + alpha / A, -2 * c, 1 - alpha / A}};
  if (op == "BassBiquad" || op == "TrebleBiquad") return Shelf(op == "TrebleBiquad", w0, A, alpha);
  // BandBiquad (SoX's "band").
  const double a2 = std::exp(-2 * kAudioPi * (f / q) / static_cast<double>(sr));
  const double a1 = -4 * a2 / (1 + a2) * c;
  double b0 = std::sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2);
  if (flag_on) b0 = std::sqrt(((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2));
  return Coeffs{{b0, 0, 0}, {1, a1, a2}};
}

// y = the filter over x (n samples) from a zero state; `clamp` bounds what is
// written, not what the recursion feeds back.
template <typename T>
void RunFilter(const T* x, int64_t n, const std::vector<double>& b, const std::vector<double>& a, bool clamp, T* y,
               std::vector<double>& state) {
  const size_t order = a.size();
  state.assign(2 * order, 0.0);  // the last inputs, then the last outputs (unclamped)
  double* xs = state.data();
  double* ys = state.data() + order;
  for (int64_t i = 0; i < n; ++i) {
    for (size_t j = order - 1; j > 0; --j) xs[j] = xs[j - 1];
    xs[0] = static_cast<double>(x[i]);
    double v = 0;
    for (size_t j = 0; j < order; ++j) v += b[j] * xs[j];
    for (size_t j = 1; j < order; ++j) v -= a[j] * ys[j - 1];
    for (size_t j = order - 1; j > 0; --j) ys[j] = ys[j - 1];
    ys[0] = v;
    y[i] = static_cast<T>(clamp ? std::min(1.0, std::max(-1.0, v)) : v);
  }
}

}  // namespace

Result<std::unique_ptr<TensorOp>> FilterOp::Make(const nlohmann::json& spec) {
  std::unique_ptr<FilterOp> f(new FilterOp());
  const std::string op = spec.value("op", "");
  f->spec_ = {{"op", op}};
  std::vector<double> a, b;
  if (op == "LFilter" || op == "Filtfilt") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"a_coeffs", "b_coeffs", "clamp"}));
    for (const char* k : {"a_coeffs", "b_coeffs"})
      if (!spec.contains(k)) return Status::InvalidArgument(op + ": parameter '" + k + "' is required");
    MR_ASSIGN_OR_RETURN(a, GetNumbers(spec, op, "a_coeffs", {}));
    MR_ASSIGN_OR_RETURN(b, GetNumbers(spec, op, "b_coeffs", {}));
    if (a.empty() || a.size() != b.size())
      return BadParameter(op, "a_coeffs", "and b_coeffs must be non-empty and of one length, got " +
                                              std::to_string(a.size()) + " and " + std::to_string(b.size()));
    if (a.size() > 1024) return BadParameter(op, "a_coeffs", "must hold at most 1024 coefficients");
    for (double v : a) if (!std::isfinite(v)) return BadParameter(op, "a_coeffs", "must be finite numbers");
    for (double v : b) if (!std::isfinite(v)) return BadParameter(op, "b_coeffs", "must be finite numbers");
    MR_ASSIGN_OR_RETURN(f->clamp_, GetBool(spec, op, "clamp", true));
    f->spec_["a_coeffs"] = a;
    f->spec_["b_coeffs"] = b;
    f->spec_["clamp"] = f->clamp_;
    f->both_ways_ = op == "Filtfilt";
  } else {
    MR_ASSIGN_OR_RETURN(Coeffs c, BiquadCoeffs(spec, op, f->spec_));
    a = std::move(c.a);
    b = std::move(c.b);
  }
  if (a[0] == 0) return BadParameter(op, op == "Biquad" ? "a0" : "a_coeffs", "must not make a[0] 0");
  for (size_t i = 1; i < a.size(); ++i) a[i] /= a[0];
  for (double& v : b) v /= a[0];
  a[0] = 1;
  f->a_ = std::move(a);
  f->b_ = std::move(b);
  return std::unique_ptr<TensorOp>(std::move(f));
}

Result<Tensor> FilterOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    std::vector<double> state;
    std::vector<T> tmp(both_ways_ ? static_cast<size_t>(len) : 0);
    for (int64_t r = 0; r < rows; ++r) {
      T* row = d + r * len;
      if (!both_ways_) {
        RunFilter(row, len, b_, a_, clamp_, row, state);
        continue;
      }
      RunFilter(row, len, b_, a_, false, tmp.data(), state);
      std::reverse(tmp.begin(), tmp.end());
      RunFilter(tmp.data(), len, b_, a_, clamp_, row, state);
      std::reverse(row, row + len);
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return x;
}

}  // namespace mindrecord::ops
