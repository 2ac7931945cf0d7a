// General tensor ops over elements and columns, MindSpore's
// transforms.Fill, Mask, Duplicate and Unique (its kernels/data fill_op,
// mask_op, duplicate_op, unique_op). As in MindSpore, a bytes value is a
// 1-D uint8 array and a string value is a scalar string.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/scalar.h"

namespace mindrecord::ops {

// {"op":"Fill","fill_value":v}: every element set to v, converted to the
// input's type (CastElement: 2.7 fills an int32 tensor with 2, 300 a uint8
// one with 44, as MindSpore's TypeCast); same shape and type. A string fill
// value fills a string input (the result is that string); a string value on
// a numeric input, or a number on a string, is InvalidArgument.
// Thread safety: immutable; Apply is safe from many threads.
class FillOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit FillOp(Scalar value) : value_(std::move(value)) {}
  std::string name() const override { return "Fill"; }
  bool takes_strings() const override { return true; }  // arrays of strings too
  nlohmann::json ToJson() const override { return {{"op", "Fill"}, {"fill_value", value_.ToJson()}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Scalar value_;
};

// The relations of Mask (MindSpore's Relational / RelationalOp).
enum class Relational : uint8_t { kEQ, kNE, kGT, kGE, kLT, kLE };

// {"op":"Mask","operator":"EQ","constant":c,"dtype":"bool"}: element x
// becomes (x <op> c), operators EQ NE GT GE LT LE, as `dtype` (any numeric
// type, default bool; true is 1). The constant is first converted to the
// input's type, as MindSpore does (CastElement: on int32, GE 2.5 compares
// with 2). A string input is compared with a string constant (byte order),
// giving a scalar; a string constant with a numeric input or the reverse is
// InvalidArgument. Thread safety: immutable; Apply is safe from many threads.
class MaskOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MaskOp(Relational rel, Scalar constant, TensorType dtype)
      : rel_(rel), constant_(std::move(constant)), dtype_(dtype) {}
  std::string name() const override { return "Mask"; }
  bool takes_strings() const override { return true; }  // arrays of strings too
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Relational rel_;
  Scalar constant_;
  TensorType dtype_;
};

// {"op":"Duplicate"}: one column in, two out: the input and a copy of it
// (as MindSpore's; arrays handed to Python must not alias).
// Thread safety: immutable; ApplyColumns is safe from many threads.
class DuplicateOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Duplicate"; }
  nlohmann::json ToJson() const override { return {{"op", "Duplicate"}}; }
  int num_outputs() const override { return 2; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;
};

// {"op":"Unique"}: one column in, three out, as MindSpore's Unique: a
// numeric tensor of rank >= 2 (a batch: MindSpore refuses rank 0 and 1, and
// bool), flattened to its N elements, gives the distinct values in the order
// they first occur ([U], the input's type), each element's index in them
// ([N] int32) and each value's count ([U] int32). Values are told apart as
// C++ == does (0.0 and -0.0 are one value; every NaN is a value of its own).
// Thread safety: immutable; ApplyColumns is safe from many threads.
class UniqueOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Unique"; }
  nlohmann::json ToJson() const override { return {{"op", "Unique"}}; }
  int num_outputs() const override { return 3; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;
};

}  // namespace mindrecord::ops
