// Augmentation policies: AutoAugment (the ImageNet, CIFAR-10 and SVHN
// policies of Cubuk et al.) and RandAugment, with the policy tables, op list
// and magnitude mapping of MindSpore's kernels (auto_augment_op.cc,
// rand_augment_op.cc; image_utils.cc Linspace and ApplyAugment).
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// The magnitudes of one policy step for `num_bins` bins on an image of
// height x width (MindSpore's GetSpace): `values` has one entry for steps
// without a magnitude; `signed_` steps are negated at random. Posterize's
// and Solarize's ranges differ between AutoAugment (solarize from 256) and
// RandAugment (from 255), as in MindSpore.
struct MagnitudeSpace {
  std::vector<float> values;
  bool signed_ = false;
};
MagnitudeSpace GetMagnitudes(const std::string& name, int num_bins, int height, int width, bool rand_augment);

// {"op":"AutoAugment","policy":"imagenet" | "cifar10" | "svhn",
//  "interpolation":"nearest","fill_value":0 | [r,g,b]}: picks one of the
// policy's 25 sub-policies uniformly, then applies each of its two steps with
// its probability, at its magnitude bin of 10 (negated with probability 1/2
// for signed steps). Draws: sub-policy, two probabilities, two signs.
// Input: HWC uint8, 3 channels. Thread safety: immutable; Apply is safe from
// many threads.
class AutoAugmentOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "AutoAugment"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::string policy_ = "imagenet";
  Interpolation interp_ = Interpolation::kNearest;
  FillValue fill_;
};

// {"op":"RandAugment","num_ops":2,"magnitude":9,"num_magnitude_bins":31,
//  "interpolation":"nearest","fill_value":0 | [r,g,b]}: num_ops times, one of
// MindSpore's 14 steps (AutoContrast, Brightness, Color, Contrast, Equalize,
// Identity, Posterize, Rotate, Sharpness, ShearX, ShearY, Solarize,
// TranslateX, TranslateY) at magnitude bin `magnitude` of
// `num_magnitude_bins`, signed steps negated at random. The step and the sign
// are drawn uniformly (MindSpore's RandInt folds a 15-way draw onto 14 steps
// and a 3-way draw onto 2 signs, slightly favouring the first step and the
// positive sign; torchvision's RandAugment draws uniformly, as here).
// Input: HWC uint8, 3 channels. Thread safety: immutable; Apply is safe from
// many threads.
class RandAugmentOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandAugment"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int num_ops_ = 2;
  int magnitude_ = 9;
  int bins_ = 31;
  Interpolation interp_ = Interpolation::kNearest;
  FillValue fill_;
};

// {"op":"TrivialAugmentWide","num_magnitude_bins":31,"interpolation":"nearest",
//  "fill_value":0 | [r,g,b]}: one of RandAugment's 14 steps, a magnitude bin
// of num_magnitude_bins and a sign, each drawn uniformly (the bin only for
// steps with a magnitude range), with MindSpore's TrivialAugmentWide ranges
// (trivial_augment_wide_op.cc): shears and enhancements 0..0.99, translations
// 0..32 pixels, rotation 0..135 degrees, posterize 8..2 bits, solarize
// 255..0. Draws: step, bin (when it has a range), sign. Input: HWC uint8,
// 3 channels. Thread safety: immutable; Apply is safe from many threads
// (stateless per call).
class TrivialAugmentWideOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "TrivialAugmentWide"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int bins_ = 31;
  Interpolation interp_ = Interpolation::kNearest;
  FillValue fill_;
};

}  // namespace mindrecord::ops
