#include "mindrecord/value.h"

#include <algorithm>
#include <sstream>

namespace mindrecord {

const char* DataTypeName(DataType t) {
  switch (t) {
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kFloat32: return "float32";
    case DataType::kFloat64: return "float64";
    case DataType::kString: return "string";
    case DataType::kBytes: return "bytes";
  }
  return "?";
}

Result<DataType> ParseDataType(std::string_view name) {
  static const std::pair<const char*, DataType> kNames[] = {
      {"int32", DataType::kInt32},     {"int64", DataType::kInt64},   {"float32", DataType::kFloat32},
      {"float64", DataType::kFloat64}, {"string", DataType::kString}, {"bytes", DataType::kBytes}};
  for (auto& [n, t] : kNames) {
    if (name == n) return t;
  }
  return Status::InvalidArgument("unknown field type '" + std::string(name) +
                                 "' (expected int32, int64, float32, float64, string or bytes)");
}

size_t DataTypeSize(DataType t) {
  switch (t) {
    case DataType::kInt32:
    case DataType::kFloat32: return 4;
    case DataType::kInt64:
    case DataType::kFloat64: return 8;
    default: return 1;
  }
}

bool Value::operator==(const Value& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kNull: return true;
    case Kind::kInt: return i_ == o.i_;
    case Kind::kFloat: return f_ == o.f_ || (f_ != f_ && o.f_ != o.f_);
    case Kind::kString:
    case Kind::kBytes: return s_ == o.s_;
    case Kind::kArray: return dtype_ == o.dtype_ && shape_ == o.shape_ && s_ == o.s_;
  }
  return false;
}

std::string Value::DebugString() const {
  std::ostringstream os;
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kInt: os << i_; break;
    case Kind::kFloat: os << f_; break;
    case Kind::kString: os << '"' << s_ << '"'; break;
    case Kind::kBytes: os << "bytes[" << s_.size() << "]"; break;
    case Kind::kArray: {
      os << DataTypeName(dtype_) << "[";
      for (size_t i = 0; i < shape_.size(); ++i) os << (i ? "," : "") << shape_[i];
      os << "]";
      break;
    }
  }
  return os.str();
}

void Row::Set(std::string name, Value v) {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), name,
                             [](const auto& kv, const std::string& n) { return kv.first < n; });
  if (it != fields_.end() && it->first == name) {
    it->second = std::move(v);
  } else {
    fields_.insert(it, {std::move(name), std::move(v)});
  }
}

const Value* Row::Find(std::string_view name) const {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), name,
                             [](const auto& kv, std::string_view n) { return kv.first < n; });
  if (it != fields_.end() && it->first == name) return &it->second;
  return nullptr;
}

const Value& Row::Get(std::string_view name) const {
  static const Value kNull;
  const Value* v = Find(name);
  return v ? *v : kNull;
}

std::string Row::DebugString() const {
  std::string out = "{";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) out += ", ";
    out += fields_[i].first + ": " + fields_[i].second.DebugString();
  }
  return out + "}";
}

}  // namespace mindrecord
