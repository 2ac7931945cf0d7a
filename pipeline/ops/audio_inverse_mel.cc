#include "pipeline/ops/audio_inverse_mel.h"

#include <cmath>
#include <random>

#include <opencv2/core.hpp>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> InverseMelScaleOp::Make(const nlohmann::json& spec) {
  const std::string op = "InverseMelScale";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"n_stft", "n_mels", "sample_rate", "f_min", "f_max", "norm", "mel_type",
                                          "max_iter", "tolerance_loss", "tolerance_change", "sgd_lr",
                                          "sgd_momentum"}));
  std::unique_ptr<InverseMelScaleOp> m(new InverseMelScaleOp());
  MR_ASSIGN_OR_RETURN(m->mel_, MelParams::Parse(spec, op));
  if (!spec.contains("n_stft")) return Status::InvalidArgument(op + ": parameter 'n_stft' is required");
  MR_ASSIGN_OR_RETURN(m->n_stft_, GetIntIn(spec, op, "n_stft", 2, 1 << 20, 0));
  MR_ASSIGN_OR_RETURN(m->max_iter_, GetIntIn(spec, op, "max_iter", 1, INT32_MAX, 100000));
  auto positive = [&](const char* key, double def, bool zero_ok) -> Result<double> {
    MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, op, key, def));
    if (!(zero_ok ? v >= 0 : v > 0) || v > 16777216) {
      return BadParameter(op, key, zero_ok ? "must be in [0, 16777216]" : "must be in (0, 16777216]");
    }
    return v;
  };
  MR_ASSIGN_OR_RETURN(m->tolerance_loss_, positive("tolerance_loss", 1e-5, false));
  MR_ASSIGN_OR_RETURN(m->tolerance_change_, positive("tolerance_change", 1e-8, false));
  MR_ASSIGN_OR_RETURN(m->lr_, positive("sgd_lr", 0.1, true));
  MR_ASSIGN_OR_RETURN(m->momentum_, positive("sgd_momentum", 0.9, true));
  MR_RETURN_IF_ERROR(CheckOutputElements(op, static_cast<double>(m->n_stft_) * static_cast<double>(m->mel_.n_mels)));
  m->fb_ = MelFilterbank(m->n_stft_, m->mel_.f_min, m->mel_.f_max, m->mel_.n_mels, m->mel_.sample_rate,
                         m->mel_.slaney_norm, m->mel_.slaney_scale);
  return std::unique_ptr<TensorOp>(std::move(m));
}

nlohmann::json InverseMelScaleOp::ToJson() const {
  nlohmann::json j = {{"op", "InverseMelScale"}, {"n_stft", n_stft_},        {"max_iter", max_iter_},
                      {"tolerance_loss", tolerance_loss_}, {"tolerance_change", tolerance_change_},
                      {"sgd_lr", lr_},                   {"sgd_momentum", momentum_}};
  mel_.AddTo(j);
  return j;
}

Result<Tensor> InverseMelScaleOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., n_mels, time>"));
  const Shape& s = x.shape();
  const int64_t n_mels = s[s.size() - 2], time = s.back(), count = OuterCount(s, 2);
  if (n_mels != mel_.n_mels) {
    return Status::InvalidArgument(name() + ": n_mels is " + std::to_string(mel_.n_mels) + " but the input has " +
                                   std::to_string(n_mels) + " mel bins: " + x.DebugString());
  }
  MR_RETURN_IF_ERROR(CheckOutputElements(name(), static_cast<double>(count * n_stft_) * static_cast<double>(time)));
  Shape shape = s;
  shape[shape.size() - 2] = n_stft_;
  Tensor out = Tensor::Make(x.type(), shape);
  if (time == 0 || count == 0) return out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    constexpr int kType = std::is_same_v<T, double> ? CV_64F : CV_32F;
    const int t = static_cast<int>(time), f = static_cast<int>(n_stft_), m = static_cast<int>(n_mels);
    cv::Mat fb(f, m, kType);
    for (int i = 0; i < f * m; ++i) fb.ptr<T>()[i] = static_cast<T>(fb_[static_cast<size_t>(i)]);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    cv::Mat spec, pred, diff, grad, step, velocity, next;
    for (int64_t c = 0; c < count; ++c) {
      // The mel spectrogram as time x n_mels; S as time x n_stft.
      cv::Mat mel(m, t, kType, const_cast<T*>(x.data_as<T>()) + c * n_mels * time);
      cv::Mat target = mel.t();
      spec.create(t, f, kType);
      for (int i = 0; i < f; ++i) {
        for (int j = 0; j < t; ++j) spec.at<T>(j, i) = static_cast<T>(uniform(rng));  // in output (freq, time) order
      }
      velocity = cv::Mat::zeros(t, f, kType);
      double loss = std::numeric_limits<double>::max();
      for (int64_t it = 0; it < max_iter_; ++it) {
        cv::gemm(spec, fb, 1.0, cv::noArray(), 0.0, pred);
        cv::subtract(target, pred, diff);
        const double new_loss = diff.dot(diff) / static_cast<double>(t * m);
        if (new_loss < tolerance_loss_ || std::fabs(loss - new_loss) < tolerance_change_) break;
        loss = new_loss;
        // d(loss)/dS of MindSpore's fit: -(diff fb^T) / time.
        cv::gemm(diff, fb, -1.0 / static_cast<double>(t), cv::noArray(), 0.0, grad, cv::GEMM_2_T);
        cv::addWeighted(velocity, momentum_, grad, 1.0, 0.0, velocity);
        cv::scaleAdd(velocity, -lr_, spec, spec);
      }
      T* o = out.mutable_data_as<T>() + c * n_stft_ * time;
      for (int i = 0; i < f; ++i) {
        for (int j = 0; j < t; ++j) o[static_cast<int64_t>(i) * time + j] = std::max(T(0), spec.at<T>(j, i));
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

}  // namespace mindrecord::ops
