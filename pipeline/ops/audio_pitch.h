// {"op":"DetectPitchFrequency","sample_rate":r,"frame_time":0.01,
// "win_length":30,"freq_low":85,"freq_high":3400} (MindSpore's, after
// torchaudio's detect_pitch_frequency): the pitch of each frame of
// <..., time> in Hz, float32 <..., frames'>. Each frame of
// ceil(sample_rate * frame_time) samples is compared with the signal `lag`
// samples later for lags up to ceil(sample_rate / freq_low) (normalized
// cross-correlation); the best lag at or above ceil(sample_rate /
// freq_high) wins, or the best of the first half when it comes within 1%
// of it (the octave below); a running median over win_length frames
// smooths the lags, and the pitch is sample_rate / lag. Sizes are computed
// in float32 as MindSpore's (30 Hz x 0.1 s frames are 3 samples there, 4 in
// torchaudio). freq_high must leave at least one lag below freq_low's.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class DetectPitchFrequencyOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "DetectPitchFrequency"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t rate_ = 0, win_ = 0, freq_low_ = 0, freq_high_ = 0;
  double frame_time_ = 0;
  int64_t frame_ = 0, lags_ = 0, lag_min_ = 0;  // samples
};

}  // namespace mindrecord::ops
