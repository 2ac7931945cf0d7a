#include "pipeline/ops/audio_effects.h"

#include <algorithm>
#include <cmath>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/layout.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

// A parameter's value as a message shows it: 0.99, 5, 1e+09.
std::string Shown(double v) { return nlohmann::json(v).dump(); }

Result<double> EffectParam(const nlohmann::json& spec, const std::string& op, const char* key, double def, double lo,
                           double hi) {
  MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, op, key, def));
  if (!(v >= lo && v <= hi)) {
    return BadParameter(op, key, "must be in [" + Shown(lo) + ", " + Shown(hi) + "], got " +
                                     Shown(v));
  }
  return v;
}

// Rates up to 2^24 Hz: the delay lines grow with the rate.
Result<int> EffectSampleRate(const nlohmann::json& spec, const std::string& op) {
  if (!spec.contains("sample_rate")) return Status::InvalidArgument(op + ": parameter 'sample_rate' is required");
  return GetIntIn(spec, op, "sample_rate", 1, 1 << 24, 0);
}

// The longest modulation period held as a table (16 MiB): 192 kHz at the
// slowest sweep (0.1 Hz) needs 1.92 M steps.
constexpr int64_t kMaxWaveTable = int64_t{1} << 22;

Status CheckWaveTable(const std::string& op, const char* key, int64_t size) {
  if (size >= 1 && size <= kMaxWaveTable) return Status::OK();
  return BadParameter(op, key, "makes a modulation period of " + std::to_string(size) + " samples (at most " +
                                   std::to_string(kMaxWaveTable) + ")");
}

// SoX's wave table (MindSpore's GenerateWaveTable, in float32 as its): one
// period of a sine or triangle of `size` steps spanning [lo, hi], starting
// `phase` radians in.
std::vector<float> WaveTable(bool sine, int64_t size, float lo, float hi, double phase) {
  std::vector<float> t(static_cast<size_t>(size));
  const int64_t off = static_cast<int64_t>(phase / kAudioPi / 2 * static_cast<double>(size) + 0.5);
  for (int64_t i = 0; i < size; ++i) {
    const int64_t p = (i + off) % size;
    float v;
    if (sine) {
      v = static_cast<float>((std::sin(static_cast<double>(p) * kAudioPi / static_cast<double>(size) * 2) + 1) / 2);
    } else {
      v = static_cast<float>(static_cast<double>(p) * 2.0 / static_cast<double>(size));
      const int64_t q = 4 * p / size;
      if (q == 0) v += 0.5f;
      else if (q == 1 || q == 2) v = 1.5f - v;
      else v -= 1.5f;
    }
    t[static_cast<size_t>(i)] = v * (hi - lo) + lo;
  }
  return t;
}

template <typename T>
T ClampUnit(T v) {
  return std::min<T>(1, std::max<T>(-1, v));
}

}  // namespace

// ---- Contrast ---------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> ContrastOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Contrast", {"enhancement_amount"}));
  MR_ASSIGN_OR_RETURN(double amount, EffectParam(spec, "Contrast", "enhancement_amount", 75.0, 0, 100));
  return std::unique_ptr<TensorOp>(new ContrastOp(amount));
}

Result<Tensor> ContrastOp::Apply(Tensor input, std::mt19937_64&) const {
  const double a = amount_ / 750.0;
  return MapElements(std::move(input), name(), 1, "<..., time>", [a](double x) {
    const double t = x * kAudioPi / 2;
    return std::sin(t + a * std::sin(4 * t));
  });
}

// ---- Overdrive --------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> OverdriveOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Overdrive", {"gain", "color"}));
  MR_ASSIGN_OR_RETURN(double gain, EffectParam(spec, "Overdrive", "gain", 20.0, 0, 100));
  MR_ASSIGN_OR_RETURN(double color, EffectParam(spec, "Overdrive", "color", 20.0, 0, 100));
  return std::unique_ptr<TensorOp>(new OverdriveOp(gain, color));
}

