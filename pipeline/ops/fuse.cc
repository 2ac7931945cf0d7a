#include "pipeline/ops/fuse.h"

namespace mindrecord {

namespace {

bool IsOp(const nlohmann::json& j, const char* name) {
  return j.is_object() && j.contains("op") && j["op"].is_string() && j["op"].get<std::string>() == name;
}

// Only a Decode with no parameters besides these can be fused.
bool FusableDecode(const nlohmann::json& j) {
  if (!IsOp(j, "Decode")) return false;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "op" && it.key() != "target_size" && it.key() != "all_factors") return false;
  return true;
}

// A Normalize whose only keys are its parameters (otherwise MakeOp reports
// the spec under its own name).
bool FusableNormalize(const nlohmann::json& j) {
  if (!IsOp(j, "Normalize")) return false;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "op" && it.key() != "mean" && it.key() != "std") return false;
  return true;
}

}  // namespace

std::vector<nlohmann::json> FuseOps(const std::vector<nlohmann::json>& specs) {
  std::vector<nlohmann::json> out;
  out.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& cur = specs[i];
    if (i + 1 < specs.size() && FusableDecode(cur)) {
      const auto& next = specs[i + 1];
      const char* fused = IsOp(next, "RandomResizedCrop") ? "DecodeRandomResizedCrop"
                          : IsOp(next, "Resize")          ? "DecodeResize"
                                                          : nullptr;
      if (fused && !next.contains("all_factors")) {
        nlohmann::json j = next;
        j["op"] = fused;
        if (cur.contains("all_factors")) j["all_factors"] = cur["all_factors"];
        out.push_back(std::move(j));
        ++i;
        continue;
      }
    }
    // Normalize + HWC2CHW: one pass writing planar floats.
    if (i + 1 < specs.size() && FusableNormalize(cur) && IsOp(specs[i + 1], "HWC2CHW") && specs[i + 1].size() == 1) {
      nlohmann::json j = cur;
      j["op"] = "NormalizeHWC2CHW";
      out.push_back(std::move(j));
      ++i;
      continue;
    }
    out.push_back(cur);
  }
  return out;
}

}  // namespace mindrecord
