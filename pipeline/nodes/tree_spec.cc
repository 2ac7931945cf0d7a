#include "pipeline/nodes/tree_spec.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "pipeline/batch.h"
#include "pipeline/nodes/bucket.h"
#include "pipeline/nodes/audio_source.h"
#include "pipeline/nodes/raw_source.h"
#include "pipeline/nodes/source_registry.h"
#include "pipeline/padded.h"
#include "pipeline/plan.h"

namespace mindrecord {

Status PlanNodeError(const std::string& path, const std::string& what) {
  return Status::InvalidArgument("plan: " + path + ": " + what);
}

namespace {

using json = nlohmann::json;

// Checks one node's keys and values, normalizing them into `out`.
class NodeReader {
 public:
  NodeReader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  Status Bad(const std::string& m) const { return PlanNodeError(path_, m); }
  Status Keys(std::initializer_list<const char*> allowed) const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      bool ok = it.key() == "node";
      for (const char* a : allowed) ok = ok || it.key() == a;
      if (!ok) return Bad("unknown key '" + it.key() + "' for a '" + j_["node"].get<std::string>() + "' node");
    }
    return Status::OK();
  }
  bool Has(const char* k) const { return j_.contains(k); }
  Result<uint64_t> UInt(const char* k, uint64_t def, uint64_t min = 0) const {
    if (!j_.contains(k)) {
      if (def < min) return Bad("needs '" + std::string(k) + "'");
      return def;
    }
    const json& v = j_[k];
    // Integers built in C++ are signed; parsed ones unsigned when >= 0.
    const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    if (!whole || v.get<uint64_t>() < min) {
      return Bad("'" + std::string(k) + "' must be an integer >= " + std::to_string(min) + ", got " + v.dump());
    }
    return v.get<uint64_t>();
  }
  Result<bool> Bool(const char* k, bool def) const {
    if (!j_.contains(k)) return def;
    if (!j_[k].is_boolean()) return Bad("'" + std::string(k) + "' must be true or false, got " + j_[k].dump());
    return j_[k].get<bool>();
  }
  Result<std::vector<std::string>> Names(const char* k, bool required, bool unique) const {
    std::vector<std::string> out;
    if (!j_.contains(k)) {
      if (required) return Bad("needs '" + std::string(k) + "' (a list of column names)");
      return out;
    }
    const json& v = j_[k];
    if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else if (v.is_array()) {
      for (const auto& s : v) {
        if (!s.is_string()) return Bad("'" + std::string(k) + "' must be a list of column names, got " + v.dump());
        out.push_back(s.get<std::string>());
      }
    } else {
      return Bad("'" + std::string(k) + "' must be a list of column names, got " + v.dump());
    }
    if (required && out.empty()) return Bad("'" + std::string(k) + "' names no column");
    if (unique && std::set<std::string>(out.begin(), out.end()).size() != out.size()) {
      return Bad("'" + std::string(k) + "' names a column twice: " + v.dump());
    }
    return out;
  }
  Result<json> OpSpec(const json& v, const std::string& what) const {
    if (!v.is_object() || !v.contains("op") || !v["op"].is_string()) {
      return Bad(what + " must be an op spec (an object with an 'op' name), got " + v.dump());
    }
    return v;
  }
  const std::string& path() const { return path_; }
  Status Seed(json* out) const {
    if (!j_.contains("seed")) return Status::OK();
    MR_ASSIGN_OR_RETURN(uint64_t s, UInt("seed", 0));
    (*out)["seed"] = s;
    return Status::OK();
  }

 private:
  const json& j_;
  std::string path_;
};

Result<json> Normalize(const json& j, const std::string& path);

Result<json> Child(const json& j, const std::string& path) {
  if (!j.contains("input")) return PlanNodeError(path, "needs an 'input' node");
  return Normalize(j["input"], path + ".input");
}

Result<json> Children(const json& j, const std::string& path) {
  if (!j.contains("inputs") || !j["inputs"].is_array() || j["inputs"].empty()) {
    return PlanNodeError(path, "needs 'inputs', a non-empty list of nodes");
  }
  json out = json::array();
  for (size_t i = 0; i < j["inputs"].size(); ++i) {
    MR_ASSIGN_OR_RETURN(json c, Normalize(j["inputs"][i], path + ".inputs[" + std::to_string(i) + "]"));
    out.push_back(std::move(c));
  }
  return out;
}

