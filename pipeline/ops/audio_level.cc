#include "pipeline/ops/audio_level.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

Result<double> FiniteParam(const nlohmann::json& spec, const std::string& op, const char* key,
                         std::optional<double> def) {
  if (!def && !spec.contains(key)) return Status::InvalidArgument(op + ": parameter '" + key + "' is required");
  MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, op, key, def.value_or(0.0)));
  if (!std::isfinite(v)) return BadParameter(op, key, "must be a finite number");
  return v;
}

double Clamp1(double v) { return std::min(1.0, std::max(-1.0, v)); }

}  // namespace

// ---- Gain, Vol, DCShift -----------------------------------------------------

Result<std::unique_ptr<TensorOp>> SampleGainOp::Make(const nlohmann::json& spec) {
  std::unique_ptr<SampleGainOp> g(new SampleGainOp());
  const std::string op = spec.value("op", "");
  g->spec_ = {{"op", op}};
  if (op == "Gain") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"gain_db"}));
    MR_ASSIGN_OR_RETURN(double db, FiniteParam(spec, op, "gain_db", 1.0));
    g->spec_["gain_db"] = db;
    g->factor_ = std::pow(10.0, db / 20.0);
  } else if (op == "Vol") {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"gain", "gain_type"}));
    MR_ASSIGN_OR_RETURN(double gain, FiniteParam(spec, op, "gain", std::nullopt));
    MR_ASSIGN_OR_RETURN(std::string type, GetString(spec, op, "gain_type", "amplitude"));
    if (type == "amplitude") {
      if (gain < 0) return BadParameter(op, "gain", "must be >= 0 for an amplitude gain");
      g->factor_ = gain;
    } else if (type == "power") {
      if (gain <= 0) return BadParameter(op, "gain", "must be > 0 for a power gain");
      g->factor_ = std::sqrt(gain);
    } else if (type == "db") {
      g->factor_ = std::pow(10.0, gain / 20.0);
    } else {
      return BadParameter(op, "gain_type", "must be amplitude, power or db, got \"" + type + "\"");
    }
    g->spec_["gain"] = gain;
    g->spec_["gain_type"] = type;
    g->kind_ = Kind::kScaleClamped;
  } else {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"shift", "limiter_gain"}));
    MR_ASSIGN_OR_RETURN(g->shift_, FiniteParam(spec, op, "shift", std::nullopt));
    if (g->shift_ < -2.0 || g->shift_ > 2.0) return BadParameter(op, "shift", "must be in [-2, 2]");
    MR_ASSIGN_OR_RETURN(g->limiter_, FiniteParam(spec, op, "limiter_gain", g->shift_));
    if (g->limiter_ == 0) g->limiter_ = g->shift_;  // MindSpore's: 0 or None is no limiter
    g->spec_["shift"] = g->shift_;
    g->spec_["limiter_gain"] = g->limiter_;
    g->kind_ = Kind::kDcShift;
  }
  return std::unique_ptr<TensorOp>(std::move(g));
}

Result<Tensor> SampleGainOp::Apply(Tensor input, std::mt19937_64&) const {
  const std::string op = name();
  if (kind_ == Kind::kScale) {
    const double f = factor_;
    return MapElements(std::move(input), op, 1, "<..., time>", [f](double x) { return x * f; });
  }
  if (kind_ == Kind::kScaleClamped) {
    const double f = factor_;
    return MapElements(std::move(input), op, 1, "<..., time>", [f](double x) { return Clamp1(x * f); });
  }
  const double shift = shift_, lim = limiter_;
  const double eps = std::numeric_limits<float>::epsilon();
  if (std::fabs(shift - lim) <= eps || std::fabs(shift) <= eps)
    return MapElements(std::move(input), op, 1, "<..., time>", [shift](double x) { return Clamp1(x + shift); });
  const double thr = 1.0 - (std::fabs(shift) - lim);
  return MapElements(std::move(input), op, 1, "<..., time>", [shift, lim, thr](double x) {
    if (x > thr && shift > 0) return std::min((x - thr) * lim / (1.0 - thr) + thr + shift, thr);
    if (x < -thr && shift < 0) return std::max((x + thr) * lim / (1.0 - thr) - thr + shift, -thr);
    return Clamp1(x + shift);
  });
}

// ---- Fade -------------------------------------------------------------------

namespace {
constexpr const char* kFadeShapes[] = {"linear", "exponential", "logarithmic", "quarter_sine", "half_sine"};

// The fade-in (or fade-out) gain at t in [0, 1].
double FadeGain(FadeOp::Curve s, double t, bool in) {
  switch (s) {
    case FadeOp::Curve::kLinear: return in ? t : 1.0 - t;
    case FadeOp::Curve::kExponential: return in ? std::pow(2.0, t - 1.0) * t : std::pow(2.0, -t) * (1.0 - t);
    case FadeOp::Curve::kLogarithmic: return in ? std::log10(t + 0.1) + 1.0 : std::log10(1.1 - t) + 1.0;
    case FadeOp::Curve::kQuarterSine: return in ? std::sin(kAudioPi * t / 2) : std::sin(kAudioPi * t / 2 + kAudioPi / 2);
    default: return in ? std::sin(kAudioPi * t - kAudioPi / 2) / 2 + 0.5 : std::sin(kAudioPi * t + kAudioPi / 2) / 2 + 0.5;
  }
}
}  // namespace

