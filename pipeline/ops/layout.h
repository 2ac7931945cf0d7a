// Layout and element-type ops: HWC2CHW, TypeCast.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"HWC2CHW"}: a 3-D tensor of any numeric type [H, W, C] -> [C, H, W]
// (out[c][y][x] = in[y][x][c]). Thread safety: immutable; Apply is safe from many threads.
class HWC2CHWOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "HWC2CHW"; }
  nlohmann::json ToJson() const override { return {{"op", "HWC2CHW"}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const override;

 private:
  Result<Tensor> Run(const Tensor& input, const OutputSlot* slot) const;
};

// Converts numeric elements between types. Float -> integer rounds to
// nearest and saturates (NaN -> 0); integer -> narrower integer saturates;
// to bool, non-zero (NaN too) is true; bool reads as 0 / 1.
// Any type -> the same type returns the input unchanged.
// With `slot` of type `to` and t's shape, the result is written there (and
// slot->view returned) unless no conversion is needed.
Result<Tensor> CastTensor(const Tensor& t, TensorType to, const std::string& op, const OutputSlot* slot = nullptr);

// The numeric element type named by spec[key] (`fallback` when absent; an
// empty fallback makes the parameter required). InvalidArgument naming `op`
// and `key` otherwise.
Result<TensorType> GetNumericType(const nlohmann::json& spec, const std::string& op, const std::string& key,
                                  const std::string& fallback);

// {"op":"TypeCast","type":"float32"}: any numeric type (bool included) to
// bool, uint8, int8, int16, int32, int64, float32 or float64 (see CastTensor). Bytes/string inputs or
// targets are InvalidArgument. Thread safety: immutable; Apply is safe from many threads.
class TypeCastOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit TypeCastOp(TensorType to) : to_(to) {}
  std::string name() const override { return "TypeCast"; }
  nlohmann::json ToJson() const override { return {{"op", "TypeCast"}, {"type", TensorTypeName(to_)}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const override;

 private:
  TensorType to_;
};

}  // namespace mindrecord::ops
