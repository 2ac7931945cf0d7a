#include "mindrecord/schema.h"

#include <cmath>
#include <algorithm>
#include <limits>
#include <set>

#include "mindrecord/json_number.h"

namespace mindrecord {

using nlohmann::json;

bool IsValidFieldName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  });
}

Result<Schema> Schema::Make(std::vector<Field> fields, std::string desc) {
  if (fields.empty()) return Status::InvalidArgument("schema has no fields");
  std::sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.name < b.name; });
  Schema s;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (!IsValidFieldName(f.name)) {
      return Status::InvalidArgument("invalid field name '" + f.name + "': names use only [0-9A-Za-z_]");
    }
    if (i > 0 && fields[i - 1].name == f.name) {
      return Status::InvalidArgument("field '" + f.name + "' is defined twice");
    }
    if (f.has_shape) {
      if (!IsNumericType(f.type)) {
        return Status::InvalidArgument("field '" + f.name + "' of type " + DataTypeName(f.type) +
                                       " cannot have a shape (only int32, int64, float32, float64 can)");
      }
      if (f.shape.empty()) return Status::InvalidArgument("field '" + f.name + "' has an empty shape");
      int unknown = 0;
      int64_t known = 1;  // no value can hold more elements than an int64 counts
      for (int64_t d : f.shape) {
        if (d == -1) {
          ++unknown;
        } else if (d <= 0) {
          return Status::InvalidArgument("field '" + f.name + "' has invalid dimension " + std::to_string(d) +
                                         " (dims must be > 0 or -1)");
        } else if (__builtin_mul_overflow(known, d, &known)) {
          return Status::InvalidArgument("field '" + f.name + "' has a shape whose element count overflows 64 bits");
        }
      }
      if (unknown > 1) {
        return Status::InvalidArgument("field '" + f.name + "' has more than one -1 dimension");
      }
    }
  }
  s.fields_ = std::move(fields);
  s.desc_ = std::move(desc);
  for (size_t i = 0; i < s.fields_.size(); ++i) {
    const Field& f = s.fields_[i];
    (f.is_blob() ? s.blob_ids_ : s.raw_ids_).push_back(static_cast<int>(i));
    if (f.has_shape && IsIntegerType(f.type)) s.has_int_array_ = true;
  }
  return s;
}

static Result<Field> FieldFromJson(const std::string& name, const json& spec) {
  if (!spec.is_object()) return Status::InvalidArgument("field '" + name + "': expected an object with \"type\"");
  auto t = spec.find("type");
  if (t == spec.end() || !t->is_string()) {
    return Status::InvalidArgument("field '" + name + "': missing \"type\"");
  }
  Field f;
  f.name = name;
  std::string type_name = t->get<std::string>();
  if (type_name == "number" || type_name == "array") {
    return Status::NotSupported("field '" + name + "' uses the legacy type '" + type_name +
                                "' (early MindRecord); only int32, int64, float32, float64, string and bytes "
                                "are supported");
  }
  auto dt = ParseDataType(type_name);
  if (!dt.ok()) return dt.status().WithContext("field '" + name + "'");
  f.type = *dt;
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    if (it.key() != "type" && it.key() != "shape") {
      return Status::InvalidArgument("field '" + name + "': unknown attribute \"" + it.key() + "\"");
    }
  }
  auto sh = spec.find("shape");
  if (sh != spec.end()) {
    if (!sh->is_array()) return Status::InvalidArgument("field '" + name + "': \"shape\" must be a list");
    f.has_shape = true;
    for (const auto& d : *sh) {
      // 2^64-1 must not wrap to -1 (a variable dimension); Make checks the range.
      const auto dim = JsonInt64(d);
      if (!dim) {
        return Status::InvalidArgument("field '" + name + "': shape dims must be integers > 0 or -1, not " + d.dump());
      }
      f.shape.push_back(*dim);
    }
  }
  return f;
}

