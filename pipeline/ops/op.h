// TensorOp: one transform applied to one column of one row (decode, resize,
// crop, flip, normalize, layout, cast). Ops are described by JSON specs in a
// pipeline plan and built from them.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// Where the last op of a column may put its result: the row's place in the
// batch being built, so the result is written once instead of written and
// then copied into the batch.
struct OutputSlot {
  Tensor view;            // the destination's type and shape, sharing the batch buffer
  uint8_t* data = nullptr;  // view's bytes, writable: nobody reads them before the op returns
};

// Thread safety: Apply() is const and may run on many worker threads at once.
class TensorOp {
 public:
  virtual ~TensorOp() = default;
  // e.g. "Decode", "RandomResizedCrop".
  virtual std::string name() const = 0;
  // Round-trips through MakeOp(): {"op": name(), ...parameters}.
  virtual nlohmann::json ToJson() const = 0;
  // True when the result depends on `rng`.
  virtual bool is_random() const { return false; }
  // True when the op runs under an interpreter's lock that its thread may
  // keep until the next op that does not (pipeline/interpreter_lock.h).
  virtual bool uses_interpreter() const { return false; }
  // True when the op takes string arrays (TensorType::kStrings: text ops,
  // Python callables, ops running other ops); the runtime refuses them to
  // the rest (CheckStringInputs) rather than have an op read their offsets
  // as elements.
  virtual bool takes_strings() const { return false; }
  // `rng` is seeded per row and per op by the runtime, so results are
  // reproducible whatever the worker count.
  virtual Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const = 0;
  // Apply, writing the result into `slot` when the op can and the slot has
  // exactly the result's type and shape; it then returns slot.view. The
  // result must be the same as Apply's either way. Default: Apply.
  virtual Result<Tensor> ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const {
    (void)slot;
    return Apply(std::move(input), rng);
  }

  // Columns the op takes and gives. Per-column ops take one and give one. A
  // multi-column op (an image with its boxes; a batch's images with their
  // labels) takes num_inputs() columns in the order a map names them and
  // gives num_outputs(); the runtime calls ApplyColumns for it.
  virtual int num_inputs() const { return 1; }
  virtual int num_outputs() const { return 1; }
  // The op over its input columns, in order; returns num_outputs() tensors.
  // Default (a 1 -> 1 op): Apply on the one input.
  virtual Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
    if (num_inputs() != 1 || num_outputs() != 1 || inputs.size() != 1)
      return Status::Internal(name() + ": takes " + std::to_string(num_inputs()) + " column(s), got " +
                              std::to_string(inputs.size()));
    auto r = Apply(std::move(inputs[0]), rng);
    if (!r.ok()) return r.status();
    std::vector<Tensor> out;
    out.push_back(std::move(r).value());
    return out;
  }
};

// InvalidArgument naming `op` when it is given a string array it does not
// take (TensorOp::takes_strings).
inline Status CheckStringInputs(const TensorOp& op, const Tensor* inputs, size_t n) {
  if (op.takes_strings()) return Status::OK();
  for (size_t i = 0; i < n; ++i) {
    if (inputs[i].type() == TensorType::kStrings)
      return Status::InvalidArgument(op.name() + " does not take an array of strings (shape " +
                                     ShapeString(inputs[i].shape()) + "); text ops and Python callables do");
  }
  return Status::OK();
}

// Builds an op from its JSON spec; unknown ops or bad parameters are
// InvalidArgument naming the op and parameter.
Result<std::unique_ptr<TensorOp>> MakeOp(const nlohmann::json& spec);

}  // namespace mindrecord