Result<json> Leaf(const json& j, const NodeReader& r) {
  MR_RETURN_IF_ERROR(r.Keys({"source", "source_list", "columns", "sampler", "padded", "seed"}));
  json out = {{"node", "mindrecord"}};
  MR_ASSIGN_OR_RETURN(auto source, r.Names("source", true, false));
  out["source"] = source;
  MR_ASSIGN_OR_RETURN(bool listed, r.Bool("source_list", false));
  if (listed) out["source_list"] = true;
  MR_ASSIGN_OR_RETURN(auto columns, r.Names("columns", false, true));
  out["columns"] = columns;
  MR_ASSIGN_OR_RETURN(out["sampler"], LeafSampler(j, r.path()));
  if (j.contains("padded") && !j["padded"].is_null()) {
    Status st = CheckPaddedSpec(j["padded"]);
    if (!st.ok()) return r.Bad(st.message());
    out["padded"] = j["padded"];
  }
  MR_RETURN_IF_ERROR(r.Seed(&out));
  return out;
}

Result<json> BatchNode(const json& j, const NodeReader& r, json input) {
  MR_RETURN_IF_ERROR(r.Keys({"input", "batch_size", "drop_remainder", "ragged", "per_batch_map", "input_columns",
                             "output_columns", "bucket", "batch_size_map"}));
  json opts = json::object();
  for (const char* k : {"batch_size", "drop_remainder", "ragged"}) {
    if (j.contains(k)) opts[k] = j[k];
  }
  auto b = BatchOptions::FromJson(opts);
  if (!b.ok()) return r.Bad(b.status().message());
  json out = b->ToJson();
  out["node"] = "batch";
  out["input"] = std::move(input);
  MR_ASSIGN_OR_RETURN(auto in, r.Names("input_columns", false, true));
  MR_ASSIGN_OR_RETURN(auto outc, r.Names("output_columns", false, true));
  if (j.contains("per_batch_map") && !j["per_batch_map"].is_null()) {
    const json& m = j["per_batch_map"];
    if (!m.is_object() || !m.contains("map") || !m["map"].is_string()) {
      return r.Bad("'per_batch_map' must be an object with a 'map' name, got " + m.dump());
    }
    out["per_batch_map"] = m;
    if (!in.empty()) out["input_columns"] = in;
    if (!outc.empty()) out["output_columns"] = outc;
  } else if (!in.empty() || !outc.empty()) {
    return r.Bad("'input_columns' and 'output_columns' of a batch go with a 'per_batch_map'");
  }
  if (j.contains("batch_size_map")) {
    const json& m = j["batch_size_map"];
    if (!m.is_object() || !m.contains("map") || !m["map"].is_string()) {
      return r.Bad("'batch_size_map' must be an object with a 'map' name, got " + m.dump());
    }
    if (j.contains("bucket")) return r.Bad("a 'bucket' batch takes no 'batch_size_map'");
    out["batch_size_map"] = m;
  }
  if (j.contains("bucket")) {
    if (j.contains("batch_size") || out.contains("per_batch_map")) {
      return r.Bad("a 'bucket' batch takes its batch sizes from the bucket: no 'batch_size' or 'per_batch_map' beside it");
    }
    auto s = BucketSpec::FromJson(j["bucket"]);
    if (!s.ok()) return r.Bad(s.status().message());
    out.erase("batch_size");
    out["bucket"] = s->ToJson();
  }
  return out;
}

