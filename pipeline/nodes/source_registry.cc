#include "pipeline/nodes/source_registry.h"

#include <map>
#include <mutex>
#include <set>

#include "pipeline/nodes/catalog_source.h"
#include "pipeline/nodes/celeba_source.h"
#include "pipeline/nodes/clue_source.h"
#include "pipeline/nodes/csv_source.h"
#include "pipeline/nodes/image_list_source.h"
#include "pipeline/nodes/imdb_source.h"
#include "pipeline/nodes/tagged_source.h"
#include "pipeline/nodes/text_source.h"
#include "pipeline/nodes/tfrecord_source.h"
#include "pipeline/nodes/tree_spec.h"

namespace mindrecord {

namespace {

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, SourceFactory>& Factories() {
  static auto* m = new std::map<std::string, SourceFactory>();
  return *m;
}

}  // namespace

void RegisterSource(const std::string& kind, SourceFactory factory) {
  std::lock_guard<std::mutex> lock(Mu());
  Factories()[kind] = std::move(factory);
}

Result<std::unique_ptr<Source>> MakeRegisteredSource(const nlohmann::json& node) {
  const std::string kind = node.at("kind").get<std::string>();
  using Open = Result<std::unique_ptr<Source>> (*)(const nlohmann::json&);
  static const std::map<std::string, Open> kBuiltIn = {{"textfile", &OpenTextFileSource},
                                                       {"tagged", &OpenTaggedSource},
                                                       {"imdb", &OpenImdbSource},
                                                       {"celeba", &OpenCelebASource},
                                                       {"image_list", &OpenImageListSource},
                                                       {"catalog", &OpenCatalogSource},
                                                       {"clue", &OpenClueSource},
                                                       {"csv", &OpenCsvSource},
                                                       {"tfrecord", &OpenTfRecordSource}};
  if (auto b = kBuiltIn.find(kind); b != kBuiltIn.end()) return b->second(node);
  SourceFactory f;
  {
    std::lock_guard<std::mutex> lock(Mu());
    auto it = Factories().find(kind);
    if (it != Factories().end()) f = it->second;
  }
  if (!f) return Status::NotFound("no source of kind '" + kind + "' is registered in this process");
  MR_ASSIGN_OR_RETURN(auto src, f(node));
  if (src->columns() != node.at("columns").get<std::vector<std::string>>() ||
      src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Internal("source of kind '" + kind + "' does not give the columns and rows its node names");
  }
  return src;
}

Result<nlohmann::json> NormalizeSourceLeaf(const nlohmann::json& j, const std::string& path) {
  static const std::set<std::string> kKeys = {"node", "kind", "columns", "rows", "name", "args", "sampler", "seed"};
  nlohmann::json out = {{"node", "source"}};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.key().empty() && it.key()[0] == '_') {
      out[it.key()] = it.value();
    } else if (!kKeys.count(it.key())) {
      return PlanNodeError(path, "unknown key '" + it.key() + "' for a 'source' node");
    }
  }
  if (!j.contains("kind") || !j["kind"].is_string() || j["kind"].get<std::string>().empty()) {
    return PlanNodeError(path, "a 'source' node needs 'kind', the name its factory is registered under");
  }
  out["kind"] = j["kind"];
  if (!j.contains("columns") || !j["columns"].is_array() || j["columns"].empty()) {
    return PlanNodeError(path, "'columns' must be a non-empty list of column names");
  }
  std::set<std::string> seen;
  for (const auto& c : j["columns"]) {
    if (!c.is_string() || c.get<std::string>().empty()) return PlanNodeError(path, "'columns' must hold non-empty names");
    if (!seen.insert(c.get<std::string>()).second) return PlanNodeError(path, "column '" + c.get<std::string>() + "' named twice");
  }
  out["columns"] = j["columns"];
  if (!j.contains("rows") || !j["rows"].is_number_integer() ||
      (!j["rows"].is_number_unsigned() && j["rows"].get<int64_t>() < 0)) {
    return PlanNodeError(path, "'rows' must be a count >= 0");
  }
  out["rows"] = j["rows"].get<uint64_t>();
  if (j.contains("args")) {
    if (!j["args"].is_object()) return PlanNodeError(path, "'args' must be an object (the source's own arguments)");
    out["args"] = j["args"];
  }
  if (j.contains("name")) {
    if (!j["name"].is_string()) return PlanNodeError(path, "'name' must be a string");
    out["name"] = j["name"];
  }
  MR_ASSIGN_OR_RETURN(out["sampler"], LeafSampler(j, path));
  if (j.contains("seed")) out["seed"] = j["seed"];
  return out;
}

}  // namespace mindrecord
