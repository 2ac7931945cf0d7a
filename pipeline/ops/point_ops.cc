#include "pipeline/ops/point_ops.h"

#include <algorithm>
#include <cmath>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/color_adjust.h"

namespace mindrecord::ops {

namespace {

using Kind = PointOp::Kind;

// MindSpore's FLOAT_MAX_INTEGER: the bound its validators put on factors.

struct KindInfo {
  Kind kind;
  const char* name;
  const char* factor_key;  // the one factor parameter, if any
};

// In Kind's order.
constexpr KindInfo kKinds[] = {
    {Kind::kAutoContrast, "AutoContrast", nullptr},
    {Kind::kEqualize, "Equalize", nullptr},
    {Kind::kInvert, "Invert", nullptr},
    {Kind::kPosterize, "Posterize", nullptr},
    {Kind::kSolarize, "Solarize", nullptr},
    {Kind::kAdjustSharpness, "AdjustSharpness", "sharpness_factor"},
    {Kind::kAdjustBrightness, "AdjustBrightness", "brightness_factor"},
    {Kind::kAdjustContrast, "AdjustContrast", "contrast_factor"},
    {Kind::kAdjustSaturation, "AdjustSaturation", "saturation_factor"},
    {Kind::kAdjustHue, "AdjustHue", "hue_factor"},
    {Kind::kAdjustGamma, "AdjustGamma", "gamma"},
};

const KindInfo& Info(Kind k) { return kKinds[static_cast<int>(k)]; }

std::string Num(double x) { return nlohmann::json(x).dump(); }

// "ignore": an integer or a list of them, each in [0, 255]; none when absent.
Result<std::vector<int>> GetIgnore(const nlohmann::json& spec, const std::string& op) {
  std::vector<int> out;
  if (!spec.contains("ignore")) return out;
  const auto& v = spec["ignore"];
  const nlohmann::json list = v.is_array() ? v : nlohmann::json::array({v});
  for (const auto& e : list) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 255)
      return BadParameter(op, "ignore", "must be an integer or a list of integers in [0, 255], got " + v.dump());
    out.push_back(e.get<int>());
  }
  return out;
}

// "threshold": t or [lo, hi] with 0 <= lo <= hi <= 255 (t means [t, t]).
Status GetThreshold(const nlohmann::json& spec, const std::string& op, double* lo, double* hi) {
  if (!spec.contains("threshold")) return BadParameter(op, "threshold", "is required");
  MR_ASSIGN_OR_RETURN(std::vector<double> t, GetNumbers(spec, op, "threshold", {}));
  if (t.size() == 1) t.push_back(t[0]);
  if (t.size() != 2 || t[0] < 0 || t[1] > 255 || t[0] > t[1])
    return BadParameter(op, "threshold", "must be t or [min, max] with 0 <= min <= max <= 255, got " + spec["threshold"].dump());
  *lo = t[0];
  *hi = t[1];
  return Status::OK();
}

// AdjustGamma's input: uint8, float32 or float64; [H, W] or [..., C], C = 1 or 3.
Status CheckGammaInput(const Tensor& t, const std::string& op) {
  const bool type_ok =
      t.defined() && (t.type() == TensorType::kUInt8 || t.type() == TensorType::kFloat32 ||
                      t.type() == TensorType::kFloat64);
  if (!type_ok) return Status::InvalidArgument(op + ": expected a uint8 or float image, got " + t.DebugString());
  const auto& s = t.shape();
  if (s.size() < 2 || (s.size() > 2 && s.back() != 1 && s.back() != 3))
    return Status::InvalidArgument(op + ": expected an image of shape <H,W> or <...,H,W,C> with 1 or 3 channels, got " +
                                   t.DebugString());
  return Status::OK();
}

}  // namespace

Result<double> GetNumberIn(const nlohmann::json& spec, const std::string& op, const char* key, double lo,
                           double hi, std::optional<double> def) {
  if (!spec.contains(key) && !def) return BadParameter(op, key, "is required");
  MR_ASSIGN_OR_RETURN(double x, GetNumber(spec, op, key, def.value_or(0)));
  if (x < lo || x > hi) return BadParameter(op, key, "must be in [" + Num(lo) + ", " + Num(hi) + "], got " + Num(x));
  return x;
}

Status GetAutoContrastParams(const nlohmann::json& spec, const std::string& op, PointOp::Params* p) {
  MR_ASSIGN_OR_RETURN(p->cutoff, GetNumber(spec, op, "cutoff", 0.0));
  if (p->cutoff < 0 || p->cutoff >= 50) return BadParameter(op, "cutoff", "must be in [0, 50), got " + Num(p->cutoff));
  MR_ASSIGN_OR_RETURN(p->ignore, GetIgnore(spec, op));
  return Status::OK();
}

