// {"op":"Vad","sample_rate":r,"trigger_level":7,"trigger_time":0.25,
// "search_time":1,"allowed_gap":0.25,"pre_trigger_time":0,"boot_time":0.35,
// "noise_up_time":0.1,"noise_down_time":0.01,"noise_reduction_amount":1.35,
// "measure_freq":20,"measure_duration":0.1,"measure_smooth_time":0.4,
// "hp_filter_freq":50,"lp_filter_freq":6000,"hp_lifter_freq":150,
// "lp_lifter_freq":2000} (MindSpore's audio.Vad; SoX's vad as torchaudio
// ports it): trims the silence before speech from the front of <..., time>.
// Every measure_freq-th of a second a cepstral power measure of the last
// measure_duration seconds (band-limited spectrum less an adaptive noise
// estimate) is taken per row; when a row's running mean reaches
// trigger_level, the quieter bursts up to search_time before it (gaps
// under allowed_gap) and pre_trigger_time more are kept and the rest cut.
// All rows are cut at the earliest trigger. Without a trigger the result
// is what torchaudio's and MindSpore's slicing gives: the last
// pre_trigger + search + measure samples (fewer for short inputs).
// MindSpore's kernel never measures anything (its measure is always 0), so
// it only ever trims that way; this one detects speech. Integer input
// computes in float32, float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class VadOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Vad"; }
  nlohmann::json ToJson() const override { return spec_; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

  struct Params {
    double trigger_level = 0, noise_reduction = 0;
    int64_t measure_len = 0, dft_len = 0, period = 0, measures = 0, gap = 0, samples_len = 0;
    int64_t spec_start = 0, spec_end = 0, cep_start = 0, cep_end = 0, boot_max = 0;
    double noise_up_mult = 0, noise_down_mult = 0, smooth_mult = 0, trigger_mult = 0;
    std::vector<double> spectrum_window, cepstrum_window;
  };

 private:
  nlohmann::json spec_;
  Params p_;
};

}  // namespace mindrecord::ops
