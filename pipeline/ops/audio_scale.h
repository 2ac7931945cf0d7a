// Scale and complex-number ops of MindSpore's audio module (integer input
// computes in float32, float64 in float64):
// - {"op":"AmplitudeToDB","stype":"power","ref_value":1.0,"amin":1e-10,
//   "top_db":80.0}: <..., freq, time> -> m * log10(max(x, 1e-10)) -
//   m * log10(max(amin, ref_value)), m = 10 (power) or 20 (magnitude); then
//   nothing below top_db under the maximum of each <channel, freq, time>
//   block (of the whole array when it has 2 dimensions). As MindSpore's, x
//   is clamped at 1e-10 whatever amin says; NaN stays NaN.
// - {"op":"DBToAmplitude","ref":r,"power":p}: r * 10^(0.1 * x * p).
// - {"op":"ComplexNorm","power":1.0}: <..., 2> ([re, im]) -> |z|^power <...>.
// - {"op":"Angle"}: <..., 2> -> atan2(im, re) <...>.
// - {"op":"Magphase","power":1.0}: <..., 2> -> two columns, ComplexNorm's
//   and Angle's.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <limits>
#include <string>

#include "pipeline/ops/op.h"

namespace mindrecord::ops {

// AmplitudeToDB on x (shape `shape`) in place; top_db NaN: no floor.
template <typename T>
void ToDecibels(T* x, const Shape& shape, double multiplier, double db_multiplier, double top_db);

class AmplitudeToDBOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  AmplitudeToDBOp(bool magnitude, double ref, double amin, double top_db)
      : magnitude_(magnitude), ref_(ref), amin_(amin), top_db_(top_db) {}
  std::string name() const override { return "AmplitudeToDB"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  bool magnitude_;
  double ref_, amin_, top_db_;
};

class DBToAmplitudeOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  DBToAmplitudeOp(double ref, double power) : ref_(ref), power_(power) {}
  std::string name() const override { return "DBToAmplitude"; }
  nlohmann::json ToJson() const override { return {{"op", "DBToAmplitude"}, {"ref", ref_}, {"power", power_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  double ref_, power_;
};

// ComplexNorm, Angle and Magphase: one class, `what` saying which.
class ComplexOp : public TensorOp {
 public:
  enum class What : uint8_t { kNorm, kAngle, kMagphase };
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ComplexOp(What what, double power) : what_(what), power_(power) {}
  std::string name() const override;
  nlohmann::json ToJson() const override;
  int num_outputs() const override { return what_ == What::kMagphase ? 2 : 1; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Result<std::vector<Tensor>> Run(const Tensor& input) const;
  What what_;
  double power_;
};

}  // namespace mindrecord::ops
