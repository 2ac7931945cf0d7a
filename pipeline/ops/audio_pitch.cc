#include "pipeline/ops/audio_pitch.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> DetectPitchFrequencyOp::Make(const nlohmann::json& spec) {
  const std::string op = "DetectPitchFrequency";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"sample_rate", "frame_time", "win_length", "freq_low", "freq_high"}));
  std::unique_ptr<DetectPitchFrequencyOp> p(new DetectPitchFrequencyOp());
  if (!spec.contains("sample_rate")) return Status::InvalidArgument(op + ": parameter 'sample_rate' is required");
  MR_ASSIGN_OR_RETURN(p->rate_, GetIntIn(spec, op, "sample_rate", 1, INT32_MAX, 0));
  MR_ASSIGN_OR_RETURN(p->frame_time_, GetNumber(spec, op, "frame_time", 0.01));
  if (!(p->frame_time_ > 0) || p->frame_time_ > 16777216) return BadParameter(op, "frame_time", "must be in (0, 16777216]");
  MR_ASSIGN_OR_RETURN(p->win_, GetIntIn(spec, op, "win_length", 1, INT32_MAX, 30));
  MR_ASSIGN_OR_RETURN(p->freq_low_, GetIntIn(spec, op, "freq_low", 1, 16777216, 85));
  MR_ASSIGN_OR_RETURN(p->freq_high_, GetIntIn(spec, op, "freq_high", 1, 16777216, 3400));
  // float32, as MindSpore's kernel computes them.
  const float rate = static_cast<float>(p->rate_);
  p->frame_ = static_cast<int64_t>(std::ceil(rate * static_cast<float>(p->frame_time_)));
  p->lags_ = static_cast<int64_t>(std::ceil(rate / static_cast<float>(p->freq_low_)));
  p->lag_min_ = static_cast<int64_t>(std::ceil(rate / static_cast<float>(p->freq_high_)));
  if (p->lag_min_ >= p->lags_) {
    return BadParameter(op, "freq_high", "must leave a lag below freq_low's: lags " + std::to_string(p->lag_min_) +
                                             " to " + std::to_string(p->lags_) + " at " + std::to_string(p->rate_) +
                                             " Hz");
  }
  if (p->frame_ > (int64_t{1} << 31)) return BadParameter(op, "frame_time", "makes frames of more than 2^31 samples");
  return std::unique_ptr<TensorOp>(std::move(p));
}

nlohmann::json DetectPitchFrequencyOp::ToJson() const {
  return {{"op", "DetectPitchFrequency"}, {"sample_rate", rate_},   {"frame_time", frame_time_},
          {"win_length", win_},           {"freq_low", freq_low_}, {"freq_high", freq_high_}};
}

Result<Tensor> DetectPitchFrequencyOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  const int64_t frames = (len + frame_ - 1) / frame_;
  const int64_t pad = (win_ - 1) / 2, out_len = frames + pad - win_ + 1;
  if (len == 0 || out_len <= 0) {
    return Status::InvalidArgument(name() + ": " + std::to_string(len) + " samples make " + std::to_string(frames) +
                                   " frames of " + std::to_string(frame_) + ", fewer than win_length " +
                                   std::to_string(win_) + " needs: " + x.DebugString());
  }
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(rows) * static_cast<double>(frames + lags_) *
                                                     static_cast<double>(frame_)));
  Shape shape = x.shape();
  shape[shape.size() - 1] = out_len;
  Tensor out = Tensor::Make(TensorType::kFloat32, shape);
  float* o = out.mutable_data_as<float>();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* d = x.data_as<T>();
    std::vector<T> padded(static_cast<size_t>(lags_ + frames * frame_));
    std::vector<T> nccf(static_cast<size_t>(lags_));
    std::vector<int64_t> best(static_cast<size_t>(pad + frames));
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(std::copy(d + r * len, d + (r + 1) * len, padded.begin()), padded.end(), T(0));
      for (int64_t f = 0; f < frames; ++f) {
        const T* a = padded.data() + f * frame_;
        for (int64_t lag = 1; lag <= lags_; ++lag) {
          T num = 0, e1 = 0, e2 = 0;
          for (int64_t n = 0; n < frame_; ++n) {
            num += a[n] * a[n + lag];
            e1 += a[n] * a[n];
            e2 += a[n + lag] * a[n + lag];
          }
          nccf[static_cast<size_t>(lag - 1)] = e1 != 0 && e2 != 0 ? num / e1 / e2 : T(0);
        }
        // The best lag, and the best of the first half (the octave below).
        const int64_t half = lags_ / 2;
        int64_t best_i = lag_min_, half_i = lag_min_;
        for (int64_t i = lag_min_; i < lags_; ++i) {
          if (nccf[static_cast<size_t>(i)] > nccf[static_cast<size_t>(best_i)]) best_i = i;
          if (i < half && nccf[static_cast<size_t>(i)] > nccf[static_cast<size_t>(half_i)]) half_i = i;
        }
        const bool octave = nccf[static_cast<size_t>(half_i)] > T(0.99) * nccf[static_cast<size_t>(best_i)];
        best[static_cast<size_t>(pad + f)] = (octave ? half_i : best_i) + 1;
      }
      for (int64_t i = 0; i < pad; ++i) best[static_cast<size_t>(i)] = best[static_cast<size_t>(pad)];
      std::vector<int64_t> window(static_cast<size_t>(win_));
      for (int64_t j = 0; j < out_len; ++j) {
        std::copy(best.begin() + j, best.begin() + j + win_, window.begin());
        std::nth_element(window.begin(), window.begin() + pad, window.end());
        o[r * out_len + j] = static_cast<float>(static_cast<double>(rate_) / (1e-9 + static_cast<double>(window[static_cast<size_t>(pad)])));
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
