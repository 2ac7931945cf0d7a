// Op registry: C++ ops a program adds to those MakeOp knows, usable in plans
// by name, and the builder that turns a column's op specs into ops.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/ops/op.h"

namespace mindrecord {

using OpFactory = std::function<Result<std::unique_ptr<TensorOp>>(const nlohmann::json& spec)>;

// Makes specs {"op": name, ...} build through `factory`; registered names take
// precedence over the built-in ops. Thread safety: may be called from any
// thread; pipelines already open keep the ops they built. An exception an
// op's Apply throws becomes its row's error (Internal), as a returned error.
void RegisterOp(const std::string& name, OpFactory factory);
void UnregisterOp(const std::string& name);

// The ops of one column, in order: registered ops through their factories,
// runs of built-in ops through the ops library (which may fuse them, e.g.
// Decode + RandomResizedCrop). Errors name the op.
Result<std::vector<std::unique_ptr<TensorOp>>> BuildColumnOps(const std::vector<nlohmann::json>& specs);

}  // namespace mindrecord