Result<json> Normalize(const json& j, const std::string& path) {
  if (!j.is_object() || !j.contains("node") || !j["node"].is_string()) {
    return PlanNodeError(path, "a node must be an object with a 'node' type");
  }
  const std::string type = j["node"].get<std::string>();
  NodeReader r(j, path);
  static const std::set<std::string> kTypes = {"mindrecord", "raw", "audio", "source", "map",    "ops",   "filter",
                                               "project",    "rename", "take", "skip",   "repeat", "shuffle",
                                               "shard",      "concat", "zip",  "mix",    "batch",  "cache"};
  if (!kTypes.count(type)) {
    return r.Bad("unknown node type '" + type +
                 "' (expected mindrecord, raw, audio, source, map, ops, filter, project, rename, take, skip, repeat, shuffle, shard, "
                 "concat, zip, mix, batch or cache)");
  }
  if (type == "mindrecord") return Leaf(j, r);
  if (type == "raw") return NormalizeRawLeaf(j, path);
  if (type == "audio") return NormalizeAudioLeaf(j, path);
  if (type == "source") {
    MR_ASSIGN_OR_RETURN(json out, NormalizeSourceLeaf(j, path));
    out.erase("seed");
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  if (type == "concat" || type == "zip") {
    MR_RETURN_IF_ERROR(r.Keys({"inputs"}));
    MR_ASSIGN_OR_RETURN(json inputs, Children(j, path));
    return json{{"node", type}, {"inputs", std::move(inputs)}};
  }
  if (type == "mix") {
    MR_RETURN_IF_ERROR(r.Keys({"inputs", "weights", "policy", "num_samples", "seed"}));
    MR_ASSIGN_OR_RETURN(json inputs, Children(j, path));
    if (!j.contains("weights") || !j["weights"].is_array() || j["weights"].size() != inputs.size()) {
      return r.Bad("'weights' must be a list of one number per input (" + std::to_string(inputs.size()) + ")");
    }
    double sum = 0;
    for (const auto& w : j["weights"]) {
      if (!w.is_number() || w.get<double>() < 0 || !std::isfinite(w.get<double>())) {
        return r.Bad("'weights' must be numbers >= 0, got " + j["weights"].dump());
      }
      sum += w.get<double>();
    }
    if (!(sum > 0)) return r.Bad("'weights' must not all be 0");
    const json policy = j.contains("policy") ? j["policy"] : json("stop");
    if (policy != "stop" && policy != "restart" && policy != "drop") {
      return r.Bad("'policy' must be \"stop\", \"restart\" or \"drop\", got " + policy.dump());
    }
    MR_ASSIGN_OR_RETURN(uint64_t n, r.UInt("num_samples", 0));
    json out = {{"node", "mix"}, {"inputs", std::move(inputs)}, {"weights", j["weights"]}, {"policy", policy},
                {"num_samples", n}};
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  MR_ASSIGN_OR_RETURN(json input, Child(j, path));
  json out = {{"node", type}, {"input", input}};
  if (type == "batch") return BatchNode(j, r, std::move(input));
  if (type == "map") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "operations", "input_columns", "output_columns", "seed"}));
    if (!j.contains("operations") || !j["operations"].is_array() || j["operations"].empty()) {
      return r.Bad("needs 'operations', a non-empty list of op specs");
    }
    json ops = json::array();
    for (const auto& s : j["operations"]) {
      MR_ASSIGN_OR_RETURN(json spec, r.OpSpec(s, "each of 'operations'"));
      ops.push_back(std::move(spec));
    }
    out["operations"] = std::move(ops);
    MR_ASSIGN_OR_RETURN(auto in, r.Names("input_columns", false, true));
    MR_ASSIGN_OR_RETURN(auto outc, r.Names("output_columns", false, true));
    out["input_columns"] = in;
    out["output_columns"] = outc;
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  if (type == "ops") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "ops", "seed"}));
    if (!j.contains("ops") || !j["ops"].is_object()) return r.Bad("needs 'ops', an object of column -> op specs");
    json ops = json::object();
    for (auto it = j["ops"].begin(); it != j["ops"].end(); ++it) {
      if (!it.value().is_array()) return r.Bad("'ops." + it.key() + "' must be a list of op specs");
      json list = json::array();
      for (const auto& s : it.value()) {
        MR_ASSIGN_OR_RETURN(json spec, r.OpSpec(s, "each of 'ops." + it.key() + "'"));
        list.push_back(std::move(spec));
      }
      ops[it.key()] = std::move(list);
    }
    out["ops"] = std::move(ops);
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  if (type == "filter") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "predicate", "input_columns", "seed"}));
    if (!j.contains("predicate")) return r.Bad("needs a 'predicate' op spec");
    MR_ASSIGN_OR_RETURN(out["predicate"], r.OpSpec(j["predicate"], "'predicate'"));
    MR_ASSIGN_OR_RETURN(auto in, r.Names("input_columns", false, true));
    out["input_columns"] = in;
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  if (type == "cache") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "session_id", "size_bytes", "dir"}));
    if (!j.contains("session_id")) return r.Bad("needs 'session_id' (the cache's name)");
    const json& sid = j["session_id"];
    if (sid.is_string()) {
      out["session_id"] = sid;
    } else {
      MR_ASSIGN_OR_RETURN(uint64_t n, r.UInt("session_id", 0));
      out["session_id"] = std::to_string(n);  // MindSpore's session ids are integers
    }
    MR_ASSIGN_OR_RETURN(out["size_bytes"], r.UInt("size_bytes", 0));
    if (j.contains("dir") && !j["dir"].is_string()) return r.Bad("'dir' must be a folder path, got " + j["dir"].dump());
    out["dir"] = j.value("dir", std::string());
    return out;
  }
  if (type == "project") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "columns"}));
    MR_ASSIGN_OR_RETURN(auto cols, r.Names("columns", true, true));
    out["columns"] = cols;
    return out;
  }
  if (type == "rename") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "input_columns", "output_columns"}));
    MR_ASSIGN_OR_RETURN(auto in, r.Names("input_columns", true, true));
    MR_ASSIGN_OR_RETURN(auto outc, r.Names("output_columns", true, true));
    if (in.size() != outc.size()) return r.Bad("'input_columns' and 'output_columns' differ in length");
    out["input_columns"] = in;
    out["output_columns"] = outc;
    return out;
  }
  if (type == "take" || type == "skip") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "count"}));
    if (!r.Has("count")) return r.Bad("needs 'count'");
    MR_ASSIGN_OR_RETURN(out["count"], r.UInt("count", 0));
    return out;
  }
  if (type == "repeat") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "count"}));
    MR_ASSIGN_OR_RETURN(out["count"], r.UInt("count", 0, 1));
    return out;
  }
  if (type == "shuffle") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "buffer_size", "seed"}));
    MR_ASSIGN_OR_RETURN(out["buffer_size"], r.UInt("buffer_size", 0, 2));
    MR_RETURN_IF_ERROR(r.Seed(&out));
    return out;
  }
  if (type == "shard") {
    MR_RETURN_IF_ERROR(r.Keys({"input", "num_shards", "shard_id", "pad", "split", "worker_count", "worker_id",
                               "worker_batch", "elastic"}));
    MR_ASSIGN_OR_RETURN(uint64_t n, r.UInt("num_shards", 0, 1));
    MR_ASSIGN_OR_RETURN(uint64_t id, r.UInt("shard_id", 0));
    if (id >= n) return r.Bad("'shard_id' must be below 'num_shards' (" + std::to_string(n) + ")");
    MR_ASSIGN_OR_RETURN(bool pad, r.Bool("pad", false));
    const json split = j.value("split", json("round_robin"));
    if (split != "round_robin" && split != "contiguous") {
      return r.Bad("'split' must be \"round_robin\" or \"contiguous\", got " + split.dump());
    }
    MR_ASSIGN_OR_RETURN(uint64_t wc, r.UInt("worker_count", 1, 1));
    MR_ASSIGN_OR_RETURN(uint64_t wi, r.UInt("worker_id", 0));
    if (wi >= wc) return r.Bad("'worker_id' must be below 'worker_count' (" + std::to_string(wc) + ")");
    MR_ASSIGN_OR_RETURN(uint64_t wb, r.UInt("worker_batch", 1, 1));
    out.update(json{{"num_shards", n}, {"shard_id", id}, {"pad", pad}, {"split", split}, {"worker_count", wc},
                {"worker_id", wi}, {"worker_batch", wb}});
    // An elastic epoch (distributed_sampler.h), checked by the sampler.
    if (j.contains("elastic") && !j["elastic"].is_null()) {
      if (!j["elastic"].is_object()) return r.Bad("'elastic' must be an object");
      out["elastic"] = j["elastic"];
    }
    return out;
  }
  return Status::Internal("plan: " + path + ": node type '" + type + "' not normalized");
}

}  // namespace

