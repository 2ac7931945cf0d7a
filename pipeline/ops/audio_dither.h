// {"op":"Dither","density_function":"TPDF"|"RPDF"|"GPDF","noise_shaping":false}
// (MindSpore's audio.Dither): each sample of <..., time> quantized to 16
// bits (round(x * 32766 + noise) / 32768, halves away from zero) with
// dither noise in units of the last bit. TPDF is MindSpore's (and
// torchaudio's) deterministic noise: a periodic Bartlett window over the
// row, so its values are MindSpore's. RPDF and GPDF draw noise per sample
// from the row's seed: uniform in [-0.5, 0.5) and normal with sigma 0.5
// (MindSpore's add one of the input's own samples to every sample, and
// GPDF writes into its input). noise_shaping adds each sample's
// quantization error to the next. Integer input computes in float32,
// float64 in float64.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

class DitherOp : public TensorOp {
 public:
  enum class Density : uint8_t { kTpdf, kRpdf, kGpdf };
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  DitherOp(Density density, bool shaping) : density_(density), shaping_(shaping) {}
  std::string name() const override { return "Dither"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return density_ != Density::kTpdf; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Density density_;
  bool shaping_;
};

}  // namespace mindrecord::ops
