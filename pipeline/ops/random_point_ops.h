// MindSpore's random colour and point ops (RandomAutoContrast, RandomEqualize,
// RandomInvert, RandomAdjustSharpness, RandomPosterize, RandomSolarize,
// RandomSharpness) as pipeline ops, on the kernels of augment.h through
// PointOp (point_ops.h).
#pragma once

#include "pipeline/ops/point_ops.h"

namespace mindrecord::ops {

// The op named by "op", each with MindSpore's parameter names and defaults:
//   {"op":"RandomAutoContrast","cutoff":0.0,"ignore":[],"prob":0.5}
//   {"op":"RandomEqualize","prob":0.5}  {"op":"RandomInvert","prob":0.5}
//   {"op":"RandomAdjustSharpness","degree":d,"prob":0.5}   d in [0, 2^24], required
//       these four check the input, then draw u ~ U[0, 1) (one draw) and apply
//       AutoContrast / Equalize / Invert / AdjustSharpness(d) when u < prob;
//   {"op":"RandomPosterize","bits":[lo, hi] | b}   1 <= lo <= hi <= 8 (b: [b, b]),
//       default [8, 8]: Posterize to bits ~ U{lo..hi} (no draw when lo == hi);
//   {"op":"RandomSolarize","threshold":[lo, hi]}   integers, 0 <= lo <= hi <= 255,
//       default [0, 255]: two draws a, b ~ U{lo..hi}, then Solarize with
//       threshold (min(a, b), max(a, b));
//   {"op":"RandomSharpness","degrees":[lo, hi]}    0 <= lo <= hi <= 2^24, default
//       [0.1, 1.9]: AdjustSharpness with a factor ~ U[lo, hi) (one draw).
// Inputs as the deterministic op's; RandomAutoContrast takes HW or HWC with 3
// channels only, as MindSpore's. Thread safety: immutable; Apply is safe from
// many threads.
class RandomPointOp : public TensorOp {
 public:
  enum class Kind : uint8_t {
    kRandomAutoContrast,
    kRandomEqualize,
    kRandomInvert,
    kRandomAdjustSharpness,
    kRandomPosterize,
    kRandomSolarize,
    kRandomSharpness,
  };

  // Builds the op spec["op"] names.
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  RandomPointOp(Kind kind, PointOp inner, double prob, double lo, double hi)
      : kind_(kind), inner_(std::move(inner)), prob_(prob), lo_(lo), hi_(hi) {}
  std::string name() const override;
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Kind kind_;
  PointOp inner_;  // the op applied (its parameter replaced by the draw for the last three)
  double prob_;    // the first four
  double lo_;      // the range of the last three
  double hi_;
};

}  // namespace mindrecord::ops