Result<std::unique_ptr<TensorOp>> FadeOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Fade", {"fade_in_len", "fade_out_len", "fade_shape"}));
  MR_ASSIGN_OR_RETURN(int in, GetIntIn(spec, "Fade", "fade_in_len", 0, INT32_MAX, 0));
  MR_ASSIGN_OR_RETURN(int out, GetIntIn(spec, "Fade", "fade_out_len", 0, INT32_MAX, 0));
  MR_ASSIGN_OR_RETURN(std::string shape, GetString(spec, "Fade", "fade_shape", "linear"));
  for (int i = 0; i < 5; ++i)
    if (shape == kFadeShapes[i]) return std::unique_ptr<TensorOp>(new FadeOp(in, out, static_cast<Curve>(i)));
  return BadParameter("Fade", "fade_shape",
                      "must be linear, exponential, logarithmic, quarter_sine or half_sine, got \"" + shape + "\"");
}

nlohmann::json FadeOp::ToJson() const {
  return {{"op", "Fade"}, {"fade_in_len", in_}, {"fade_out_len", out_},
          {"fade_shape", kFadeShapes[static_cast<int>(shape_)]}};
}

Result<Tensor> FadeOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  if (in_ > len || out_ > len)
    return Status::InvalidArgument("Fade: fade_in_len " + std::to_string(in_) + " or fade_out_len " +
                                   std::to_string(out_) + " is more than the " + std::to_string(len) +
                                   " samples of a row of " + x.DebugString());
  std::vector<double> gain(static_cast<size_t>(len), 1.0);
  for (int64_t i = 0; i < in_; ++i)
    gain[static_cast<size_t>(i)] *= FadeGain(shape_, in_ == 1 ? 0.0 : double(i) / double(in_ - 1), true);
  for (int64_t i = 0; i < out_; ++i)
    gain[static_cast<size_t>(len - out_ + i)] *= FadeGain(shape_, out_ == 1 ? 0.0 : double(i) / double(out_ - 1), false);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < len; ++i) d[r * len + i] = static_cast<T>(d[r * len + i] * gain[static_cast<size_t>(i)]);
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return x;
}

// ---- MuLawEncoding, MuLawDecoding -------------------------------------------

Result<std::unique_ptr<TensorOp>> MuLawOp::Make(const nlohmann::json& spec) {
  const std::string op = spec.value("op", "");
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"quantization_channels"}));
  MR_ASSIGN_OR_RETURN(int channels, GetIntIn(spec, op, "quantization_channels", 1, INT32_MAX, 256));
  return std::unique_ptr<TensorOp>(new MuLawOp(op == "MuLawEncoding", channels));
}

Result<Tensor> MuLawOp::Apply(Tensor input, std::mt19937_64&) const {
  const double mu = static_cast<double>(channels_ - 1), log1p_mu = std::log1p(mu);
  if (!encode_) {
    return MapElements(std::move(input), name(), 1, "<..., time>", [mu, log1p_mu](double x) {
      const double u = mu == 0 ? -1.0 : x / mu * 2.0 - 1.0;
      const double s = (u > 0) - (u < 0);
      return mu == 0 ? 0.0 : s * std::expm1(std::fabs(u) * log1p_mu) / mu;
    });
  }
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  Tensor out = Tensor::Make(TensorType::kInt32, x.shape());
  int32_t* o = out.mutable_data_as<int32_t>();
  const int64_t n = x.num_elements();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* d = x.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(d[i]), s = (v > 0) - (v < 0);
      const double y = mu == 0 ? 0.0 : s * std::log1p(mu * std::fabs(v)) / log1p_mu;
      const double code = (y + 1.0) / 2.0 * mu + 0.5;
      o[i] = std::isnan(code) ? 0 : static_cast<int32_t>(std::max(-2147483648.0, std::min(2147483647.0, std::trunc(code))));
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

// ---- ComputeDeltas ----------------------------------------------------------

Result<std::unique_ptr<TensorOp>> ComputeDeltasOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "ComputeDeltas", {"win_length", "pad_mode"}));
  MR_ASSIGN_OR_RETURN(int win, GetIntIn(spec, "ComputeDeltas", "win_length", 3, INT32_MAX, 5));
  MR_ASSIGN_OR_RETURN(Border mode, GetBorder(spec, "ComputeDeltas", "pad_mode", Border::kEdge));
  return std::unique_ptr<TensorOp>(new ComputeDeltasOp(win, mode));
}

Result<Tensor> ComputeDeltasOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., freq, time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1), n = (win_length_ - 1) / 2;
  if (len == 0) return x;
  Tensor out = Tensor::Make(x.type(), x.shape());
  const double dn = static_cast<double>(n), denom = dn * (dn + 1) * (2 * dn + 1) / 3;
  // Samples past a row's ends are read through BorderIndex: no padded copy,
  // whatever win_length asks.
  auto run = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t r = 0; r < rows; ++r) {
      const T* in = x.data_as<T>() + r * len;
      T* o = out.mutable_data_as<T>() + r * len;
      for (int64_t t = 0; t < len; ++t) {
        double acc = 0;
        if (t - n >= 0 && t + n < len) {
          for (int64_t k = -n; k <= n; ++k) acc += static_cast<double>(k) * static_cast<double>(in[t + k]);
        } else {
          for (int64_t k = -n; k <= n; ++k) {
            const int64_t j = BorderIndex(t + k, len, pad_mode_);
            if (j >= 0) acc += static_cast<double>(k) * static_cast<double>(in[j]);
          }
        }
        o[t] = static_cast<T>(acc / denom);
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
