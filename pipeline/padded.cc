#include "pipeline/padded.h"

#include <algorithm>

#include "mindrecord/json_number.h"

namespace mindrecord {

namespace {
Status BadPadded(const std::string& m) { return Status::InvalidArgument("plan: 'padded': " + m); }

std::string ToHex(const std::string& s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(s.size() * 2, '0');
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out[2 * i] = kDigits[c >> 4];
    out[2 * i + 1] = kDigits[c & 15];
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> FromHex(const nlohmann::json& j, const std::string& field) {
  if (!j.is_string()) return BadPadded("column '" + field + "': 'hex' must be a string");
  const std::string& h = j.get_ref<const std::string&>();
  if (h.size() % 2) return BadPadded("column '" + field + "': 'hex' has an odd length");
  std::string out(h.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = HexDigit(h[2 * i]), lo = HexDigit(h[2 * i + 1]);
    if (hi < 0 || lo < 0) return BadPadded("column '" + field + "': 'hex' holds a non-hex character");
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}
}  // namespace

nlohmann::json PaddedValueToJson(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt: return v.as_int();
    case Value::Kind::kFloat: return v.as_float();
    case Value::Kind::kString: return v.bytes();
    case Value::Kind::kBytes: return {{"hex", ToHex(v.bytes())}};
    case Value::Kind::kArray: return {{"shape", v.shape()}, {"hex", ToHex(v.bytes())}};
    case Value::Kind::kNull: break;
  }
  return nullptr;
}

Result<Value> PaddedValueFromJson(const nlohmann::json& j, const Field& f) {
  Value v;
  if (f.has_shape) {
    if (!j.is_object() || !j.contains("shape") || !j.contains("hex") || !j["shape"].is_array()) {
      return BadPadded("column '" + f.name + "': an array value must be {\"shape\": [...], \"hex\": \"...\"}");
    }
    std::vector<int64_t> shape;
    for (const auto& d : j["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) return BadPadded("column '" + f.name + "': bad shape " + j["shape"].dump());
      shape.push_back(d.get<int64_t>());
    }
    MR_ASSIGN_OR_RETURN(std::string data, FromHex(j["hex"], f.name));
    v = Value::Array(f.type, std::move(shape), std::move(data));
  } else if (f.type == DataType::kBytes) {
    if (!j.is_object() || !j.contains("hex")) return BadPadded("column '" + f.name + "': a bytes value must be {\"hex\": \"...\"}");
    MR_ASSIGN_OR_RETURN(std::string data, FromHex(j["hex"], f.name));
    v = Value::Bytes(std::move(data));
  } else if (f.type == DataType::kString) {
    if (!j.is_string()) return BadPadded("column '" + f.name + "': expected a string, got " + j.dump());
    v = Value::String(j.get<std::string>());
  } else if (IsIntegerType(f.type)) {
    const auto i = JsonInt64(j);
    if (!i) return BadPadded("column '" + f.name + "': expected a 64-bit integer, got " + j.dump());
    v = Value::Int(*i);
  } else {
    if (!j.is_number()) return BadPadded("column '" + f.name + "': expected a number, got " + j.dump());
    v = Value::Float(j.get<double>());
  }
  Status st = ValidateFieldValue(f, v);
  if (!st.ok()) return st.WithContext("plan: 'padded'");
  return v;
}

Status CheckPaddedSpec(const nlohmann::json& j) {
  if (!j.is_object()) return BadPadded("must be an object {\"count\": N, \"row\": {...}}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "count" && it.key() != "row") return BadPadded("unknown key '" + it.key() + "'");
  }
  if (!j.contains("count") || !j["count"].is_number_integer() ||
      (!j["count"].is_number_unsigned() && j["count"].get<int64_t>() < 0)) {
    return BadPadded("'count' must be an integer >= 0");
  }
  if (!j.contains("row") || !j["row"].is_object()) return BadPadded("'row' must map column names to values");
  return Status::OK();
}

Result<PaddedRows> ParsePadded(const nlohmann::json& j, const Schema& schema, const std::vector<std::string>& columns) {
  MR_RETURN_IF_ERROR(CheckPaddedSpec(j));
  PaddedRows p;
  p.count = j["count"].get<uint64_t>();
  const nlohmann::json& row = j["row"];
  for (auto it = row.begin(); it != row.end(); ++it) {
    if (std::find(columns.begin(), columns.end(), it.key()) == columns.end()) {
      return BadPadded("column '" + it.key() + "' is not one of the columns read");
    }
  }
  for (const auto& c : columns) {
    const Field* f = schema.Find(c);
    if (f == nullptr) return Status::NotFound("plan: column '" + c + "' is not in the schema");
    if (!row.contains(c)) return BadPadded("the row has no value for column '" + c + "'");
    MR_ASSIGN_OR_RETURN(Value v, PaddedValueFromJson(row[c], *f));
    p.row.Set(c, std::move(v));
  }
  return p;
}

}  // namespace mindrecord
