#include "pipeline/ops/audio_vad.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <opencv2/core.hpp>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

// The longest measure window and detector memory (samples per row).
constexpr int64_t kMaxVadSamples = int64_t{1} << 24;

// One row's detector state.
struct VadRow {
  std::vector<double> samples, spectrum, noise, measures;
  double mean = 0;
};

// SoX's cepstral power measure of the measure_len samples ending before
// `index` in the row's ring buffer; updates the smoothed spectrum and noise.
double Measure(const VadOp::Params& p, VadRow& r, int64_t index, int64_t boot_count, cv::Mat& buf, cv::Mat& spec,
               cv::Mat& cep_buf, cv::Mat& cep) {
  const int64_t len = static_cast<int64_t>(r.samples.size());
  double* b = buf.ptr<double>();
  for (int64_t i = 0; i < p.dft_len; ++i) {
    b[i] = i < p.measure_len ? r.samples[static_cast<size_t>((index + i) % len)] *
                                   p.spectrum_window[static_cast<size_t>(i)]
                             : 0.0;
  }
  cv::dft(buf, spec, cv::DFT_COMPLEX_OUTPUT);
  const cv::Vec2d* s = spec.ptr<cv::Vec2d>();
  const double mult = boot_count >= 0 ? static_cast<double>(boot_count) / (1.0 + boot_count) : p.smooth_mult;
  double* c = cep_buf.ptr<double>();
  std::fill(c, c + cep_buf.cols, 0.0);
  for (int64_t k = p.spec_start; k < p.spec_end; ++k) {
    const size_t ks = static_cast<size_t>(k);
    r.spectrum[ks] = r.spectrum[ks] * mult + std::hypot(s[k][0], s[k][1]) * (1 - mult);
    const double d = r.spectrum[ks] * r.spectrum[ks];
    const double nm = boot_count >= 0 ? 0.0 : d > r.noise[ks] ? p.noise_up_mult : p.noise_down_mult;
    r.noise[ks] = r.noise[ks] * nm + d * (1 - nm);
    c[k] = std::sqrt(std::max(0.0, d - p.noise_reduction * r.noise[ks])) *
           p.cepstrum_window[static_cast<size_t>(k - p.spec_start)];
  }
  cv::dft(cep_buf, cep, cv::DFT_COMPLEX_OUTPUT);
  const cv::Vec2d* q = cep.ptr<cv::Vec2d>();
  double sum = 0;
  for (int64_t k = p.cep_start; k < p.cep_end; ++k) sum += q[k][0] * q[k][0] + q[k][1] * q[k][1];
  if (!(sum > 0)) return 0.0;
  return std::max(0.0, 21 + std::log(sum / static_cast<double>(p.cep_end - p.cep_start)));
}

// Hann window of n (torch.hann_window, periodic) times 2 / sqrt(n).
std::vector<double> ScaledHann(int64_t n) {
  std::vector<double> w(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    w[static_cast<size_t>(i)] = 2.0 / std::sqrt(static_cast<double>(n)) *
                                (0.5 - 0.5 * std::cos(2 * kAudioPi * static_cast<double>(i) / static_cast<double>(n)));
  }
  return w;
}

}  // namespace