Result<Schema> Schema::FromUserJson(const json& j, std::string desc) {
  if (!j.is_object()) return Status::InvalidArgument("schema must be a JSON object of fields");
  std::vector<Field> fields;
  for (auto it = j.begin(); it != j.end(); ++it) {
    MR_ASSIGN_OR_RETURN(Field f, FieldFromJson(it.key(), it.value()));
    fields.push_back(std::move(f));
  }
  return Make(std::move(fields), std::move(desc));
}

Result<Schema> Schema::FromUserJsonString(std::string_view text, std::string desc) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument("schema is not valid JSON");
  return FromUserJson(j, std::move(desc));
}

Result<Schema> Schema::FromHeaderJson(const json& j) {
  if (!j.is_object()) return Status::Corruption("schema entry is not an object");
  auto sch = j.find("schema");
  if (sch == j.end()) return Status::Corruption("schema entry has no \"schema\" key");
  std::string desc;
  auto d = j.find("desc");
  if (d != j.end() && d->is_string()) desc = d->get<std::string>();
  auto s = FromUserJson(*sch, desc);
  if (!s.ok()) {
    if (s.status().code() == StatusCode::kNotSupported) return s.status();
    return Status::Corruption("invalid schema: " + s.status().message());
  }
  auto bf = j.find("blob_fields");
  if (bf != j.end()) {
    std::vector<std::string> names = s->blob_field_names();
    if (!bf->is_array() || *bf != json(names)) {
      return Status::Corruption("header blob_fields " + bf->dump() + " do not match the schema's blob fields " +
                                json(names).dump());
    }
  }
  return s;
}

json Schema::ToUserJson() const {
  json out = json::object();
  for (const Field& f : fields_) {
    json spec = json::object();
    spec["type"] = DataTypeName(f.type);
    if (f.has_shape) spec["shape"] = f.shape;
    out[f.name] = spec;
  }
  return out;
}

json Schema::ToHeaderJson() const {
  json out = json::object();
  out["blob_fields"] = blob_field_names();
  out["desc"] = desc_;
  out["schema"] = ToUserJson();
  return out;
}

int Schema::FieldIndex(std::string_view name) const {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), name,
                             [](const Field& f, std::string_view n) { return f.name < n; });
  if (it != fields_.end() && it->name == name) return static_cast<int>(it - fields_.begin());
  return -1;
}

const Field* Schema::Find(std::string_view name) const {
  int i = FieldIndex(name);
  return i < 0 ? nullptr : &fields_[i];
}

std::vector<std::string> Schema::blob_field_names() const {
  std::vector<std::string> out;
  for (int i : blob_ids_) out.push_back(fields_[i].name);
  return out;
}

std::vector<std::string> Schema::DefaultIndexFields() const {
  std::vector<std::string> out;
  for (const Field& f : fields_) {
    if (f.is_scalar() && f.type != DataType::kBytes) out.push_back(f.name);
  }
  return out;
}

Status Schema::ValidateIndexFields(const std::vector<std::string>& names) const {
  std::set<std::string> seen;
  for (const auto& n : names) {
    const Field* f = Find(n);
    if (!f) return Status::InvalidArgument("index field '" + n + "' is not in the schema");
    if (!f->is_scalar() || f->type == DataType::kBytes) {
      return Status::InvalidArgument("index field '" + n + "' must be a scalar int, float or string field");
    }
    if (!seen.insert(n).second) return Status::InvalidArgument("index field '" + n + "' is listed twice");
  }
  return Status::OK();
}

static bool ShapeMatches(const Field& f, const std::vector<int64_t>& shape, size_t elems) {
  // The value's element count must fit the declared shape. A value may carry
  // its own shape (same rank, -1 dims free) or a flat 1-D shape.
  int64_t known = 1;
  bool has_unknown = false;
  for (int64_t d : f.shape) {
    if (d == -1) has_unknown = true; else known *= d;
  }
  if (has_unknown) {
    if (known == 0 || elems % static_cast<size_t>(known) != 0) return false;
  } else if (static_cast<size_t>(known) != elems) {
    return false;
  }
  if (shape.size() == f.shape.size()) {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (f.shape[i] != -1 && f.shape[i] != shape[i]) return false;
    }
  }
  return true;
}