Result<Tensor> OverdriveOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  // MindSpore rounds the gain and offset to float32 whatever the input.
  const float g = static_cast<float>(std::exp(gain_ * std::log(10.0) / 20));
  const float c = static_cast<float>(color_ / 200);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    for (int64_t r = 0; r < rows; ++r) {
      T last_in = 0, last_out = 0;
      for (int64_t i = 0; i < len; ++i) {
        T& s = d[r * len + i];
        const T u = s * static_cast<T>(g) + static_cast<T>(c);
        const T clipped = u < -1 ? T(-2.0 / 3) : u > 1 ? T(2.0 / 3) : u - u * u * u / 3;
        last_out = clipped - last_in + last_out * T(0.995);
        last_in = clipped;
        s = ClampUnit<T>(s * T(0.5) + last_out * T(0.75));
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return x;
}

// ---- Phaser -----------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> PhaserOp::Make(const nlohmann::json& spec) {
  const std::string op = "Phaser";
  MR_RETURN_IF_ERROR(
      CheckKeys(spec, op, {"sample_rate", "gain_in", "gain_out", "delay_ms", "decay", "mod_speed", "sinusoidal"}));
  std::unique_ptr<PhaserOp> p(new PhaserOp());
  MR_ASSIGN_OR_RETURN(int rate, EffectSampleRate(spec, op));
  MR_ASSIGN_OR_RETURN(p->gain_in_, EffectParam(spec, op, "gain_in", 0.4, 0, 1));
  MR_ASSIGN_OR_RETURN(p->gain_out_, EffectParam(spec, op, "gain_out", 0.74, 0, 1e9));
  MR_ASSIGN_OR_RETURN(double delay_ms, EffectParam(spec, op, "delay_ms", 3.0, 0, 5));
  MR_ASSIGN_OR_RETURN(p->decay_, EffectParam(spec, op, "decay", 0.4, 0, 0.99));
  MR_ASSIGN_OR_RETURN(double speed, EffectParam(spec, op, "mod_speed", 0.5, 0.1, 2));
  MR_ASSIGN_OR_RETURN(bool sine, GetBool(spec, op, "sinusoidal", true));
  p->delay_len_ = static_cast<int64_t>(delay_ms * 0.001 * rate + 0.5);
  if (p->delay_len_ == 0) {
    return BadParameter(op, "delay_ms", "gives no delay at " + std::to_string(rate) + " Hz (" +
                                            Shown(delay_ms) + " ms is less than half a sample)");
  }
  const int64_t mod_len = static_cast<int64_t>(static_cast<float>(rate) / static_cast<float>(speed) + 0.5f);
  MR_RETURN_IF_ERROR(CheckWaveTable(op, "mod_speed", mod_len));
  for (float v : WaveTable(sine, mod_len, 1.0f, static_cast<float>(p->delay_len_), kAudioPi / 2)) {
    p->mod_.push_back(static_cast<int32_t>(v + (v < 0 ? -0.5f : 0.5f)));
  }
  p->spec_ = {{"op", op},         {"sample_rate", rate},    {"gain_in", p->gain_in_},
              {"gain_out", p->gain_out_}, {"delay_ms", delay_ms}, {"decay", p->decay_},
              {"mod_speed", speed}, {"sinusoidal", sine}};
  return std::unique_ptr<TensorOp>(std::move(p));
}

Result<Tensor> PhaserOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  const int64_t dlen = delay_len_, mlen = static_cast<int64_t>(mod_.size());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    std::vector<T> buf(static_cast<size_t>(dlen));
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(buf.begin(), buf.end(), T(0));
      int64_t dpos = 0, mpos = 0;
      for (int64_t i = 0; i < len; ++i) {
        const int64_t tap = (dpos + mod_[static_cast<size_t>(mpos)]) % dlen;
        mpos = (mpos + 1) % mlen;
        dpos = (dpos + 1) % dlen;
        T& s = d[r * len + i];
        const T y = s * static_cast<T>(gain_in_) + buf[static_cast<size_t>(tap)];
        buf[static_cast<size_t>(dpos)] = y * static_cast<T>(decay_);
        s = ClampUnit<T>(y * static_cast<T>(gain_out_));
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return x;
}

// ---- Flanger ----------------------------------------------------------------

