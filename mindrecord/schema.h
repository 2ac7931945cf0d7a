// The dataset schema: fields, their types and shapes, which fields are blobs,
// and which are indexed. Mirrors MindSpore's rules exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord {

struct Field {
  std::string name;   // [0-9A-Za-z_]+
  DataType type = DataType::kInt64;
  bool has_shape = false;      // true for array fields
  std::vector<int64_t> shape;  // dims > 0 or -1 (at most one -1); only with has_shape

  // Blob fields live in the blob page: bytes fields and every field with a shape.
  bool is_blob() const { return type == DataType::kBytes || has_shape; }
  bool is_scalar() const { return !has_shape; }
  bool operator==(const Field& o) const {
    return name == o.name && type == o.type && has_shape == o.has_shape && shape == o.shape;
  }
};

// A value of the right kind, range and shape for `f`; messages name the field.
Status ValidateFieldValue(const Field& f, const Value& v);

// Thread safety: immutable after construction; safe to share across threads.
class Schema {
 public:
  Schema() = default;

  // Validates names, types and shapes; fields are kept sorted by name.
  static Result<Schema> Make(std::vector<Field> fields, std::string desc = "");
  // Parses the user form: {"name": {"type": "int32", "shape": [-1]}, ...}.
  static Result<Schema> FromUserJson(const nlohmann::json& j, std::string desc = "");
  static Result<Schema> FromUserJsonString(std::string_view text, std::string desc = "");
  // Parses one entry of a header's "schema" list:
  // {"blob_fields": [...], "desc": "...", "schema": {...}}.
  static Result<Schema> FromHeaderJson(const nlohmann::json& j);

  // The header form (see FromHeaderJson), keys sorted as MindSpore writes them.
  nlohmann::json ToHeaderJson() const;
  // The user form (see FromUserJson).
  nlohmann::json ToUserJson() const;

  const std::vector<Field>& fields() const { return fields_; }
  const std::string& desc() const { return desc_; }
  // -1 when absent.
  int FieldIndex(std::string_view name) const;
  const Field* Find(std::string_view name) const;
  // Blob fields in alphabetical order (their order in the blob framing).
  const std::vector<int>& blob_fields() const { return blob_ids_; }
  std::vector<std::string> blob_field_names() const;
  // Non-blob fields in alphabetical order (the msgpack raw part).
  const std::vector<int>& raw_fields() const { return raw_ids_; }
  // True when some int32/int64 field has a shape (v3.0 packs those arrays).
  bool has_integer_array() const { return has_int_array_; }

  // All scalar non-bytes fields in alphabetical order (MindSpore's default index).
  std::vector<std::string> DefaultIndexFields() const;
  // Each must be a scalar, non-bytes field of this schema, listed once.
  Status ValidateIndexFields(const std::vector<std::string>& names) const;
  // Every schema field present with a value of the right kind, range and shape;
  // no unknown fields. Messages name the field.
  Status ValidateRow(const Row& row) const;

  bool operator==(const Schema& o) const { return fields_ == o.fields_; }

 private:
  std::vector<Field> fields_;
  std::string desc_;
  std::vector<int> blob_ids_;
  std::vector<int> raw_ids_;
  bool has_int_array_ = false;
};

bool IsValidFieldName(std::string_view name);

}  // namespace mindrecord
