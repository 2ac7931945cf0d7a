// General tensor ops that change a tensor's shape, MindSpore's
// transforms.Slice, PadEnd and Concatenate (its kernels/data slice_op,
// pad_end_op, concatenate_op and Tensor::Slice). As in MindSpore, a bytes
// value is a 1-D uint8 array and a string value is a scalar string.
#pragma once

#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/scalar.h"

namespace mindrecord::ops {

// What Slice takes along one dimension (MindSpore's SliceOption).
struct SliceDim {
  enum class Kind : uint8_t { kAll, kIndices, kRange };
  Kind kind = Kind::kAll;
  std::vector<int64_t> indices;           // kIndices: negative counts from the end
  int64_t start = 0, stop = 0, step = 1;  // kRange: step != 0
  nlohmann::json ToJson() const;
};

// {"op":"Slice","slices":[s0, s1, ...]}: per dimension, in order, `true`
// (all of it), a non-empty list of indices (each kept, in the order given;
// negative ones count from the end; out of range is InvalidArgument), or
// {"start":a,"stop":b,"step":c} (c != 0, default 1). Dimensions past the
// list are kept whole; more entries than the input's rank is
// InvalidArgument. An index list keeps its dimension (Slice(1) of [3] gives
// [1], not a scalar), as MindSpore does. A range takes a, a+c, ... before b
// after MindSpore's bounds rule: a and b, when negative, count from the end,
// then are clamped to [0, size] (so a negative step never reaches index 0;
// a start past the end begins at the last element). Any numeric type;
// bytes as uint8; a string value (a scalar) only with no slices.
// Thread safety: immutable; Apply is safe from many threads.
class SliceOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit SliceOp(std::vector<SliceDim> dims) : dims_(std::move(dims)) {}
  std::string name() const override { return "Slice"; }
  bool takes_strings() const override { return true; }  // arrays of strings too
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::vector<SliceDim> dims_;
};

// {"op":"PadEnd","pad_shape":[d0, d1, ...],"pad_value":null}: the input,
// padded at the end of each dimension to pad_shape (or cut to it when
// shorter); a null dimension keeps the input's size (as MindSpore's
// documentation says). pad_shape must have the input's rank; scalars (and
// string values, which are scalars) are returned as they are. Numeric
// inputs pad with pad_value converted as MindSpore does: to float32 first,
// then to the input's type (CastElement), 0 when null. A string pad_value
// with a numeric input, or a number with a string, is InvalidArgument.
// Thread safety: immutable; Apply is safe from many threads.
class PadEndOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  PadEndOp(std::vector<int64_t> shape, bool has_value, Scalar value)
      : shape_(std::move(shape)), has_value_(has_value), value_(std::move(value)) {}
  std::string name() const override { return "PadEnd"; }
  bool takes_strings() const override { return true; }  // arrays of strings too
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::vector<int64_t> shape_;  // -1: the input's size
  bool has_value_;
  Scalar value_;
};

// {"op":"Concatenate","axis":0,"prepend":null,"append":null}: any number of
// 1-D columns (one or more, in the map's order) joined into one, with
// `prepend` before and `append` after: {"dtype":"int32","values":[...]}
// (values as numbers, bools or {"float":"nan"|"inf"|"-inf"}). axis 0 or -1,
// the only axis of 1-D arrays (MindSpore's rule). Every input and the
// prepend / append must have the first input's type (bytes count as uint8);
// a string value, being a scalar, is InvalidArgument.
// Thread safety: immutable; Apply and ApplyColumns are safe from many threads.
class ConcatenateOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ConcatenateOp(int axis, Tensor prepend, Tensor append)
      : axis_(axis), prepend_(std::move(prepend)), append_(std::move(append)) {}
  std::string name() const override { return "Concatenate"; }
  bool takes_strings() const override { return true; }  // arrays of strings too
  nlohmann::json ToJson() const override;
  int num_inputs() const override { return -1; }  // any number
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  int axis_;
  Tensor prepend_, append_;  // undefined when not given
};

}  // namespace mindrecord::ops
