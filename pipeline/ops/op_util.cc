#include "pipeline/ops/op_util.h"

#include "pipeline/ops/cv_util.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

namespace mindrecord::ops {

Status BadParameter(const std::string& op, const char* key, const std::string& what) {
  return Status::InvalidArgument(op + ": parameter '" + key + "' " + what);
}

const char* InterpolationName(Interpolation i) {
  switch (i) {
    case Interpolation::kNearest: return "nearest";
    case Interpolation::kBilinear: return "bilinear";
    case Interpolation::kBicubic: return "bicubic";
    case Interpolation::kArea: return "area";
  }
  return "bilinear";
}

Result<Interpolation> ParseInterpolation(std::string_view name) {
  if (name == "nearest") return Interpolation::kNearest;
  if (name == "bilinear" || name == "linear") return Interpolation::kBilinear;
  if (name == "bicubic" || name == "cubic") return Interpolation::kBicubic;
  if (name == "area") return Interpolation::kArea;
  return Status::InvalidArgument("unknown interpolation '" + std::string(name) +
                                 "' (expected nearest, bilinear, bicubic, area)");
}

int ToCvInterpolation(Interpolation i) {
  switch (i) {
    case Interpolation::kNearest: return cv::INTER_NEAREST;
    case Interpolation::kBilinear: return cv::INTER_LINEAR;
    case Interpolation::kBicubic: return cv::INTER_CUBIC;
    case Interpolation::kArea: return cv::INTER_AREA;
  }
  return cv::INTER_LINEAR;
}

nlohmann::json Size2::ToJson() const {
  if (from_int) return h;
  return nlohmann::json::array({h, w});
}

Result<Size2> GetSize(const nlohmann::json& spec, const std::string& op, const char* key, bool required) {
  if (!spec.contains(key)) {
    if (required) return BadParameter(op, key, "is required");
    return Size2{};
  }
  const auto& v = spec[key];
  Size2 s;
  if (v.is_number_integer()) {
    s.h = s.w = v.get<int64_t>();
    s.from_int = true;
  } else if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
    s.h = v[0].get<int64_t>();
    s.w = v[1].get<int64_t>();
  } else {
    return BadParameter(op, key, "must be an int or [height, width], got " + v.dump());
  }
  if (s.h <= 0 || s.w <= 0 || s.h > (1 << 20) || s.w > (1 << 20))
    return BadParameter(op, key, "must be positive (and at most 2^20), got " + v.dump());
  return s;
}

Result<int> GetIntIn(const nlohmann::json& spec, const std::string& op, const char* key, int64_t lo, int64_t hi,
                     std::optional<int> def) {
  if (!spec.contains(key)) {
    if (def) return *def;
    return BadParameter(op, key, "is required");
  }
  const auto& v = spec[key];
  const auto range = [&] { return "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump(); };
  if (v.is_number_integer()) {
    // Unsigned JSON integers above INT64_MAX read as negative int64: compare unsigned.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) return BadParameter(op, key, range());
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) return BadParameter(op, key, range());
    return static_cast<int>(x);
  }
  if (!v.is_number_float()) return BadParameter(op, key, range());
  const double x = v.get<double>();  // compared as a double before the (then defined) cast
  if (!std::isfinite(x) || x != std::floor(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi))
    return BadParameter(op, key, range());
  return static_cast<int>(x);
}

Result<double> GetNumber(const nlohmann::json& spec, const std::string& op, const char* key, double def) {
  if (!spec.contains(key)) return def;
  const auto& v = spec[key];
  if (!v.is_number()) return BadParameter(op, key, "must be a number, got " + v.dump());
  double x = v.get<double>();
  if (!std::isfinite(x)) return BadParameter(op, key, "must be finite");
  return x;
}

Result<double> GetProbability(const nlohmann::json& spec, const std::string& op, const char* key, double def) {
  MR_ASSIGN_OR_RETURN(double p, GetNumber(spec, op, key, def));
  if (p < 0 || p > 1) return BadParameter(op, key, "must be in [0, 1]");
  return p;
}

Result<bool> GetBool(const nlohmann::json& spec, const std::string& op, const char* key, bool def) {
  if (!spec.contains(key)) return def;
  const auto& v = spec[key];
  if (!v.is_boolean()) return BadParameter(op, key, "must be true or false, got " + v.dump());
  return v.get<bool>();
}