Result<std::unique_ptr<TensorOp>> FlangerOp::Make(const nlohmann::json& spec) {
  const std::string op = "Flanger";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "delay", "depth", "regen", "width", "speed", "phase",
                                          "modulation", "interpolation"}));
  std::unique_ptr<FlangerOp> f(new FlangerOp());
  MR_ASSIGN_OR_RETURN(int rate, EffectSampleRate(spec, op));
  MR_ASSIGN_OR_RETURN(double delay, EffectParam(spec, op, "delay", 0.0, 0, 30));
  MR_ASSIGN_OR_RETURN(double depth, EffectParam(spec, op, "depth", 2.0, 0, 10));
  MR_ASSIGN_OR_RETURN(double regen, EffectParam(spec, op, "regen", 0.0, -95, 95));
  MR_ASSIGN_OR_RETURN(double width, EffectParam(spec, op, "width", 71.0, 0, 100));
  MR_ASSIGN_OR_RETURN(double speed, EffectParam(spec, op, "speed", 0.5, 0.1, 10));
  MR_ASSIGN_OR_RETURN(double phase, EffectParam(spec, op, "phase", 25.0, 0, 100));
  MR_ASSIGN_OR_RETURN(std::string modulation, GetString(spec, op, "modulation", "sinusoidal"));
  MR_ASSIGN_OR_RETURN(std::string interpolation, GetString(spec, op, "interpolation", "linear"));
  if (modulation != "sinusoidal" && modulation != "triangular") {
    return BadParameter(op, "modulation", "must be sinusoidal or triangular, got \"" + modulation + "\"");
  }
  if (interpolation != "linear" && interpolation != "quadratic") {
    return BadParameter(op, "interpolation", "must be linear or quadratic, got \"" + interpolation + "\"");
  }
  f->feedback_ = regen / 100;
  double wet = width / 100;
  f->dry_ = 1 / (1 + wet);
  f->wet_ = wet / (1 + wet) * (1 - std::fabs(f->feedback_));
  f->phase_ = phase / 100;
  f->quadratic_ = interpolation == "quadratic";
  const double dmin = delay / 1000, ddepth = depth / 1000;
  f->delay_len_ = static_cast<int64_t>((dmin + ddepth) * rate + 0.5) + 2;
  const int64_t lfo_len = static_cast<int64_t>(rate / speed);
  MR_RETURN_IF_ERROR(CheckWaveTable(op, "speed", lfo_len));
  const double tmin = std::floor(dmin * rate + 0.5);
  f->lfo_ = WaveTable(modulation == "sinusoidal", lfo_len, static_cast<float>(tmin),
                      static_cast<float>(f->delay_len_ - 2), 3 * kAudioPi / 2);
  f->spec_ = {{"op", op},     {"sample_rate", rate}, {"delay", delay},           {"depth", depth},
              {"regen", regen}, {"width", width},     {"speed", speed},           {"phase", phase},
              {"modulation", modulation},            {"interpolation", interpolation}};
  return std::unique_ptr<TensorOp>(std::move(f));
}

Result<Tensor> FlangerOp::Apply(Tensor input, std::mt19937_64&) const {
  const TensorType in_type = input.type();
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., channel, time>"));
  const Shape& s = x.shape();
  const int64_t len = s.back(), channels = s[s.size() - 2], count = OuterCount(s, 2);
  if (channels > 4) {
    return Status::InvalidArgument(name() + ": at most 4 channels (<..., channel, time>), got " + x.DebugString());
  }
  const int64_t dl = delay_len_, lfo_len = static_cast<int64_t>(lfo_.size());
  // Each channel's place in the sweep.
  std::vector<int64_t> offset(static_cast<size_t>(channels));
  for (int64_t k = 0; k < channels; ++k) {
    offset[static_cast<size_t>(k)] =
        static_cast<int64_t>(static_cast<double>(k * lfo_len) * phase_ + 0.5);
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    std::vector<T> buf(static_cast<size_t>(channels * dl)), last(static_cast<size_t>(channels));
    for (int64_t b = 0; b < count; ++b) {
      std::fill(buf.begin(), buf.end(), T(0));
      std::fill(last.begin(), last.end(), T(0));
      T* row = d + b * channels * len;
      int64_t pos = 0, lp = 0;
      for (int64_t i = 0; i < len; ++i) {
        pos = (pos + dl - 1) % dl;
        for (int64_t k = 0; k < channels; ++k) {
          const double tap = lfo_[static_cast<size_t>((lp + offset[static_cast<size_t>(k)]) % lfo_len)];
          const T frac = static_cast<T>(tap - std::trunc(tap));
          const int64_t whole = static_cast<int64_t>(std::floor(tap));
          T* line = buf.data() + k * dl;
          T& sample = row[k * len + i];
          line[pos] = sample + last[static_cast<size_t>(k)] * static_cast<T>(feedback_);
          const T a = line[(pos + whole) % dl];
          T bb = line[(pos + whole + 1) % dl];
          T delayed;
          if (quadratic_) {
            T c = line[(pos + whole + 2) % dl] - a;
            bb -= a;
            const T qa = c * T(0.5) - bb, qb = bb * 2 - c * T(0.5);
            delayed = a + (qa * frac + qb) * frac;
          } else {
            delayed = a + (bb - a) * frac;
          }
          last[static_cast<size_t>(k)] = delayed;
          sample = ClampUnit<T>(sample * static_cast<T>(dry_) + delayed * static_cast<T>(wet_));
        }
        lp = (lp + 1) % lfo_len;
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  if (in_type == TensorType::kFloat32 || in_type == TensorType::kFloat64) return x;
  // MindSpore gives the input's type back, truncating.
  float* v = x.mutable_data_as<float>();
  for (int64_t i = 0; i < x.num_elements(); ++i) v[i] = std::trunc(v[i]);
  return CastTensor(x, in_type, name());
}

}  // namespace mindrecord::ops