Result<Tensor> AdjustGamma(const Tensor& img, double gamma, double gain, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckGammaInput(img, op));
  // float arithmetic throughout, as MindSpore's kernel
  const float g = static_cast<float>(gamma), k = static_cast<float>(gain);
  const size_t n = static_cast<size_t>(img.num_elements());
  if (img.type() == TensorType::kUInt8) {
    uint8_t table[256];
    for (int i = 0; i < 256; ++i) {
      const float f = std::pow(static_cast<float>(i) / 255.0f, g);
      const float v = std::floor(std::min(f * (255.0f + 1.0f - 1e-3f) * k, 255.0f));
      table[i] = static_cast<uint8_t>(std::max(v, 0.0f));
    }
    Tensor out = Tensor::Make(img.type(), img.shape());
    const uint8_t* src = img.data();
    uint8_t* dst = out.MutableData();
    for (size_t i = 0; i < n; ++i) dst[i] = table[src[i]];
    return out;
  }
  Tensor out = Tensor::Make(TensorType::kFloat32, img.shape());
  float* dst = out.mutable_data_as<float>();
  auto one = [&](float x) { return std::min(std::max(std::pow(x * k, g), 0.0f), 1.0f); };
  if (img.type() == TensorType::kFloat32) {
    const float* src = img.data_as<float>();
    for (size_t i = 0; i < n; ++i) dst[i] = one(src[i]);
  } else {
    const double* src = img.data_as<double>();
    for (size_t i = 0; i < n; ++i) dst[i] = one(static_cast<float>(src[i]));
  }
  return out;
}

Result<std::unique_ptr<TensorOp>> PointOp::Make(const nlohmann::json& spec) {
  const std::string op = spec.value("op", "");
  const KindInfo* info = nullptr;
  for (const auto& k : kKinds)
    if (op == k.name) info = &k;
  if (info == nullptr) return Status::InvalidArgument("PointOp: unknown op '" + op + "'");
  Params p;
  switch (info->kind) {
    case Kind::kAutoContrast:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"cutoff", "ignore"}));
      MR_RETURN_IF_ERROR(GetAutoContrastParams(spec, op, &p));
      break;
    case Kind::kEqualize:
    case Kind::kInvert:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {}));
      break;
    case Kind::kPosterize: {
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"bits"}));
      MR_ASSIGN_OR_RETURN(p.bits, GetIntIn(spec, op, "bits", 0, 8, std::nullopt));
      break;
    }
    case Kind::kSolarize:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"threshold"}));
      MR_RETURN_IF_ERROR(GetThreshold(spec, op, &p.lo, &p.hi));
      break;
    case Kind::kAdjustHue: {
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"hue_factor"}));
      MR_ASSIGN_OR_RETURN(p.factor, GetNumberIn(spec, op, "hue_factor", -0.5, 0.5, std::nullopt));
      break;
    }
    case Kind::kAdjustGamma: {
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"gamma", "gain"}));
      MR_ASSIGN_OR_RETURN(p.factor, GetNumberIn(spec, op, "gamma", 0, kFactorMax, std::nullopt));
      MR_ASSIGN_OR_RETURN(p.gain, GetNumberIn(spec, op, "gain", -kFactorMax, kFactorMax, 1.0));
      break;
    }
    default: {
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {info->factor_key}));
      MR_ASSIGN_OR_RETURN(p.factor, GetNumberIn(spec, op, info->factor_key, 0, kFactorMax, std::nullopt));
      break;
    }
  }
  return std::unique_ptr<TensorOp>(new PointOp(info->kind, std::move(p)));
}

std::string PointOp::name() const { return Info(kind_).name; }

nlohmann::json PointOp::ToJson() const {
  nlohmann::json j = {{"op", name()}};
  const auto& p = params_;
  switch (kind_) {
    case Kind::kAutoContrast:
      j["cutoff"] = p.cutoff;
      j["ignore"] = p.ignore;
      break;
    case Kind::kEqualize:
    case Kind::kInvert:
      break;
    case Kind::kPosterize:
      j["bits"] = p.bits;
      break;
    case Kind::kSolarize:
      j["threshold"] = {p.lo, p.hi};
      break;
    case Kind::kAdjustGamma:
      j["gamma"] = p.factor;
      j["gain"] = p.gain;
      break;
    default:
      j[Info(kind_).factor_key] = p.factor;
      break;
  }
  return j;
}

Status PointOp::CheckInput(const Tensor& input, const std::string& op) const {
  switch (kind_) {
    case Kind::kAutoContrast:
    case Kind::kEqualize:
    case Kind::kSolarize:
      return CheckGrayOrRgb(input, op).status();
    case Kind::kPosterize:
    case Kind::kAdjustSharpness:
      return CheckImage(input, op, false).status();
    case Kind::kAdjustGamma:
      return CheckGammaInput(input, op);
    default:
      return CheckRgb(input, op).status();
  }
}

Result<Tensor> PointOp::Run(const Tensor& input, const std::string& op) const {
  const auto& p = params_;
  // MindSpore's ops keep their factors as float.
  const double f = static_cast<float>(p.factor);
  switch (kind_) {
    case Kind::kAutoContrast: return AutoContrast(input, p.cutoff, p.ignore, op);
    case Kind::kEqualize: return Equalize(input, op);
    case Kind::kInvert: return Invert(input, op);
    case Kind::kPosterize: return Posterize(input, p.bits, op);
    case Kind::kSolarize: return Solarize(input, static_cast<float>(p.lo), static_cast<float>(p.hi), op);
    case Kind::kAdjustSharpness: return Sharpness(input, f, op);
    case Kind::kAdjustBrightness: return AdjustBrightness(input, f, op);
    case Kind::kAdjustContrast: return AdjustContrast(input, f, op);
    case Kind::kAdjustSaturation: return AdjustSaturation(input, f, op);
    case Kind::kAdjustHue: return AdjustHue(input, f, op);
    case Kind::kAdjustGamma: return AdjustGamma(input, f, p.gain, op);
  }
  return Status::Internal(op + ": unknown point op");
}

Result<Tensor> PointOp::Apply(Tensor input, std::mt19937_64& rng) const {
  (void)rng;
  return Run(input, name());
}

}  // namespace mindrecord::ops