Result<std::unique_ptr<TensorOp>> VadOp::Make(const nlohmann::json& spec) {
  const std::string op = "Vad";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "trigger_level", "trigger_time", "search_time",
                                          "allowed_gap", "pre_trigger_time", "boot_time", "noise_up_time",
                                          "noise_down_time", "noise_reduction_amount", "measure_freq",
                                          "measure_duration", "measure_smooth_time", "hp_filter_freq",
                                          "lp_filter_freq", "hp_lifter_freq", "lp_lifter_freq"}));
  std::unique_ptr<VadOp> v(new VadOp());
  if (!spec.contains("sample_rate")) return Status::InvalidArgument(op + ": parameter 'sample_rate' is required");
  MR_ASSIGN_OR_RETURN(int rate, GetIntIn(spec, op, "sample_rate", 1, INT32_MAX, 0));
  nlohmann::json out = {{"op", op}, {"sample_rate", rate}};
  auto num = [&](const char* key, double def, double lo, bool lo_open) -> Result<double> {
    MR_ASSIGN_OR_RETURN(double x, GetNumber(spec, op, key, def));
    if (!std::isfinite(x) || (lo_open ? !(x > lo) : !(x >= lo)) || x > 16777216) {
      return BadParameter(op, key, std::string("must be in ") + (lo_open ? "(" : "[") + std::to_string(int(lo)) +
                                       ", 16777216]");
    }
    out[key] = x;
    return x;
  };
  MR_ASSIGN_OR_RETURN(double trigger_level, GetNumber(spec, op, "trigger_level", 7.0));
  if (!std::isfinite(trigger_level)) return BadParameter(op, "trigger_level", "must be a finite number");
  out["trigger_level"] = trigger_level;
  MR_ASSIGN_OR_RETURN(double trigger_time, num("trigger_time", 0.25, 0, false));
  MR_ASSIGN_OR_RETURN(double search_time, num("search_time", 1.0, 0, false));
  MR_ASSIGN_OR_RETURN(double allowed_gap, num("allowed_gap", 0.25, 0, false));
  MR_ASSIGN_OR_RETURN(double pre_trigger_time, num("pre_trigger_time", 0.0, 0, false));
  MR_ASSIGN_OR_RETURN(double boot_time, num("boot_time", 0.35, 0, false));
  MR_ASSIGN_OR_RETURN(double noise_up_time, num("noise_up_time", 0.1, 0, false));
  MR_ASSIGN_OR_RETURN(double noise_down_time, num("noise_down_time", 0.01, 0, false));
  if (noise_up_time < noise_down_time) {
    return BadParameter(op, "noise_up_time", "must be at least noise_down_time");
  }
  MR_ASSIGN_OR_RETURN(double noise_reduction, num("noise_reduction_amount", 1.35, 0, false));
  MR_ASSIGN_OR_RETURN(double measure_freq, num("measure_freq", 20.0, 0, true));
  MR_ASSIGN_OR_RETURN(double measure_duration, num("measure_duration", 2.0 / measure_freq, 0, false));
  if (measure_duration == 0) measure_duration = out["measure_duration"] = 2.0 / measure_freq;  // MindSpore's
  MR_ASSIGN_OR_RETURN(double smooth_time, num("measure_smooth_time", 0.4, 0, false));
  MR_ASSIGN_OR_RETURN(double hp_filter, num("hp_filter_freq", 50.0, 0, true));
  MR_ASSIGN_OR_RETURN(double lp_filter, num("lp_filter_freq", 6000.0, 0, true));
  MR_ASSIGN_OR_RETURN(double hp_lifter, num("hp_lifter_freq", 150.0, 0, true));
  MR_ASSIGN_OR_RETURN(double lp_lifter, num("lp_lifter_freq", 2000.0, 0, true));

  Params& p = v->p_;
  p.trigger_level = trigger_level;
  p.noise_reduction = noise_reduction;
  const double measure_len = static_cast<double>(rate) * measure_duration + 0.5;
  const double period = static_cast<double>(rate) / measure_freq + 0.5;
  const double measures = std::ceil(search_time * measure_freq);
  const double fixed = pre_trigger_time * rate + 0.5;
  const double total = std::floor(fixed) + measures * std::floor(period) + std::floor(measure_len);
  if (measure_len >= static_cast<double>(kMaxVadSamples) || total >= static_cast<double>(kMaxVadSamples) ||
      period >= static_cast<double>(kMaxVadSamples)) {
    return BadParameter(op, "sample_rate", "makes a detector window of more than 2^24 samples (times or rate too "
                                           "large)");
  }
  if (measures < 1) return BadParameter(op, "search_time", "must give at least one measure (search_time * measure_freq)");
  if (period < 1) return BadParameter(op, "measure_freq", "must be at most the sample rate");
  p.measure_len = static_cast<int64_t>(measure_len);
  p.dft_len = 16;
  while (p.dft_len < p.measure_len) p.dft_len *= 2;
  p.period = static_cast<int64_t>(period);
  p.measures = static_cast<int64_t>(measures);
  p.gap = static_cast<int64_t>(allowed_gap * measure_freq + 0.5);
  p.samples_len = static_cast<int64_t>(fixed) + p.measures * p.period + p.measure_len;
  p.spec_start = std::max<int64_t>(static_cast<int64_t>(hp_filter / rate * static_cast<double>(p.dft_len) + 0.5), 1);
  p.spec_end = std::min<int64_t>(static_cast<int64_t>(std::min(lp_filter / rate * static_cast<double>(p.dft_len) + 0.5,
                                                               1e18)),
                                 p.dft_len / 2);
  if (p.spec_end <= p.spec_start) {
    return BadParameter(op, "hp_filter_freq", "leaves no spectrum below lp_filter_freq at this rate");
  }
  p.cep_start = static_cast<int64_t>(std::ceil(rate * 0.5 / lp_lifter));
  p.cep_end = std::min<int64_t>(static_cast<int64_t>(std::min(std::floor(rate * 0.5 / hp_lifter), 1e18)), p.dft_len / 4);
  if (p.cep_end <= p.cep_start) {
    return BadParameter(op, "hp_lifter_freq", "leaves no cepstrum below lp_lifter_freq at this rate");
  }
  p.noise_up_mult = std::exp(-1.0 / (noise_up_time * measure_freq));
  p.noise_down_mult = std::exp(-1.0 / (noise_down_time * measure_freq));
  p.smooth_mult = std::exp(-1.0 / (smooth_time * measure_freq));
  p.trigger_mult = std::exp(-1.0 / (trigger_time * measure_freq));
  p.boot_max = static_cast<int64_t>(boot_time * measure_freq - 0.5);
  p.spectrum_window = ScaledHann(p.measure_len);
  p.cepstrum_window = ScaledHann(p.spec_end - p.spec_start);
  v->spec_ = std::move(out);
  return std::unique_ptr<TensorOp>(std::move(v));
}

