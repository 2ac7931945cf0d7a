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

Result<Tensor> TimeStretchOp::Apply(Tensor input, std::mt19937_64&) const {
  if (std::fabs(rate_ - 1.0) <= std::numeric_limits<float>::epsilon()) return input;
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 3, "<..., freq, time, complex=2>"));
  const Shape& s = x.shape();
  const size_t rank = s.size();
  if (s[rank - 1] != 2)
    return Status::InvalidArgument(name() + ": expected an array of shape <..., freq, time, complex=2>, got " +
                                   x.DebugString());
  const int64_t freq = s[rank - 3], frames = s[rank - 2], count = OuterCount(s, 3);
  if (freq != n_freq_)
    return Status::InvalidArgument(name() + ": n_freq is " + std::to_string(n_freq_) + " but the input has " +
                                   std::to_string(freq) + " frequency bins: " + x.DebugString());
  const double steps = frames == 0 ? 0 : std::ceil(static_cast<double>(frames) / rate_);
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(count * freq) * steps * 2));
  const int64_t out_frames = static_cast<int64_t>(steps);
  Shape shape = s;
  shape[rank - 2] = out_frames;
  Tensor out = Tensor::Make(x.type(), shape);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data_as<T>();
    T* o = out.mutable_data_as<T>();
    for (int64_t row = 0; out_frames > 0 && row < count * freq; ++row) {
      const T* z = in + row * frames * 2;
      T* y = o + row * out_frames * 2;
      const int64_t f = row % freq;
      const double advance = n_freq_ == 1 ? 0.0 : kAudioPi * hop_ * static_cast<double>(f) / static_cast<double>(n_freq_ - 1);
      StretchRow(z, frames, rate_, advance, y, out_frames);
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
