#include "cli/row_format.h"

#include <cstring>

namespace mindrecord::cli {

using nlohmann::json;

std::string Base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

namespace {
json Element(const Value& v, size_t i) {
  const char* p = v.bytes().data() + i * DataTypeSize(v.array_dtype());
  switch (v.array_dtype()) {
    case DataType::kInt32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    case DataType::kInt64: { int64_t x; std::memcpy(&x, p, 8); return x; }
    case DataType::kFloat32: { float x; std::memcpy(&x, p, 4); return x; }
    default: { double x; std::memcpy(&x, p, 8); return x; }
  }
}

json Nest(const Value& v, size_t dim, size_t* next) {
  json out = json::array();
  const auto& shape = v.shape();
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (dim + 1 == shape.size()) {
      out.push_back(Element(v, (*next)++));
    } else {
      out.push_back(Nest(v, dim + 1, next));
    }
  }
  return out;
}
}  // namespace

json ValueToJson(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: return nullptr;
    case Value::Kind::kInt: return v.as_int();
    case Value::Kind::kFloat: return v.as_float();
    case Value::Kind::kString: return v.bytes();
    case Value::Kind::kBytes: return Base64(v.bytes());
    case Value::Kind::kArray: {
      size_t next = 0;
      if (v.shape().empty()) return json::array();
      return Nest(v, 0, &next);
    }
  }
  return nullptr;
}

std::string ValueToCell(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kBytes: return "<" + std::to_string(v.bytes().size()) + " bytes>";
    case Value::Kind::kArray: return v.DebugString();
    case Value::Kind::kString: return v.bytes();
    default: return ValueToJson(v).dump();
  }
}

}  // namespace mindrecord::cli
