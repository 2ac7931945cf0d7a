#include "pipeline/plan.h"

#include "pipeline/nodes/cache_node.h"
#include "pipeline/nodes/tree_spec.h"
#include "pipeline/padded.h"
#include "pipeline/sampler.h"
#include "readers/shard_reader.h"

namespace mindrecord {

namespace {
Status BadPlan(const std::string& m) { return Status::InvalidArgument("plan: " + m); }

Result<std::vector<std::string>> StringList(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
    return out;
  }
  if (!j.is_array()) return BadPlan(std::string("'") + key + "' must be a list of strings");
  for (const auto& v : j) {
    if (!v.is_string()) return BadPlan(std::string("'") + key + "' must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}
// The plan's "remote" object: RemoteOptions (readers/remote_options.h), each
// key optional. Unknown keys are refused.
nlohmann::json RemoteToJson(const RemoteOptions& r) {
  return {{"endpoint", r.endpoint},         {"cache_dir", r.cache_dir},
          {"cache_bytes", r.cache_bytes},   {"memory_bytes", r.memory_bytes},
          {"block_bytes", r.block_bytes},   {"parallel", r.parallel},
          {"read_ahead_bytes", r.read_ahead_bytes}, {"retries", r.retries},
          {"backoff_ms", r.backoff_ms},     {"timeout_s", r.timeout_s}};
}

}  // namespace

Status ParseRemoteOptions(const nlohmann::json& v, RemoteOptions* r) {
  if (!v.is_object()) return BadPlan("'remote' must be an object, got " + v.dump());
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& x = it.value();
    if (k == "endpoint" || k == "cache_dir") {
      if (!x.is_string()) return BadPlan("'remote." + k + "' must be a string, got " + x.dump());
      (k == "endpoint" ? r->endpoint : r->cache_dir) = x.get<std::string>();
      continue;
    }
    if (!x.is_number_unsigned()) return BadPlan("'remote." + k + "' must be an integer >= 0, got " + x.dump());
    const uint64_t n = x.get<uint64_t>();
    auto small = [&](uint32_t* out, uint64_t lo) -> Status {
      if (n < lo || n > 1000000) return BadPlan("'remote." + k + "' must be in [" + std::to_string(lo) + ", 1000000]");
      *out = static_cast<uint32_t>(n);
      return Status::OK();
    };
    if (k == "cache_bytes") r->cache_bytes = n;
    else if (k == "memory_bytes") r->memory_bytes = n;
    else if (k == "read_ahead_bytes") r->read_ahead_bytes = n;
    else if (k == "block_bytes") {
      if (n == 0) return BadPlan("'remote.block_bytes' must be >= 1");
      r->block_bytes = n;
    } else if (k == "parallel") MR_RETURN_IF_ERROR(small(&r->parallel, 1));
    else if (k == "retries") MR_RETURN_IF_ERROR(small(&r->retries, 0));
    else if (k == "backoff_ms") MR_RETURN_IF_ERROR(small(&r->backoff_ms, 0));
    else if (k == "timeout_s") MR_RETURN_IF_ERROR(small(&r->timeout_s, 1));
    else return BadPlan("unknown key 'remote." + k + "'");
  }
  return Status::OK();
}

nlohmann::json Plan::ToJson() const {
  nlohmann::json ops_j = nlohmann::json::object();
  for (const auto& [col, specs] : ops) ops_j[col] = specs;
  nlohmann::json sink_j = {{"type", sink.kind == SinkSpec::Kind::kCuda ? "cuda" : "host"}};
  if (sink.kind == SinkSpec::Kind::kCuda) {
    sink_j["device"] = sink.device;
    sink_j["buffers"] = sink.buffers;
  }
  nlohmann::json j = {{"source", source},
          {"io_mode", IoModeName(read.io_mode)},
          {"direct_fallback", read.direct_fallback},
          {"auto_direct_above", read.auto_direct_above},
          {"columns", columns},
          {"sampler", sampler},
          {"ops", ops_j},
          {"batch", batch.ToJson()},
          {"sink", sink_j},
          {"num_workers", num_workers},
          {"queue_depth", queue_depth},
          {"queue_bytes", queue_bytes},
          {"max_batch_bytes", max_batch_bytes},
          {"seed", seed},
          {"epochs", epochs},
          {"on_error", on_error == ErrorPolicy::kSkip ? "skip" : "fail"}};
  if (autotune.enabled || autotune.cpu_budget != 0 || autotune.interval != 0) j["autotune"] = autotune.ToJson();
  if (!padded.is_null()) j["padded"] = padded;
  if (source_list) j["source_list"] = true;
  if (copy_views) j["copy_views"] = true;
  if (RemoteToJson(read.remote) != RemoteToJson(RemoteOptions())) j["remote"] = RemoteToJson(read.remote);
  if (!tree.is_null()) {
    // What to read is the tree's: the flat keys stay out.
    for (const char* k : {"source", "source_list", "columns", "sampler", "ops", "batch", "padded"}) j.erase(k);
    j["tree"] = tree;
  }
  return j;
}

nlohmann::json Plan::Tree() const { return tree.is_null() ? FlatPlanTree(*this) : tree; }

Result<Plan> Plan::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return BadPlan("must be a JSON object");
  Plan p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& v = it.value();
    if (k == "source") {
      MR_ASSIGN_OR_RETURN(p.source, StringList(v, "source"));
    } else if (k == "source_list") {
      if (!v.is_boolean()) return BadPlan("'source_list' must be true or false, got " + v.dump());
      p.source_list = v.get<bool>();
    } else if (k == "io_mode") {
      // The reader's one list of mode names (readers/io_mode.cc).
      Result<IoMode> mode = ParseIoMode(v.is_string() ? v.get<std::string>() : v.dump());
      if (!mode.ok()) return BadPlan(mode.status().message());
      p.read.io_mode = *mode;
    } else if (k == "direct_fallback") {
      if (!v.is_boolean()) return BadPlan("'direct_fallback' must be true or false, got " + v.dump());
      p.read.direct_fallback = v.get<bool>();
    } else if (k == "auto_direct_above") {
      if (!v.is_number_unsigned()) return BadPlan("'auto_direct_above' must be a byte count >= 0, got " + v.dump());
      p.read.auto_direct_above = v.get<uint64_t>();
    } else if (k == "remote") {
      MR_RETURN_IF_ERROR(ParseRemoteOptions(v, &p.read.remote));
    } else if (k == "columns") {
      MR_ASSIGN_OR_RETURN(p.columns, StringList(v, "columns"));
    } else if (k == "sampler") {
      if (!v.is_object() || !v.contains("type")) return BadPlan("'sampler' must be an object with a 'type'");
      p.sampler = v;
    } else if (k == "ops") {
      if (!v.is_object()) return BadPlan("'ops' must map column names to lists of op specs");
      for (auto o = v.begin(); o != v.end(); ++o) {
        if (!o.value().is_array()) return BadPlan("'ops." + o.key() + "' must be a list of op specs");
        for (const auto& spec : o.value()) {
          if (!spec.is_object() || !spec.contains("op")) {
            return BadPlan("'ops." + o.key() + "': each op spec must be an object with an 'op' name");
          }
          p.ops[o.key()].push_back(spec);
        }
      }
    } else if (k == "batch") {
      MR_ASSIGN_OR_RETURN(p.batch, BatchOptions::FromJson(v));
    } else if (k == "sink") {
      if (!v.is_object()) return BadPlan("'sink' must be an object");
      if (v.contains("type") && !v["type"].is_string()) return BadPlan("'sink.type' must be \"host\" or \"cuda\"");
      const std::string type = v.value("type", "host");
      if (type == "host") {
        p.sink.kind = SinkSpec::Kind::kHost;
      } else if (type == "cuda") {
        p.sink.kind = SinkSpec::Kind::kCuda;
      } else {
        return BadPlan("'sink.type' must be \"host\" or \"cuda\", got \"" + type + "\"");
      }
      if (v.contains("device")) {
        if (!v["device"].is_number_integer() || v["device"].get<int>() < 0) return BadPlan("'sink.device' must be >= 0");
        p.sink.device = v["device"].get<int>();
      }
      if (v.contains("buffers")) {
        if (!v["buffers"].is_number_integer() || v["buffers"].get<int>() < 2 || v["buffers"].get<int>() > 16) {
          return BadPlan("'sink.buffers' must be an integer in [2, 16]");
        }
        p.sink.buffers = v["buffers"].get<uint32_t>();
      }
    } else if (k == "autotune") {
      MR_ASSIGN_OR_RETURN(p.autotune, AutotuneOptions::FromJson(v));
    } else if (k == "num_workers" || k == "queue_depth") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1024) {
        return BadPlan("'" + k + "' must be an integer in [1, 1024], got " + v.dump());
      }
      (k == "num_workers" ? p.num_workers : p.queue_depth) = v.get<uint32_t>();
    } else if (k == "copy_views") {
      if (!v.is_boolean()) return BadPlan("'copy_views' must be true or false, got " + v.dump());
      p.copy_views = v.get<bool>();
    } else if (k == "queue_bytes" || k == "max_batch_bytes") {
      if (!v.is_number_unsigned() || v.get<uint64_t>() == 0) {
        return BadPlan("'" + k + "' must be a byte count >= 1, got " + v.dump());
      }
      (k == "queue_bytes" ? p.queue_bytes : p.max_batch_bytes) = v.get<uint64_t>();
    } else if (k == "seed" || k == "epochs") {
      if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)) {
        return BadPlan("'" + k + "' must be a non-negative integer, got " + v.dump());
      }
      (k == "seed" ? p.seed : p.epochs) = v.get<uint64_t>();
    } else if (k == "on_error") {
      if (v == "fail") p.on_error = ErrorPolicy::kFail;
      else if (v == "skip") p.on_error = ErrorPolicy::kSkip;
      else return BadPlan("'on_error' must be \"fail\" or \"skip\", got " + v.dump());
    } else if (k == "padded") {
      if (!v.is_null()) MR_RETURN_IF_ERROR(CheckPaddedSpec(v));
      p.padded = v;
    } else if (k == "tree") {
      MR_ASSIGN_OR_RETURN(p.tree, NormalizeTree(v));
    } else {
      return BadPlan("unknown key '" + k + "'");
    }
  }
  if (j.contains("tree")) {
    for (const char* k : {"source", "source_list", "columns", "sampler", "ops", "batch", "padded"}) {
      if (j.contains(k)) return BadPlan("'" + std::string(k) + "' belongs to a node of 'tree', not beside it");
    }
  }
  return p;
}

