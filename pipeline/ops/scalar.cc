#include "pipeline/ops/scalar.h"

#include <sstream>

namespace mindrecord::ops {

nlohmann::json Scalar::ToJson() const {
  switch (kind) {
    case Kind::kText:
      return text;
    case Kind::kBool:
      return b;
    case Kind::kFloat:
      if (std::isnan(f)) return {{"float", "nan"}};
      if (std::isinf(f)) return {{"float", f > 0 ? "inf" : "-inf"}};
      return f;
    default:
      return i;
  }
}

std::string Scalar::DebugString() const {
  switch (kind) {
    case Kind::kText:
      return "'" + text + "'";
    case Kind::kBool:
      return b ? "True" : "False";
    case Kind::kFloat: {
      if (std::isnan(f)) return "nan";
      if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
      std::ostringstream os;
      os.precision(17);
      os << f;
      return os.str();
    }
    default:
      return std::to_string(i);
  }
}

Result<Scalar> ParseScalar(const nlohmann::json& v, const std::string& op, const std::string& key) {
  Scalar s;
  if (v.is_boolean()) {
    s.kind = Scalar::Kind::kBool;
    s.b = v.get<bool>();
  } else if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Status::InvalidArgument(op + ": parameter '" + key + "' must fit int64, got " + v.dump());
    s.i = static_cast<int64_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    s.i = v.get<int64_t>();
  } else if (v.is_number_float()) {
    s.kind = Scalar::Kind::kFloat;
    s.f = v.get<double>();
  } else if (v.is_string()) {
    s.kind = Scalar::Kind::kText;
    s.text = v.get<std::string>();
  } else if (v.is_object() && v.size() == 1 && v.contains("float") && v["float"].is_string()) {
    const std::string name = v["float"].get<std::string>();
    s.kind = Scalar::Kind::kFloat;
    if (name == "nan") {
      s.f = std::numeric_limits<double>::quiet_NaN();
    } else if (name == "inf" || name == "-inf") {
      s.f = name == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    } else {
      return Status::InvalidArgument(op + ": parameter '" + key +
                                     "': {\"float\": ...} must be \"nan\", \"inf\" or "
                                     "\"-inf\", got " +
                                     v.dump());
    }
  } else {
    return Status::InvalidArgument(op + ": parameter '" + key + "' must be a number, a bool or a string, got " +
                                   v.dump());
  }
  return s;
}

bool IsNumericType(TensorType t) { return t != TensorType::kBytes && t != TensorType::kString; }

Tensor AsMindSporeArray(const Tensor& t) {
  if (t.type() != TensorType::kBytes) return t;
  return t.Region(0, TensorType::kUInt8, {static_cast<int64_t>(t.size_bytes())});
}

}  // namespace mindrecord::ops