Result<std::string> GetString(const nlohmann::json& spec, const std::string& op, const char* key,
                              const std::string& def) {
  if (!spec.contains(key)) return def;
  const auto& v = spec[key];
  if (!v.is_string()) return BadParameter(op, key, "must be a string, got " + v.dump());
  return v.get<std::string>();
}

Result<std::vector<double>> GetNumbers(const nlohmann::json& spec, const std::string& op, const char* key,
                                       const std::vector<double>& def) {
  if (!spec.contains(key)) return def;
  const auto& v = spec[key];
  if (v.is_number()) return std::vector<double>{v.get<double>()};
  if (!v.is_array()) return BadParameter(op, key, "must be a list of numbers, got " + v.dump());
  std::vector<double> out;
  for (const auto& e : v) {
    if (!e.is_number() || !std::isfinite(e.get<double>()))
      return BadParameter(op, key, "must be a list of finite numbers, got " + v.dump());
    out.push_back(e.get<double>());
  }
  return out;
}

Status CheckKeys(const nlohmann::json& spec, const std::string& op, std::initializer_list<const char*> known) {
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    if (it.key() == "op") continue;
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) return Status::InvalidArgument(op + ": unknown parameter '" + it.key() + "'");
  }
  return Status::OK();
}

Result<ImageDims> CheckImage(const Tensor& t, const std::string& op, bool allow_float) {
  if (!t.defined()) return Status::InvalidArgument(op + ": input tensor is undefined");
  bool type_ok = t.type() == TensorType::kUInt8 || (allow_float && t.type() == TensorType::kFloat32);
  if (!type_ok)
    return Status::InvalidArgument(op + ": expected a " + (allow_float ? "uint8 or float32" : "uint8") +
                                   " image, got " + t.DebugString() + " (decode the column first?)");
  const auto& s = t.shape();
  ImageDims d;
  if (s.size() == 2) {
    d = {static_cast<int>(s[0]), static_cast<int>(s[1]), 1, false};
  } else if (s.size() == 3 && s[2] >= 1 && s[2] <= 4) {
    d = {static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]), true};
  } else {
    return Status::InvalidArgument(op + ": expected an HW or HWC image (1 to 4 channels), got " + t.DebugString());
  }
  if (d.h <= 0 || d.w <= 0) return Status::InvalidArgument(op + ": empty image " + t.DebugString());
  return d;
}

cv::Mat AsMat(const Tensor& t, const ImageDims& d) {
  int depth = t.type() == TensorType::kFloat32 ? CV_32F : CV_8U;
  return cv::Mat(d.h, d.w, CV_MAKETYPE(depth, d.c), const_cast<uint8_t*>(t.data()));
}

Tensor MakeImage(TensorType type, const ImageDims& d, int h, int w) {
  if (d.has_channel_dim) return Tensor::Make(type, {h, w, d.c});
  return Tensor::Make(type, {h, w});
}

double RandUniform(std::mt19937_64& rng, double lo, double hi) {
  double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1), 53 bits
  return lo + (hi - lo) * u;
}

int64_t RandInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  uint64_t limit = UINT64_MAX - UINT64_MAX % range;  // rejection keeps it unbiased
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return lo + static_cast<int64_t>(x % range);
}

double RandNormal(std::mt19937_64& rng) {
  const double u1 = 1.0 - RandUniform(rng, 0.0, 1.0);  // (0, 1]: log is finite
  const double u2 = RandUniform(rng, 0.0, 1.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

double RandGamma(std::mt19937_64& rng, double alpha) {
  if (alpha < 1) {
    const double u = 1.0 - RandUniform(rng, 0.0, 1.0);
    return RandGamma(rng, alpha + 1) * std::pow(u, 1.0 / alpha);
  }
  const double d = alpha - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = RandNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - RandUniform(rng, 0.0, 1.0);
    if (u < 1 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

double RandBeta(std::mt19937_64& rng, double a, double b) {
  const double x = RandGamma(rng, a), y = RandGamma(rng, b);
  return x + y > 0 ? x / (x + y) : 0.5;
}

}  // namespace mindrecord::ops
