// MindSpore's colour and point ops with fixed parameters (AutoContrast,
// Equalize, Invert, Posterize, Solarize, AdjustSharpness, AdjustBrightness,
// AdjustContrast, AdjustSaturation, AdjustHue, AdjustGamma) as pipeline ops,
// on the kernels of augment.h and color_adjust.h; and AdjustGamma's kernel.
#pragma once

#include <optional>
#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Gamma correction, as MindSpore's AdjustGamma. uint8: each value through a
// table floor(min((x / 255)^gamma * 255.999 * gain, 255)) in float (0 where
// that is negative, which MindSpore's cast leaves undefined). float32, or
// float64 (which gives float32, as MindSpore casts it): clamp((x * gain)^gamma,
// 0, 1). Shape [H, W] or [..., C] with C = 1 or 3.
Result<Tensor> AdjustGamma(const Tensor& img, double gamma, double gain, const std::string& op);

// The op named by "op", each with MindSpore's parameter names, required
// unless a default is shown:
//   {"op":"AutoContrast","cutoff":0.0,"ignore":[]}    cutoff in [0, 50) percent
//       (whole percents count, as in MindSpore), ignore: values in [0, 255]
//   {"op":"Equalize"}  {"op":"Invert"}
//   {"op":"Posterize","bits":b}                      b an integer in [0, 8]
//   {"op":"Solarize","threshold":[lo, hi] | t}       0 <= lo <= hi <= 255; t means [t, t]
//   {"op":"AdjustSharpness","sharpness_factor":f}    f in [0, 2^24] (likewise
//       brightness_factor, contrast_factor, saturation_factor)
//   {"op":"AdjustHue","hue_factor":h}                h in [-0.5, 0.5]
//   {"op":"AdjustGamma","gamma":g,"gain":1.0}        g in [0, 2^24], gain in [-2^24, 2^24]
// Factors reach the kernels as float, as MindSpore's do. Inputs are uint8
// (AdjustGamma: also float32 / float64); shapes as the kernel states (HWC RGB
// for Invert and AdjustBrightness / Contrast / Saturation / Hue).
// Thread safety: immutable; Apply is safe from many threads.
class PointOp : public TensorOp {
 public:
  enum class Kind : uint8_t {
    kAutoContrast,
    kEqualize,
    kInvert,
    kPosterize,
    kSolarize,
    kAdjustSharpness,
    kAdjustBrightness,
    kAdjustContrast,
    kAdjustSaturation,
    kAdjustHue,
    kAdjustGamma,
  };
  // The parameters; each kind reads its own.
  struct Params {
    double cutoff = 0;        // AutoContrast
    std::vector<int> ignore;  // AutoContrast
    int bits = 8;             // Posterize
    double lo = 0, hi = 0;    // Solarize threshold
    double factor = 1;        // AdjustSharpness / Brightness / Contrast / Saturation / Hue; AdjustGamma's gamma
    double gain = 1;          // AdjustGamma
  };

  // Builds the op spec["op"] names.
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  PointOp(Kind kind, Params params) : kind_(kind), params_(std::move(params)) {}
  std::string name() const override;
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  // The op on `input`, named `op` in errors (the random ops apply it under their name).
  Result<Tensor> Run(const Tensor& input, const std::string& op) const;
  // Fails as Run would on an input of the wrong type or shape.
  Status CheckInput(const Tensor& input, const std::string& op) const;

 private:
  Kind kind_;
  Params params_;
};

// Parameter readers shared with the random point ops (errors name op and key;
// GetIntIn is op_util.h's).
// A finite number in [lo, hi]; `def` when absent, required without one.
Result<double> GetNumberIn(const nlohmann::json& spec, const std::string& op, const char* key, double lo,
                           double hi, std::optional<double> def);
// AutoContrast's "cutoff" and "ignore" into `p`.
Status GetAutoContrastParams(const nlohmann::json& spec, const std::string& op, PointOp::Params* p);

}  // namespace mindrecord::ops