namespace {

// A float field keeps what it is given: refuses a float64 beyond float32's
// range (it would become inf) and an integer the field's type cannot hold
// exactly (2^40+1 in float32 would become 2^40). Rounding a fraction to the
// nearest float32 (0.1) is the type's nature, not a loss refused here.
template <typename Bad>
Status CheckFloatNarrowing(const Field& f, const Value& v, const Bad& bad) {
  if (v.kind() == Value::Kind::kInt) {
    const int64_t i = v.as_int();
    const bool exact = f.type == DataType::kFloat32
                           ? static_cast<long double>(static_cast<float>(i)) == static_cast<long double>(i)
                           : static_cast<long double>(static_cast<double>(i)) == static_cast<long double>(i);
    if (!exact) return bad(std::string("the integer does not fit ") + DataTypeName(f.type) + " exactly");
    return Status::OK();
  }
  const double d = v.as_float();
  if (f.type == DataType::kFloat32 && std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
    return bad("beyond float32's range (largest 3.4028235e+38)");
  }
  return Status::OK();
}

}  // namespace

Status ValidateFieldValue(const Field& f, const Value& value) {
  const Value* v = &value;
  if (v->is_null()) return Status::InvalidArgument("field '" + f.name + "' is missing");
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("field '" + f.name + "' (" + DataTypeName(f.type) +
                                   (f.has_shape ? " array" : "") + "): " + why + ", got " + v->DebugString());
  };
  if (f.has_shape) {
    if (v->kind() != Value::Kind::kArray) return bad("expected an array");
    if (v->array_dtype() != f.type) return bad(std::string("expected elements of ") + DataTypeName(f.type));
    if (v->bytes().size() % DataTypeSize(f.type) != 0) return bad("array byte size is not a whole element count");
    if (!ShapeMatches(f, v->shape(), v->num_elements())) return bad("shape does not match the schema");
    return Status::OK();
  }
  switch (f.type) {
    case DataType::kInt32:
      if (v->kind() != Value::Kind::kInt) return bad("expected an integer");
      if (v->as_int() < std::numeric_limits<int32_t>::min() || v->as_int() > std::numeric_limits<int32_t>::max())
        return bad("out of int32 range");
      break;
    case DataType::kInt64:
      if (v->kind() != Value::Kind::kInt) return bad("expected an integer");
      break;
    case DataType::kFloat32:
    case DataType::kFloat64:
      if (v->kind() != Value::Kind::kFloat && v->kind() != Value::Kind::kInt) return bad("expected a number");
      MR_RETURN_IF_ERROR(CheckFloatNarrowing(f, *v, bad));
      break;
    case DataType::kString:
      if (v->kind() != Value::Kind::kString) return bad("expected a string");
      break;
    case DataType::kBytes:
      if (v->kind() != Value::Kind::kBytes) return bad("expected bytes");
      break;
  }
  return Status::OK();
}

Status Schema::ValidateRow(const Row& row) const {
  // The common case in one pass: the row holds exactly the schema's fields
  // (both lists are sorted by name).
  const auto& given = row.fields();
  if (given.size() == fields_.size()) {
    bool same = true;
    for (size_t i = 0; i < given.size() && same; ++i) same = given[i].first == fields_[i].name;
    if (same) {
      for (size_t i = 0; i < given.size(); ++i) MR_RETURN_IF_ERROR(ValidateFieldValue(fields_[i], given[i].second));
      return Status::OK();
    }
  }
  for (const auto& [name, v] : row.fields()) {
    if (FieldIndex(name) < 0) return Status::InvalidArgument("field '" + name + "' is not in the schema");
  }
  for (const Field& f : fields_) {
    const Value* v = row.Find(f.name);
    if (!v) return Status::InvalidArgument("field '" + f.name + "' is missing");
    MR_RETURN_IF_ERROR(ValidateFieldValue(f, *v));
  }
  return Status::OK();
}

}  // namespace mindrecord