ReaderOptions Plan::ReaderOptionsForSource() const {
  ReaderOptions o = read;
  o.shard_paths.clear();
  if (source.size() > 1 || source_list) o.shard_paths = source;
  return o;
}

Result<Plan> Plan::Parse(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return BadPlan("not valid JSON");
  return FromJson(j);
}

uint64_t Plan::SequenceFingerprint() const {
  nlohmann::json j = ToJson();
  j.erase("num_workers");
  j.erase("autotune");
  j.erase("queue_depth");
  j.erase("queue_bytes");
  j.erase("max_batch_bytes");
  j.erase("copy_views");
  j.erase("sink");
  j.erase("io_mode");
  j.erase("direct_fallback");
  j.erase("auto_direct_above");
  j.erase("remote");
  j.erase("epochs");
  // Op spec keys starting with '_' are process-local handles (a Python
  // callable's registry id), not part of what the op does.
  if (j.contains("tree")) j["tree"] = WithoutCaches(WithoutHandles(std::move(j["tree"])));
  if (j.contains("ops")) {
    for (auto& specs : j["ops"]) {
      for (auto& spec : specs) {
        for (auto it = spec.begin(); it != spec.end();) {
          if (!it.key().empty() && it.key()[0] == '_') it = spec.erase(it);
          else ++it;
        }
      }
    }
  }
  const std::string s = j.dump();
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace mindrecord
