#include "pipeline/stats.h"

namespace mindrecord {

nlohmann::json PipelineStats::ToJson() const {
  nlohmann::json j = {{"elapsed_s", elapsed_s},         {"rows", rows},
          {"batches", batches},             {"batches_gathered", batches_gathered},
          {"rows_skipped", rows_skipped},
          {"rows_per_s", rows_per_s},       {"io_s", io_s},
          {"transform_s", transform_s},     {"workers_blocked_s", workers_blocked_s},
          {"consumer_wait_s", consumer_wait_s}, {"sink_s", sink_s},
          {"sink_bytes", sink_bytes},       {"sink_staged_bytes", sink_staged_bytes},
          {"io_mode", io_mode},             {"shard_io_modes", shard_io_modes},
          {"num_workers", num_workers},     {"queue_depth", queue_depth},
          {"in_flight", in_flight},         {"max_in_flight", max_in_flight},
          {"queue_bytes", queue_bytes},     {"bytes_in_queue", bytes_in_queue},
          {"max_bytes_in_queue", max_bytes_in_queue},
          {"skipped_errors", skipped_errors}, {"rows_filtered", rows_filtered}};
  if (!mix_rows.empty()) j["mix_rows"] = mix_rows;
  if (autotune) {
    j["autotune"] = {{"max_workers", autotune_max_workers}, {"changes", autotune_changes},
                     {"decisions", autotune_decisions}};
  }
  if (!caches.empty()) {
    nlohmann::json cs = nlohmann::json::array();
    for (const auto& c : caches) {
      cs.push_back({{"hits", c.hits}, {"misses", c.misses}, {"stored", c.stored}, {"rejected", c.rejected},
                    {"corrupt", c.corrupt}, {"bytes", c.bytes}, {"entries", c.entries}});
    }
    j["cache"] = std::move(cs);
  }
  return j;
}

nlohmann::json PipelineState::ToJson() const {
  // The fingerprint is a string: JSON numbers above 2^53 do not survive every parser.
  nlohmann::json j = {{"seed", seed}, {"epoch", epoch}, {"position", position}, {"rows", rows},
                      {"fingerprint", std::to_string(fingerprint)}};
  if (!counts.empty()) j["counts"] = counts;
  if (absorbed != 0) {
    j["absorbed"] = absorbed;
    j["bucketed"] = bucketed;
  }
  return j;
}

Result<PipelineState> PipelineState::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("pipeline state must be a JSON object");
  PipelineState s;
  auto get = [&](const char* key, uint64_t* out, bool required) -> Status {
    if (!j.contains(key)) {
      return required ? Status::InvalidArgument(std::string("pipeline state: missing '") + key + "'") : Status::OK();
    }
    if (!j[key].is_number_unsigned()) {
      return Status::InvalidArgument(std::string("pipeline state: '") + key + "' must be a non-negative integer");
    }
    *out = j[key].get<uint64_t>();
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(get("seed", &s.seed, true));
  MR_RETURN_IF_ERROR(get("epoch", &s.epoch, true));
  MR_RETURN_IF_ERROR(get("position", &s.position, true));
  MR_RETURN_IF_ERROR(get("rows", &s.rows, false));
  if (!j.contains("fingerprint") || !j["fingerprint"].is_string()) {
    return Status::InvalidArgument("pipeline state: missing 'fingerprint' (a decimal string)");
  }
  const std::string f = j["fingerprint"].get<std::string>();
  char* end = nullptr;
  s.fingerprint = std::strtoull(f.c_str(), &end, 10);
  if (f.empty() || *end != '\0') return Status::InvalidArgument("pipeline state: bad 'fingerprint' '" + f + "'");
  if (j.contains("counts")) {
    if (!j["counts"].is_array()) return Status::InvalidArgument("pipeline state: 'counts' must be a list of integers");
    for (const auto& c : j["counts"]) {
      if (!c.is_number_unsigned()) return Status::InvalidArgument("pipeline state: 'counts' must be a list of integers");
      s.counts.push_back(c.get<uint64_t>());
    }
  }
  MR_RETURN_IF_ERROR(get("absorbed", &s.absorbed, false));
  if (j.contains("bucketed")) {
    if (!j["bucketed"].is_array()) return Status::InvalidArgument("pipeline state: 'bucketed' must be a list of positions");
    for (const auto& c : j["bucketed"]) {
      if (!c.is_number_unsigned() || (!s.bucketed.empty() && c.get<uint64_t>() <= s.bucketed.back()) ||
          c.get<uint64_t>() >= s.absorbed) {
        return Status::InvalidArgument("pipeline state: 'bucketed' must list ascending positions before 'absorbed'");
      }
      s.bucketed.push_back(c.get<uint64_t>());
    }
  }
  if (s.absorbed != 0 && s.position != (s.bucketed.empty() ? s.absorbed : s.bucketed.front())) {
    return Status::InvalidArgument("pipeline state: 'position' must be the first of 'bucketed' (or 'absorbed')");
  }
  return s;
}

}  // namespace mindrecord
