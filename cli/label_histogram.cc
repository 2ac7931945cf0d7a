#include "cli/label_histogram.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "index/index_reader.h"
#include "mindrecord/constants.h"
#include "mindrecord/json_number.h"
#include "readers/shard_paths.h"
#include "readers/shard_reader.h"

namespace mindrecord::cli {

namespace {

using Counts = std::map<Value, uint64_t, ValueLess>;

Status TooMany(const std::string& column) {
  return Status::InvalidArgument("column '" + column + "' has more than " + std::to_string(kMaxLabelValues) +
                                 " distinct values: not a label column");
}

Result<bool> CountFromIndex(const ShardReader& r, const std::string& column, Counts* counts) {
  const auto& fields = r.index_fields();
  if (std::find(fields.begin(), fields.end(), column) == fields.end()) return false;
  for (uint32_t s = 0; s < r.num_shards(); ++s) {
    if (!r.has_index(s)) return false;
  }
  for (uint32_t s = 0; s < r.num_shards(); ++s) {
    const std::string& path = r.shard_paths()[s];
    MR_ASSIGN_OR_RETURN(auto index, IndexReader::Open(path + kIndexSuffix, RecordedShardName(r.header(s)),
                                                      r.header(s).version == kVersion2));
    auto part = index->CountBy(column, r.schema(), kMaxLabelValues);
    if (!part.ok()) return part.status().code() == StatusCode::kInvalidArgument ? TooMany(column) : part.status();
    for (auto& [v, n] : *part) (*counts)[v] += n;
    if (counts->size() > kMaxLabelValues) return TooMany(column);
  }
  return true;
}

}  // namespace

Result<Histogram> CountLabels(const ShardReader& r, const std::string& column) {
  const Field* f = r.schema().Find(column);
  if (f == nullptr) return Status::InvalidArgument("no column '" + column + "' in " + r.shard_paths()[0]);
  if (!f->is_scalar() || f->type == DataType::kBytes) {
    return Status::InvalidArgument("column '" + column + "' is not a scalar number or string: it has no histogram");
  }
  Histogram h;
  h.column = column;
  Counts counts;
  MR_ASSIGN_OR_RETURN(h.from_index, CountFromIndex(r, column, &counts));
  if (!h.from_index) {
    counts.clear();
    MR_ASSIGN_OR_RETURN(Projection proj, r.MakeProjection({column}));
    MR_RETURN_IF_ERROR(r.Scan(0, r.num_rows(), &proj, [&](uint64_t, Row&& row) {
      const Value* v = row.Find(column);
      if (v != nullptr) ++counts[*v];
      return counts.size() > kMaxLabelValues ? TooMany(column) : Status::OK();
    }));
  }
  for (auto& [v, n] : counts) h.counts.push_back({v, n});
  return h;
}

std::map<int64_t, std::string> ClassNames(const Schema& schema) {
  std::map<int64_t, std::string> out;
  const auto d = nlohmann::json::parse(schema.desc(), nullptr, /*allow_exceptions=*/false);
  if (!d.is_object() || !d.contains("class_to_label") || !d["class_to_label"].is_object()) return out;
  for (const auto& [name, label] : d["class_to_label"].items()) {
    if (const auto l = JsonInt64(label)) out[*l] = name;
  }
  return out;
}

std::string LabelText(const Value& v, const std::map<int64_t, std::string>& names) {
  if (v.kind() == Value::Kind::kString) return v.bytes();
  if (v.kind() == Value::Kind::kInt) {
    auto it = names.find(v.as_int());
    return std::to_string(v.as_int()) + (it == names.end() ? "" : " (" + it->second + ")");
  }
  nlohmann::json j = v.as_float();
  return j.dump();
}

}  // namespace mindrecord::cli