Result<Tensor> VadOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  const Params& p = p_;
  const int64_t S = p.samples_len;
  std::vector<VadRow> state(static_cast<size_t>(rows));
  for (auto& r : state) {
    r.samples.assign(static_cast<size_t>(S), 0.0);
    r.spectrum.assign(static_cast<size_t>(p.dft_len), 0.0);
    r.noise.assign(static_cast<size_t>(p.dft_len), 0.0);
    r.measures.assign(static_cast<size_t>(p.measures), 0.0);
  }
  cv::Mat buf(1, static_cast<int>(p.dft_len), CV_64F), spec, cep_buf(1, static_cast<int>(p.dft_len / 2), CV_64F), cep;
  int64_t timer = p.measure_len, boot_count = 0, mi = 0, flushed = 0, si = 0, to_flush = 0, pos = 0;
  bool triggered = false;
  auto sample = [&](int64_t r, int64_t i) -> double {
    return x.type() == TensorType::kFloat64 ? x.data_as<double>()[r * len + i] : x.data_as<float>()[r * len + i];
  };
  while (pos < len && !triggered) {
    --timer;
    for (int64_t r = 0; r < rows; ++r) {
      VadRow& row = state[static_cast<size_t>(r)];
      row.samples[static_cast<size_t>(si)] = sample(r, pos);
      if (timer != 0) continue;
      const int64_t index = (si + S - p.measure_len) % S;
      const double meas = Measure(p, row, index, boot_count, buf, spec, cep_buf, cep);
      row.measures[static_cast<size_t>(mi)] = meas;
      row.mean = row.mean * p.trigger_mult + meas * (1.0 - p.trigger_mult);
      triggered = triggered || row.mean >= p.trigger_level;
      if (triggered) {
        // How far back the quieter bursts before the trigger go.
        const int64_t n = p.measures;
        int64_t k = mi, j_trigger = n, j_zero = n;
        for (int64_t j = 0; j < n; ++j) {
          const double m = row.measures[static_cast<size_t>(k)];
          if (m >= p.trigger_level && j <= j_trigger + p.gap) {
            j_zero = j_trigger = j;
          } else if (m == 0 && j_trigger >= j_zero) {
            j_zero = j;
          }
          k = (k + n - 1) % n;
        }
        to_flush = std::min(std::max(to_flush, std::min(n - 1, j_zero)), n);
      }
    }
    ++si;
    ++pos;
    if (si == S) si = 0;
    if (timer == 0) {
      timer = p.period;
      mi = (mi + 1) % p.measures;
      if (boot_count >= 0) boot_count = boot_count == p.boot_max ? -1 : boot_count + 1;
    }
    if (triggered) {
      flushed = (p.measures - to_flush) * p.period;
      si = (si + flushed) % S;
    }
  }
  // torchaudio's x[..., pos - S + flushed:], negative starts counting from the end.
  int64_t start = pos - S + flushed;
  if (start < 0) start = std::max<int64_t>(0, start + len);
  start = std::min(start, len);
  Shape shape = x.shape();
  shape[shape.size() - 1] = len - start;
  Tensor out = Tensor::Make(x.type(), shape);
  const size_t esize = TensorTypeSize(x.type());
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(out.MutableData() + static_cast<size_t>(r * (len - start)) * esize,
                x.data() + static_cast<size_t>(r * len + start) * esize, static_cast<size_t>(len - start) * esize);
  }
  return out;
}

}  // namespace mindrecord::ops
