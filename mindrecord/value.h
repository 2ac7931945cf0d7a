// Typed values and rows: what users write and what readers return.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord {

// The six MindRecord field types. On-disk names: "int32", "int64", "float32",
// "float64", "string", "bytes". Values are frozen (used in plans and bindings).
enum class DataType : uint8_t {
  kInt32 = 0,
  kInt64 = 1,
  kFloat32 = 2,
  kFloat64 = 3,
  kString = 4,
  kBytes = 5,
};

const char* DataTypeName(DataType t);
Result<DataType> ParseDataType(std::string_view name);
// Bytes per element: 4 or 8 for numeric types, 1 for string/bytes.
size_t DataTypeSize(DataType t);
inline bool IsIntegerType(DataType t) { return t == DataType::kInt32 || t == DataType::kInt64; }
inline bool IsFloatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat64; }
inline bool IsNumericType(DataType t) { return IsIntegerType(t) || IsFloatType(t); }

// One field value. Scalars: Int (int32/int64 fields), Float (float32/float64),
// String, Bytes. Arrays (fields with a shape): element type, shape and the
// elements as native little-endian bytes.
// Thread safety: a value type; const access from many threads is safe.
class Value {
 public:
  enum class Kind : uint8_t { kNull, kInt, kFloat, kString, kBytes, kArray };

  Value() = default;
  static Value Int(int64_t v) { Value x; x.kind_ = Kind::kInt; x.i_ = v; return x; }
  static Value Float(double v) { Value x; x.kind_ = Kind::kFloat; x.f_ = v; return x; }
  static Value String(std::string s) { Value x; x.kind_ = Kind::kString; x.s_ = std::move(s); return x; }
  static Value Bytes(std::string b) { Value x; x.kind_ = Kind::kBytes; x.s_ = std::move(b); return x; }
  // `data` holds prod(shape) elements of `dtype`, little-endian.
  static Value Array(DataType dtype, std::vector<int64_t> shape, std::string data) {
    Value x; x.kind_ = Kind::kArray; x.dtype_ = dtype; x.shape_ = std::move(shape); x.s_ = std::move(data);
    return x;
  }
  template <typename T>
  static Value ArrayOf(DataType dtype, const std::vector<T>& elems, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(elems.size())};
    std::string data(elems.size() * sizeof(T), '\0');
    if (!elems.empty()) std::memcpy(data.data(), elems.data(), data.size());
    return Array(dtype, std::move(shape), std::move(data));
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  int64_t as_int() const { return kind_ == Kind::kFloat ? static_cast<int64_t>(f_) : i_; }
  double as_float() const { return kind_ == Kind::kInt ? static_cast<double>(i_) : f_; }
  // String / bytes contents, or the raw element bytes of an array.
  const std::string& bytes() const { return s_; }
  std::string& mutable_bytes() { return s_; }
  DataType array_dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t num_elements() const { return s_.size() / DataTypeSize(dtype_); }
  template <typename T>
  std::vector<T> ArrayAs() const {
    std::vector<T> out(s_.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), s_.data(), out.size() * sizeof(T));
    return out;
  }

  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }
  // Human-readable, for messages and tests.
  std::string DebugString() const;

 private:
  Kind kind_ = Kind::kNull;
  DataType dtype_ = DataType::kBytes;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  std::vector<int64_t> shape_;
};

// Orders values of one column (map keys): numbers by value, strings and
// bytes by their bytes.
struct ValueLess {
  bool operator()(const Value& a, const Value& b) const {
    if (a.kind() == Value::Kind::kString || b.kind() == Value::Kind::kString) return a.bytes() < b.bytes();
    if (a.kind() == Value::Kind::kInt && b.kind() == Value::Kind::kInt) return a.as_int() < b.as_int();
    return a.as_float() < b.as_float();
  }
};

// A row: field name -> value, kept sorted by name.
// Thread safety: a value type; const access from many threads is safe.
class Row {
 public:
  Row() = default;
  Row(std::initializer_list<std::pair<std::string, Value>> init) {
    for (auto& kv : init) Set(kv.first, kv.second);
  }
  void Set(std::string name, Value v);
  const Value* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // The value of `name`; a static null Value if absent.
  const Value& Get(std::string_view name) const;
  const std::vector<std::pair<std::string, Value>>& fields() const { return fields_; }
  // Moves the fields out (the row is left empty).
  std::vector<std::pair<std::string, Value>> TakeFields() && { return std::move(fields_); }
  size_t size() const { return fields_.size(); }
  // Bytes its values hold (strings, bytes and array elements; 8 a scalar):
  // what read-ahead caps count.
  uint64_t value_bytes() const {
    uint64_t n = 0;
    for (const auto& f : fields_) n += f.second.bytes().size() + 8;
    return n;
  }
  bool operator==(const Row& o) const { return fields_ == o.fields_; }
  std::string DebugString() const;

 private:
  std::vector<std::pair<std::string, Value>> fields_;
};

}  // namespace mindrecord
