#include "pipeline/ops/audio_resample.h"

#include <cmath>
#include <numeric>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

constexpr double kDefaultKaiserBeta = 14.769656459379492;
// Kernels (phases x taps) up to this size are computed once; rates without
// a large common divisor (44100 -> 16001, PitchShift's) would need billions
// of weights, almost all zero: those compute the taps each sample needs.
constexpr double kMaxKernel = double{1 << 20};

Result<double> Rate(const nlohmann::json& spec, const char* key) {
  MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, "Resample", key, 16000.0));
  if (!(v > 0) || v > 16777216.0) return BadParameter("Resample", key, "must be in (0, 16777216]");
  return v;
}

}  // namespace

Result<std::unique_ptr<TensorOp>> ResampleOp::Make(const nlohmann::json& spec) {
  const std::string op = "Resample";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"orig_freq", "new_freq", "resample_method", "lowpass_filter_width",
                                          "rolloff", "beta"}));
  std::unique_ptr<ResampleOp> r(new ResampleOp());
  MR_ASSIGN_OR_RETURN(double orig, Rate(spec, "orig_freq"));
  MR_ASSIGN_OR_RETURN(double next, Rate(spec, "new_freq"));
  MR_ASSIGN_OR_RETURN(std::string method, GetString(spec, op, "resample_method", "sinc_interpolation"));
  if (method != "sinc_interpolation" && method != "kaiser_window")
    return BadParameter(op, "resample_method", "must be sinc_interpolation or kaiser_window, got \"" + method + "\"");
  MR_ASSIGN_OR_RETURN(int lpw, GetIntIn(spec, op, "lowpass_filter_width", 1, INT32_MAX, 6));
  MR_ASSIGN_OR_RETURN(double rolloff, GetNumber(spec, op, "rolloff", 0.99));
  if (!(rolloff > 0 && rolloff <= 1)) return BadParameter(op, "rolloff", "must be in (0, 1]");
  MR_ASSIGN_OR_RETURN(double beta, GetNumber(spec, op, "beta", kDefaultKaiserBeta));
  // I0(beta) overflows a double past ~700 (and libstdc++ throws far beyond).
  if (!(std::fabs(beta) <= 500)) return BadParameter(op, "beta", "must be in [-500, 500]");
  r->spec_ = {{"op", op}, {"orig_freq", orig}, {"new_freq", next}, {"resample_method", method},
              {"lowpass_filter_width", lpw}, {"rolloff", rolloff}, {"beta", beta}};
  if (orig == next) {
    r->identity_ = true;
    return std::unique_ptr<TensorOp>(std::move(r));
  }
  // MindSpore's reduction: the common divisor of the rates' integer parts.
  const int64_t g = std::gcd(static_cast<int64_t>(orig), static_cast<int64_t>(next));
  if (g == 0) return BadParameter(op, "orig_freq", "and new_freq must have integer parts with a common divisor");
  r->o_ = static_cast<int64_t>(std::floor(orig / static_cast<double>(g)));
  r->d_ = static_cast<int64_t>(std::floor(next / static_cast<double>(g)));
  if (r->o_ == 0 || r->d_ == 0) return BadParameter(op, "orig_freq", "and new_freq must reduce to rates above 0");
  const double base = static_cast<double>(std::min(r->o_, r->d_)) * rolloff;
  const double width = std::ceil(static_cast<double>(lpw) * static_cast<double>(r->o_) / base);
  const double taps = 2 * width + static_cast<double>(r->o_);
  r->width_ = static_cast<int64_t>(width);
  r->taps_ = static_cast<int64_t>(taps);
  r->base_ = base;
  r->lpw_ = static_cast<double>(lpw);
  r->beta_ = beta;
  r->i0_beta_ = std::cyl_bessel_i(0.0, beta);
  r->kaiser_ = method == "kaiser_window";
  if (static_cast<double>(r->d_) * taps <= kMaxKernel) {
    r->kernel_.resize(static_cast<size_t>(r->d_ * r->taps_));
    for (int64_t p = 0; p < r->d_; ++p)
      for (int64_t k = 0; k < r->taps_; ++k) r->kernel_[static_cast<size_t>(p * r->taps_ + k)] = r->Weight(p, k);
  }
  return std::unique_ptr<TensorOp>(std::move(r));
}

double ResampleOp::Weight(int64_t phase, int64_t tap) const {
  const double w = lpw_;
  double t = base_ * (static_cast<double>(tap - width_) / static_cast<double>(o_) -
                      static_cast<double>(phase) / static_cast<double>(d_));
  t = std::min(w, std::max(-w, t));
  const double window = kaiser_ ? std::cyl_bessel_i(0.0, beta_ * std::sqrt(std::max(0.0, 1 - (t / w) * (t / w)))) /
                                      i0_beta_
                                : std::pow(std::cos(t * kAudioPi / w / 2), 2);
  const double pt = kAudioPi * t;
  return base_ / static_cast<double>(o_) * (pt == 0 ? 1.0 : std::sin(pt) / pt) * window;
}

template <typename T>
void ResampleOp::Row(const T* x, int64_t len, T* out, int64_t out_len) const {
  // Taps further than lowpass_filter_width zero crossings from a phase's
  // centre are zero (clamped to the window's end).
  const double reach = lpw_ * static_cast<double>(o_) / base_;
  for (int64_t n = 0; n < out_len; ++n) {
    const int64_t r = n / d_, phase = n % d_, first = r * o_ - width_;
    int64_t lo = std::max<int64_t>(0, -first), hi = std::min<int64_t>(taps_, len - first);
    double acc = 0;
    if (!kernel_.empty()) {
      const double* k = kernel_.data() + phase * taps_;
      for (int64_t t = lo; t < hi; ++t) acc += k[t] * static_cast<double>(x[first + t]);
    } else {
      const double centre = static_cast<double>(width_) + static_cast<double>(phase) * static_cast<double>(o_) /
                                                              static_cast<double>(d_);
      lo = std::max<int64_t>(lo, static_cast<int64_t>(std::floor(centre - reach)));
      hi = std::min<int64_t>(hi, static_cast<int64_t>(std::ceil(centre + reach)) + 1);
      for (int64_t t = lo; t < hi; ++t) acc += Weight(phase, t) * static_cast<double>(x[first + t]);
    }
    out[n] = static_cast<T>(acc);
  }
}

Result<Tensor> ResampleOp::Apply(Tensor input, std::mt19937_64&) const {
  if (identity_) return input;
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  const int64_t out_len = static_cast<int64_t>(std::ceil(static_cast<double>(d_) * static_cast<double>(len) /
                                                         static_cast<double>(o_)));
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(rows) * static_cast<double>(out_len)));
  Shape shape = x.shape();
  shape[shape.size() - 1] = out_len;
  Tensor out = Tensor::Make(x.type(), shape);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t r = 0; r < rows; ++r)
      Row(x.data_as<T>() + r * len, len, out.mutable_data_as<T>() + r * out_len, out_len);
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
