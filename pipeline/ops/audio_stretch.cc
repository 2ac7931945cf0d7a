#include "pipeline/ops/audio_stretch.h"

#include <cmath>
#include <limits>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

template <typename T>
void StretchRow(const T* z, int64_t frames, double rate, double advance, T* y, int64_t out_frames) {
  if (out_frames == 0 || frames == 0) return;
  // Frame k of the row, zero past its end.
  auto at = [&](int64_t k, double* re, double* im) {
    *re = k < frames ? static_cast<double>(z[2 * k]) : 0.0;
    *im = k < frames ? static_cast<double>(z[2 * k + 1]) : 0.0;
  };
  double phase = std::atan2(static_cast<double>(z[1]), static_cast<double>(z[0]));
  for (int64_t j = 0; j < out_frames; ++j) {
    const double t = static_cast<double>(j) * rate;
    const int64_t t0 = static_cast<int64_t>(t);
    const double alpha = t - static_cast<double>(t0);
    double r0, i0, r1, i1;
    at(t0, &r0, &i0);
    at(t0 + 1, &r1, &i1);
    const double mag = alpha * std::hypot(r1, i1) + (1 - alpha) * std::hypot(r0, i0);
    y[2 * j] = static_cast<T>(std::cos(phase) * mag);
    y[2 * j + 1] = static_cast<T>(std::sin(phase) * mag);
    double d = std::atan2(i1, r1) - std::atan2(i0, r0) - advance;
    d -= 2 * kAudioPi * std::round(d / (2 * kAudioPi));
    phase += d + advance;
  }
}
template void StretchRow<float>(const float*, int64_t, double, double, float*, int64_t);
template void StretchRow<double>(const double*, int64_t, double, double, double*, int64_t);

Result<std::unique_ptr<TensorOp>> TimeStretchOp::Make(const nlohmann::json& spec) {
  const std::string op = "TimeStretch";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"hop_length", "n_freq", "fixed_rate"}));
  MR_ASSIGN_OR_RETURN(int n_freq, GetIntIn(spec, op, "n_freq", 1, INT32_MAX, 201));
  MR_ASSIGN_OR_RETURN(double hop, GetNumber(spec, op, "hop_length", static_cast<double>(n_freq - 1)));
  if (!(hop > 0) || !std::isfinite(hop)) return BadParameter(op, "hop_length", "must be a number > 0");
  MR_ASSIGN_OR_RETURN(double rate, GetNumber(spec, op, "fixed_rate", 1.0));
  if (!(rate > 0) || rate > 16777216.0) return BadParameter(op, "fixed_rate", "must be in (0, 16777216]");
  return std::unique_ptr<TensorOp>(new TimeStretchOp(hop, n_freq, rate));
}

namespace {

// `x` <..., freq, time, 2> stretched by `rate`, bin f's phase advancing
// advance(f) a frame; `op` names errors, `expected` says where n_freq
// comes from.
template <typename Advance>
Result<Tensor> Stretch(Tensor input, const std::string& op, double rate, int64_t n_freq, const std::string& expected,
                       Advance advance) {
  if (std::fabs(rate - 1.0) <= std::numeric_limits<float>::epsilon()) return input;
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), op, 3, "<..., freq, time, complex=2>"));
  const Shape& s = x.shape();
  const size_t rank = s.size();
  if (s[rank - 1] != 2)
    return Status::InvalidArgument(op + ": expected an array of shape <..., freq, time, complex=2>, got " +
                                   x.DebugString());
  const int64_t freq = s[rank - 3], frames = s[rank - 2], count = OuterCount(s, 3);
  if (freq != n_freq)
    return Status::InvalidArgument(op + ": " + expected + " but the input has " + std::to_string(freq) +
                                   " frequency bins: " + x.DebugString());
  const double steps = frames == 0 ? 0 : std::ceil(static_cast<double>(frames) / rate);
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(count * freq) * steps * 2));
  const int64_t out_frames = static_cast<int64_t>(steps);
  Shape shape = s;
  shape[rank - 2] = out_frames;
  Tensor out = Tensor::Make(x.type(), shape);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data_as<T>();
    T* o = out.mutable_data_as<T>();
    for (int64_t row = 0; out_frames > 0 && row < count * freq; ++row) {
      StretchRow(in + row * frames * 2, frames, rate, advance(row % freq), o + row * out_frames * 2, out_frames);
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace

Result<Tensor> TimeStretchOp::Apply(Tensor input, std::mt19937_64&) const {
  const double hop = hop_;
  const int64_t n = n_freq_;
  return Stretch(std::move(input), name(), rate_, n_freq_, "n_freq is " + std::to_string(n), [hop, n](int64_t f) {
    return n == 1 ? 0.0 : kAudioPi * hop * static_cast<double>(f) / static_cast<double>(n - 1);
  });
}

Result<std::unique_ptr<TensorOp>> PhaseVocoderOp::Make(const nlohmann::json& spec) {
  const std::string op = "PhaseVocoder";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"rate", "phase_advance"}));
  if (!spec.contains("rate")) return Status::InvalidArgument(op + ": parameter 'rate' is required");
  MR_ASSIGN_OR_RETURN(double rate, GetNumber(spec, op, "rate", 1.0));
  if (!(rate > 0) || rate > 16777216.0) return BadParameter(op, "rate", "must be in (0, 16777216]");
  if (!spec.contains("phase_advance")) return Status::InvalidArgument(op + ": parameter 'phase_advance' is required");
  MR_ASSIGN_OR_RETURN(std::vector<double> advance, GetNumbers(spec, op, "phase_advance", {}));
  if (advance.empty()) return BadParameter(op, "phase_advance", "must hold one advance per frequency bin");
  for (double a : advance) {
    if (!std::isfinite(a)) return BadParameter(op, "phase_advance", "must be finite numbers");
  }
  return std::unique_ptr<TensorOp>(new PhaseVocoderOp(rate, std::move(advance)));
}

Result<Tensor> PhaseVocoderOp::Apply(Tensor input, std::mt19937_64&) const {
  const std::vector<double>& a = advance_;
  return Stretch(std::move(input), name(), rate_, static_cast<int64_t>(a.size()),
                 "phase_advance holds " + std::to_string(a.size()) + " advances",
                 [&a](int64_t f) { return a[static_cast<size_t>(f)]; });
}

}  // namespace mindrecord::ops
