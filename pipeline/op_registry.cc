#include "pipeline/op_registry.h"

#include <map>
#include <mutex>

#include "pipeline/ops/fuse.h"

namespace mindrecord {

namespace {
std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, OpFactory>& Registry() {
  static std::map<std::string, OpFactory> r;
  return r;
}

// A run of built-in op specs.
Status BuildBuiltins(const std::vector<nlohmann::json>& run, std::vector<std::unique_ptr<TensorOp>>* out) {
  for (const auto& spec : FuseOps(run)) {
    auto op = MakeOp(spec);
    if (!op.ok()) return op.status();
    out->push_back(std::move(op).value());
  }
  return Status::OK();
}
}  // namespace

void RegisterOp(const std::string& name, OpFactory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry()[name] = std::move(factory);
}

void UnregisterOp(const std::string& name) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().erase(name);
}

Result<std::vector<std::unique_ptr<TensorOp>>> BuildColumnOps(const std::vector<nlohmann::json>& specs) {
  std::vector<std::unique_ptr<TensorOp>> ops;
  std::vector<nlohmann::json> run;
  for (const auto& spec : specs) {
    const std::string name = spec.is_object() && spec.contains("op") && spec["op"].is_string()
                                 ? spec["op"].get<std::string>()
                                 : std::string();
    OpFactory factory;
    {
      std::lock_guard<std::mutex> lock(RegistryMutex());
      auto it = Registry().find(name);
      if (it != Registry().end()) factory = it->second;
    }
    if (!factory) {
      run.push_back(spec);
      continue;
    }
    MR_RETURN_IF_ERROR(BuildBuiltins(run, &ops));
    run.clear();
    auto op = factory(spec);
    if (!op.ok()) return op.status().WithContext("op '" + name + "'");
    ops.push_back(std::move(op).value());
  }
  MR_RETURN_IF_ERROR(BuildBuiltins(run, &ops));
  return ops;
}

}  // namespace mindrecord
