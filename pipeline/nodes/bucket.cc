#include "pipeline/nodes/bucket.h"

#include <algorithm>
#include <limits>

namespace mindrecord {

using json = nlohmann::json;

namespace {

Result<std::vector<uint64_t>> PositiveList(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array() || j[key].empty()) {
    return Status::InvalidArgument(std::string("bucket: '") + key + "' must be a non-empty list of integers >= 1");
  }
  std::vector<uint64_t> out;
  for (const json& v : j[key]) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument(std::string("bucket: '") + key + "' must hold integers in [1, 2^31 - 1], got " +
                                     v.dump());
    }
    out.push_back(v.get<uint64_t>());
  }
  return out;
}

}  // namespace

json BucketSpec::ToJson() const {
  json j = {{"boundaries", boundaries}, {"batch_sizes", batch_sizes}, {"pad_to_boundary", pad_to_boundary}};
  if (!length_map.is_null()) {
    j["length_map"] = length_map;
    j["input_columns"] = length_columns;
  } else {
    j["column"] = column;
    j["length"] = value ? "value" : "dim0";
  }
  return j;
}

Result<BucketSpec> BucketSpec::FromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("bucket: must be an object, got " + j.dump());
  for (const auto& [k, v] : j.items()) {
    if (k != "column" && k != "length" && k != "boundaries" && k != "batch_sizes" && k != "pad_to_boundary" &&
        k != "length_map" && k != "input_columns") {
      return Status::InvalidArgument("bucket: unknown key '" + k + "'");
    }
  }
  BucketSpec s;
  if (j.contains("length_map")) {
    const json& m = j["length_map"];
    if (!m.is_object() || !m.contains("map") || !m["map"].is_string()) {
      return Status::InvalidArgument("bucket: 'length_map' must be an object with a 'map' name, got " + m.dump());
    }
    if (j.contains("column") || j.contains("length")) {
      return Status::InvalidArgument("bucket: 'length_map' takes 'input_columns', not 'column' or 'length'");
    }
    bool names = j.contains("input_columns") && j["input_columns"].is_array() && !j["input_columns"].empty();
    for (const json& c : names ? j["input_columns"] : json::array()) names = names && c.is_string();
    if (!names) return Status::InvalidArgument("bucket: 'input_columns' must list the length map's columns");
    s.length_map = m;
    s.length_columns = j["input_columns"].get<std::vector<std::string>>();
  } else if (!j.contains("column") || !j["column"].is_string() || j["column"].get<std::string>().empty()) {
    return Status::InvalidArgument("bucket: 'column' must name the column giving each row's length");
  } else if (j.contains("input_columns")) {
    return Status::InvalidArgument("bucket: 'input_columns' go with a 'length_map'");
  } else {
    s.column = j["column"].get<std::string>();
  }
  if (j.contains("length")) {
    if (j["length"] != "dim0" && j["length"] != "value") {
      return Status::InvalidArgument("bucket: 'length' must be \"dim0\" or \"value\", got " + j["length"].dump());
    }
    s.value = j["length"] == "value";
  }
  MR_ASSIGN_OR_RETURN(s.boundaries, PositiveList(j, "boundaries"));
  MR_ASSIGN_OR_RETURN(s.batch_sizes, PositiveList(j, "batch_sizes"));
  for (size_t i = 1; i < s.boundaries.size(); ++i) {
    if (s.boundaries[i] <= s.boundaries[i - 1]) {
      return Status::InvalidArgument("bucket: 'boundaries' must be strictly increasing, got " + j["boundaries"].dump());
    }
  }
  if (s.batch_sizes.size() != s.boundaries.size() + 1) {
    return Status::InvalidArgument("bucket: 'batch_sizes' needs one size per bucket: " +
                                   std::to_string(s.boundaries.size() + 1) + " for " +
                                   std::to_string(s.boundaries.size()) + " boundaries, got " +
                                   std::to_string(s.batch_sizes.size()));
  }
  if (j.contains("pad_to_boundary")) {
    if (!j["pad_to_boundary"].is_boolean()) return Status::InvalidArgument("bucket: 'pad_to_boundary' must be a bool");
    s.pad_to_boundary = j["pad_to_boundary"].get<bool>();
  }
  return s;
}

Result<size_t> BucketSpec::BucketOf(const Tensor& t) const {
  int64_t length = 0;
  if (!value) {
    // A scalar's length is 0, as MindSpore's; so is a string's (a scalar there).
    length = t.shape().empty() || t.type() == TensorType::kString ? 0 : t.shape()[0];
  } else {
    if (t.num_elements() != 1) {
      return Status::InvalidArgument("bucket: column '" + column + "' must hold one integer, the row's length; got " +
                                     std::to_string(t.num_elements()) + " values");
    }
    switch (t.type()) {
      case TensorType::kUInt8: length = *t.data_as<uint8_t>(); break;
      case TensorType::kInt8: length = *t.data_as<int8_t>(); break;
      case TensorType::kInt16: length = *t.data_as<int16_t>(); break;
      case TensorType::kInt32: length = *t.data_as<int32_t>(); break;
      case TensorType::kInt64: length = *t.data_as<int64_t>(); break;
      default:
        return Status::InvalidArgument("bucket: column '" + column + "' must hold an integer length, got " +
                                       TensorTypeName(t.type()));
    }
  }
  return BucketForLength(length);
}

Result<size_t> BucketSpec::BucketForLength(int64_t length) const {
  if (length < 0) {
    return Status::InvalidArgument("bucket: the length of a row must be >= 0, got " + std::to_string(length));
  }
  const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), static_cast<uint64_t>(length));
  return static_cast<size_t>(it - boundaries.begin());
}

Result<BatchOptions> BucketSpec::OptionsFor(size_t b, const BatchOptions& base) const {
  BatchOptions o = base;
  o.batch_size = batch_sizes[b];
  if (!pad_to_boundary) return o;
  for (auto& [name, spec] : o.ragged) {
    for (int64_t& d : spec.pad_shape) {
      if (d != -1) continue;
      if (b == boundaries.size()) {
        return Status::InvalidArgument("bucket: pad_to_bucket_boundary pads column '" + name +
                                       "' to its bucket's bound, but rows fell in the last bucket (length >= " +
                                       std::to_string(boundaries.back()) + "), which has none");
      }
      d = static_cast<int64_t>(boundaries[b]) - 1;
    }
  }
  return o;
}

}  // namespace mindrecord
