// {"op":"InverseMelScale","n_stft":201, MelScale's keys (n_mels, sample_rate,
// f_min, f_max, norm, mel_type), "max_iter":100000,"tolerance_loss":1e-5,
// "tolerance_change":1e-8,"sgd_lr":0.1,"sgd_momentum":0.9} (MindSpore's
// audio.InverseMelScale): a mel spectrogram <..., n_mels, time> back to a
// linear one <..., n_stft, time>: per matrix, S (time x n_stft) starts
// uniform in [0, 1) from the row's seed and descends the mean squared error
// of S fb against the mel spectrogram (SGD with momentum) until the loss is
// below tolerance_loss, changes by less than tolerance_change, or max_iter
// steps; negative values are then set to 0. As MindSpore's, each matrix of
// the leading dimensions is fitted alone and the step that meets a
// tolerance is not taken; unlike MindSpore's, whose momentum buffer is
// made anew each step, sgd_momentum is applied (as torchaudio's). Integer
// input computes in float32, float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <vector>

#include "pipeline/ops/audio_spectral.h"
#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class InverseMelScaleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "InverseMelScale"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  MelParams mel_;
  int64_t n_stft_ = 0, max_iter_ = 0;
  double tolerance_loss_ = 0, tolerance_change_ = 0, lr_ = 0, momentum_ = 0;
  std::vector<double> fb_;  // [n_stft, n_mels]
};

}  // namespace mindrecord::ops
