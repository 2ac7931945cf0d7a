#include "pipeline/ops/random_point_ops.h"

#include <utility>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/color_adjust.h"

namespace mindrecord::ops {

namespace {

using RandomKind = RandomPointOp::Kind;
using PKind = PointOp::Kind;


struct RandomKindInfo {
  RandomKind kind;
  const char* name;
  PKind applies;  // the deterministic op it applies
};

// In RandomKind's order.
constexpr RandomKindInfo kRandomKinds[] = {
    {RandomKind::kRandomAutoContrast, "RandomAutoContrast", PKind::kAutoContrast},
    {RandomKind::kRandomEqualize, "RandomEqualize", PKind::kEqualize},
    {RandomKind::kRandomInvert, "RandomInvert", PKind::kInvert},
    {RandomKind::kRandomAdjustSharpness, "RandomAdjustSharpness", PKind::kAdjustSharpness},
    {RandomKind::kRandomPosterize, "RandomPosterize", PKind::kPosterize},
    {RandomKind::kRandomSolarize, "RandomSolarize", PKind::kSolarize},
    {RandomKind::kRandomSharpness, "RandomSharpness", PKind::kAdjustSharpness},
};

const RandomKindInfo& RandomInfo(RandomKind k) { return kRandomKinds[static_cast<int>(k)]; }

// A [lo, hi] pair (or one number v: [v, v] when `one` allows it) with
// min <= lo <= hi <= max, integers when `integers`; `def` when absent.
Status GetRange(const nlohmann::json& spec, const std::string& op, const char* key, double min, double max,
                bool integers, bool one, std::pair<double, double> def, double* lo, double* hi) {
  *lo = def.first;
  *hi = def.second;
  if (!spec.contains(key)) return Status::OK();
  const auto& v = spec[key];
  nlohmann::json pair = v;
  if (one && v.is_number()) pair = nlohmann::json::array({v, v});
  bool ok = pair.is_array() && pair.size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) ok = integers ? pair[i].is_number_integer() : pair[i].is_number();
  if (ok) {
    *lo = pair[0].get<double>();
    *hi = pair[1].get<double>();
    ok = min <= *lo && *lo <= *hi && *hi <= max;
  }
  if (!ok)
    return BadParameter(op, key,
                            std::string("must be ") + (one ? "a value or " : "") + "[min, max] with " +
                                nlohmann::json(min).dump() + " <= min <= max <= " + nlohmann::json(max).dump() +
                                (integers ? " (integers)" : "") + ", got " + v.dump());
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<TensorOp>> RandomPointOp::Make(const nlohmann::json& spec) {
  const std::string op = spec.value("op", "");
  const RandomKindInfo* info = nullptr;
  for (const auto& k : kRandomKinds)
    if (op == k.name) info = &k;
  if (info == nullptr) return Status::InvalidArgument("RandomPointOp: unknown op '" + op + "'");
  PointOp::Params p;
  double prob = 0.5, lo = 0, hi = 0;
  switch (info->kind) {
    case RandomKind::kRandomAutoContrast:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"cutoff", "ignore", "prob"}));
      MR_RETURN_IF_ERROR(GetAutoContrastParams(spec, op, &p));
      break;
    case RandomKind::kRandomEqualize:
    case RandomKind::kRandomInvert:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"prob"}));
      break;
    case RandomKind::kRandomAdjustSharpness: {
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degree", "prob"}));
      MR_ASSIGN_OR_RETURN(p.factor, GetNumberIn(spec, op, "degree", 0, kFactorMax, std::nullopt));
      break;
    }
    case RandomKind::kRandomPosterize:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"bits"}));
      MR_RETURN_IF_ERROR(GetRange(spec, op, "bits", 1, 8, true, true, {8, 8}, &lo, &hi));
      break;
    case RandomKind::kRandomSolarize:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"threshold"}));
      MR_RETURN_IF_ERROR(GetRange(spec, op, "threshold", 0, 255, true, false, {0, 255}, &lo, &hi));
      break;
    case RandomKind::kRandomSharpness:
      MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees"}));
      MR_RETURN_IF_ERROR(GetRange(spec, op, "degrees", 0, kFactorMax, false, false, {0.1, 1.9}, &lo, &hi));
      break;
  }
  if (info->kind <= RandomKind::kRandomAdjustSharpness) {
    MR_ASSIGN_OR_RETURN(prob, GetProbability(spec, op, "prob", 0.5));
  }
  return std::unique_ptr<TensorOp>(
      new RandomPointOp(info->kind, PointOp(info->applies, std::move(p)), prob, lo, hi));
}

std::string RandomPointOp::name() const { return RandomInfo(kind_).name; }

nlohmann::json RandomPointOp::ToJson() const {
  nlohmann::json j = {{"op", name()}};
  const nlohmann::json inner = inner_.ToJson();
  switch (kind_) {
    case RandomKind::kRandomAutoContrast:
      j["cutoff"] = inner["cutoff"];
      j["ignore"] = inner["ignore"];
      break;
    case RandomKind::kRandomAdjustSharpness:
      j["degree"] = inner["sharpness_factor"];
      break;
    case RandomKind::kRandomPosterize:
      j["bits"] = {static_cast<int>(lo_), static_cast<int>(hi_)};
      break;
    case RandomKind::kRandomSolarize:
      j["threshold"] = {static_cast<int>(lo_), static_cast<int>(hi_)};
      break;
    case RandomKind::kRandomSharpness:
      j["degrees"] = {lo_, hi_};
      break;
    default:
      break;
  }
  if (kind_ <= RandomKind::kRandomAdjustSharpness) j["prob"] = prob_;
  return j;
}

Result<Tensor> RandomPointOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = name();
  switch (kind_) {
    case RandomKind::kRandomPosterize: {
      const int lo = static_cast<int>(lo_), hi = static_cast<int>(hi_);
      return Posterize(input, lo == hi ? lo : static_cast<int>(RandInt(rng, lo, hi)), op);
    }
    case RandomKind::kRandomSolarize: {
      int a = static_cast<int>(RandInt(rng, static_cast<int64_t>(lo_), static_cast<int64_t>(hi_)));
      int b = static_cast<int>(RandInt(rng, static_cast<int64_t>(lo_), static_cast<int64_t>(hi_)));
      if (b < a) std::swap(a, b);
      return Solarize(input, a, b, op);
    }
    case RandomKind::kRandomSharpness:
      // MindSpore draws the factor as a float.
      return Sharpness(input, static_cast<float>(RandUniform(rng, lo_, hi_)), op);
    default:
      break;
  }
  // The coin ops check the input whatever the draw, as MindSpore's do.
  if (kind_ == RandomKind::kRandomAutoContrast) {
    MR_RETURN_IF_ERROR(CheckImage(input, op, false).status());
    if (input.shape().size() == 3 && input.shape()[2] != 3)
      return Status::InvalidArgument(op + ": expected an HW image or an HWC one with 3 channels, got " +
                                     input.DebugString());
  } else {
    MR_RETURN_IF_ERROR(inner_.CheckInput(input, op));
  }
  if (RandUniform(rng, 0.0, 1.0) >= prob_) return input;
  return inner_.Run(input, op);
}

}  // namespace mindrecord::ops
