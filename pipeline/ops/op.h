// TensorOp: one transform applied to one column of one row (decode, resize,
// crop, flip, normalize, layout, cast). Ops are described by JSON specs in a
// pipeline plan and built from them.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

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
  // `rng` is seeded per row and per op by the runtime, so results are
  // reproducible whatever the worker count.
  virtual Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const = 0;
};

// Builds an op from its JSON spec; unknown ops or bad parameters are
// InvalidArgument naming the op and parameter.
Result<std::unique_ptr<TensorOp>> MakeOp(const nlohmann::json& spec);

}  // namespace mindrecord