Result<json> NormalizeTree(const json& tree) { return Normalize(tree, "tree"); }

json FlatPlanTree(const Plan& plan) {
  json leaf = {{"node", "mindrecord"}, {"source", plan.source}, {"columns", plan.columns}, {"sampler", plan.sampler}};
  if (plan.source_list) leaf["source_list"] = true;
  if (!plan.padded.is_null()) leaf["padded"] = plan.padded;
  json node = std::move(leaf);
  if (!plan.ops.empty()) {
    json ops = json::object();
    for (const auto& [col, specs] : plan.ops) ops[col] = specs;
    node = {{"node", "ops"}, {"input", std::move(node)}, {"ops", std::move(ops)}};
  }
  json batch = plan.batch.ToJson();
  batch["node"] = "batch";
  batch["input"] = std::move(node);
  return batch;
}

Result<json> LeafSampler(const json& leaf, const std::string& path) {
  if (!leaf.contains("sampler")) return json{{"type", "sequential"}};
  const json& s = leaf["sampler"];
  if (!s.is_object() || !s.contains("type")) {
    return PlanNodeError(path, "'sampler' must be an object with a 'type'");
  }
  return s;
}

Status CopyLeafSeed(const json& leaf, json* out, const std::string& path) {
  return NodeReader(leaf, path).Seed(out);
}

json WithoutHandles(json j) {
  if (j.is_object()) {
    const bool spec = (j.contains("op") && j["op"].is_string()) || (j.contains("map") && j["map"].is_string()) ||
                      j.value("node", json()) == "source";
    for (auto it = j.begin(); it != j.end();) {
      if (spec && !it.key().empty() && it.key()[0] == '_') {
        it = j.erase(it);
      } else {
        it.value() = WithoutHandles(std::move(it.value()));
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) v = WithoutHandles(std::move(v));
  }
  return j;
}

}  // namespace mindrecord
