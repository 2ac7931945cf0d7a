#include "pipeline/ops/auto_augment.h"

#include <cmath>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/color_adjust.h"

namespace mindrecord::ops {

namespace {

struct Step {
  const char* name;
  float prob;
  int magnitude_bin;  // -1: no magnitude
};
using SubPolicy = Step[2];

// MindSpore's AutoAugmentOp::GetTransforms (auto_augment_op.cc).
constexpr SubPolicy kImageNet[] = {
    {{"Posterize", 0.4f, 8}, {"Rotate", 0.6f, 9}},     {{"Solarize", 0.6f, 5}, {"AutoContrast", 0.6f, -1}},
    {{"Equalize", 0.8f, -1}, {"Equalize", 0.6f, -1}},  {{"Posterize", 0.6f, 7}, {"Posterize", 0.6f, 6}},
    {{"Equalize", 0.4f, -1}, {"Solarize", 0.2f, 4}},   {{"Equalize", 0.4f, -1}, {"Rotate", 0.8f, 8}},
    {{"Solarize", 0.6f, 3}, {"Equalize", 0.6f, -1}},   {{"Posterize", 0.8f, 5}, {"Equalize", 1.0f, -1}},
    {{"Rotate", 0.2f, 3}, {"Solarize", 0.6f, 8}},      {{"Equalize", 0.6f, -1}, {"Posterize", 0.4f, 6}},
    {{"Rotate", 0.8f, 8}, {"Color", 0.4f, 0}},         {{"Rotate", 0.4f, 9}, {"Equalize", 0.6f, -1}},
    {{"Equalize", 0.0f, -1}, {"Equalize", 0.8f, -1}},  {{"Invert", 0.6f, -1}, {"Equalize", 1.0f, -1}},
    {{"Color", 0.6f, 4}, {"Contrast", 1.0f, 8}},       {{"Rotate", 0.8f, 8}, {"Color", 1.0f, 2}},
    {{"Color", 0.8f, 8}, {"Solarize", 0.8f, 7}},       {{"Sharpness", 0.4f, 7}, {"Invert", 0.6f, -1}},
    {{"ShearX", 0.6f, 5}, {"Equalize", 1.0f, -1}},     {{"Color", 0.4f, 0}, {"Equalize", 0.6f, -1}},
    {{"Equalize", 0.4f, -1}, {"Solarize", 0.2f, 4}},   {{"Solarize", 0.6f, 5}, {"AutoContrast", 0.6f, -1}},
    {{"Invert", 0.6f, -1}, {"Equalize", 1.0f, -1}},    {{"Color", 0.6f, 4}, {"Contrast", 1.0f, 8}},
    {{"Equalize", 0.8f, -1}, {"Equalize", 0.6f, -1}}};
constexpr SubPolicy kCifar10[] = {
    {{"Invert", 0.1f, -1}, {"Contrast", 0.2f, 6}},        {{"Rotate", 0.7f, 2}, {"TranslateX", 0.3f, 9}},
    {{"Sharpness", 0.8f, 1}, {"Sharpness", 0.9f, 3}},     {{"ShearY", 0.5f, 8}, {"TranslateY", 0.7f, 9}},
    {{"AutoContrast", 0.5f, -1}, {"Equalize", 0.9f, -1}}, {{"ShearY", 0.2f, 7}, {"Posterize", 0.3f, 7}},
    {{"Color", 0.4f, 3}, {"Brightness", 0.6f, 7}},        {{"Sharpness", 0.3f, 9}, {"Brightness", 0.7f, 9}},
    {{"Equalize", 0.6f, -1}, {"Equalize", 0.5f, -1}},     {{"Contrast", 0.6f, 7}, {"Sharpness", 0.6f, 5}},
    {{"Color", 0.7f, 7}, {"TranslateX", 0.5f, 8}},        {{"Equalize", 0.3f, -1}, {"AutoContrast", 0.4f, -1}},
    {{"TranslateY", 0.4f, 3}, {"Sharpness", 0.2f, 6}},    {{"Brightness", 0.9f, 6}, {"Color", 0.2f, 8}},
    {{"Solarize", 0.5f, 2}, {"Invert", 0.0f, -1}},        {{"Equalize", 0.2f, -1}, {"AutoContrast", 0.6f, -1}},
    {{"Equalize", 0.2f, -1}, {"Equalize", 0.6f, -1}},     {{"Color", 0.9f, 9}, {"Equalize", 0.6f, -1}},
    {{"AutoContrast", 0.8f, -1}, {"Solarize", 0.2f, 8}},  {{"Brightness", 0.1f, 3}, {"Color", 0.7f, 0}},
    {{"Solarize", 0.4f, 5}, {"AutoContrast", 0.9f, -1}},  {{"TranslateY", 0.9f, 9}, {"TranslateY", 0.7f, 9}},
    {{"AutoContrast", 0.9f, -1}, {"Solarize", 0.8f, 3}},  {{"Equalize", 0.8f, -1}, {"Invert", 0.1f, -1}},
    {{"TranslateY", 0.7f, 9}, {"AutoContrast", 0.9f, -1}}};
constexpr SubPolicy kSvhn[] = {
    {{"ShearX", 0.9f, 4}, {"Invert", 0.2f, -1}},        {{"ShearY", 0.9f, 8}, {"Invert", 0.7f, -1}},
    {{"Equalize", 0.6f, -1}, {"Solarize", 0.6f, 6}},    {{"Invert", 0.9f, -1}, {"Equalize", 0.6f, -1}},
    {{"Equalize", 0.6f, -1}, {"Rotate", 0.9f, 3}},      {{"ShearX", 0.9f, 4}, {"AutoContrast", 0.8f, -1}},
    {{"ShearY", 0.9f, 8}, {"Invert", 0.4f, -1}},        {{"ShearY", 0.9f, 5}, {"Solarize", 0.2f, 6}},
    {{"Invert", 0.9f, -1}, {"AutoContrast", 0.8f, -1}}, {{"Equalize", 0.6f, -1}, {"Rotate", 0.9f, 3}},
    {{"ShearX", 0.9f, 4}, {"Solarize", 0.3f, 3}},       {{"ShearY", 0.8f, 8}, {"Invert", 0.7f, -1}},
    {{"Equalize", 0.9f, -1}, {"TranslateY", 0.6f, 6}},  {{"Invert", 0.9f, -1}, {"Equalize", 0.6f, -1}},
    {{"Contrast", 0.3f, 3}, {"Rotate", 0.8f, 4}},       {{"Invert", 0.8f, -1}, {"TranslateY", 0.0f, 2}},
    {{"ShearY", 0.7f, 6}, {"Solarize", 0.4f, 8}},       {{"Invert", 0.6f, -1}, {"Rotate", 0.8f, 4}},
    {{"ShearY", 0.3f, 7}, {"TranslateX", 0.9f, 3}},     {{"ShearX", 0.1f, 6}, {"Invert", 0.6f, -1}},
    {{"Solarize", 0.7f, 2}, {"TranslateY", 0.6f, 7}},   {{"ShearY", 0.8f, 4}, {"Invert", 0.8f, -1}},
    {{"ShearX", 0.7f, 9}, {"TranslateY", 0.8f, 3}},     {{"ShearY", 0.8f, 5}, {"AutoContrast", 0.7f, -1}},
    {{"ShearX", 0.7f, 2}, {"Invert", 0.1f, -1}}};

// std::map order of MindSpore's RandAugment space: its op list.
const char* const kRandAugmentOps[] = {"AutoContrast", "Brightness", "Color",     "Contrast", "Equalize",
                                       "Identity",     "Posterize",  "Rotate",    "Sharpness", "ShearX",
                                       "ShearY",       "Solarize",   "TranslateX", "TranslateY"};

// Round half to even, as MindSpore's Round.
float RoundHalfEven(float v) { return std::nearbyint(v); }

// Entry i of MindSpore's Linspace(start, end, n, scale, offset, round).
float LinspaceAt(float start, float end, int n, int i, float scale = 1.0f, float offset = 0, bool round = false) {
  const float step = n == 1 ? 0 : (end - start) / static_cast<float>(n - 1);
  const float v = (start + static_cast<float>(i) * step) * scale + offset;
  return round ? RoundHalfEven(v) : v;
}

std::vector<float> Linspace(float start, float end, int n, float scale = 1.0f, float offset = 0, bool round = false) {
  std::vector<float> out(n);
  for (int i = 0; i < n; ++i) out[i] = LinspaceAt(start, end, n, i, scale, offset, round);
  return out;
}

// TrivialAugmentWide's magnitude range of one step (trivial_augment_wide_op.cc
// GetSpace); `ranged` false: the step has no magnitude.
struct WideRange {
  bool ranged = false;
  bool signed_ = false;
  float start = 0, end = 0, scale = 1, offset = 0;
  bool round = false;
};
WideRange TrivialAugmentWideRange(const std::string& name, int num_bins) {
  if (name == "ShearX" || name == "ShearY" || name == "Brightness" || name == "Color" || name == "Contrast" ||
      name == "Sharpness")
    return {true, true, 0.0f, 0.99f};
  if (name == "TranslateX" || name == "TranslateY") return {true, true, 0.0f, 32.0f};
  if (name == "Rotate") return {true, true, 0.0f, 135.0f};
  const float last = static_cast<float>(num_bins) - 1.0f;
  if (name == "Posterize") return {true, false, 0.0f, last, -6.0f / last, 8.0f, true};
  if (name == "Solarize") return {true, false, 255.0f, 0.0f};
  return {};  // AutoContrast, Equalize, Identity
}

// "interpolation" (default nearest, as MindSpore's policies).
Result<Interpolation> GetPolicyInterpolation(const nlohmann::json& spec, const std::string& op) {
  auto name = GetString(spec, op, "interpolation", "nearest");
  if (!name.ok()) return name.status();
  auto r = ParseInterpolation(*name);
  if (!r.ok()) return r.status().WithContext(op + ": parameter 'interpolation'");
  return r;
}

}  // namespace

MagnitudeSpace GetMagnitudes(const std::string& name, int num_bins, int height, int width, bool rand_augment) {
  const float bins = static_cast<float>(num_bins);
  if (name == "ShearX" || name == "ShearY") return {Linspace(0.0f, 0.3f, num_bins), true};
  if (name == "TranslateX") return {Linspace(0.0f, 150.0f / 331 * static_cast<float>(width), num_bins), true};
  if (name == "TranslateY") return {Linspace(0.0f, 150.0f / 331 * static_cast<float>(height), num_bins), true};
  if (name == "Rotate") return {Linspace(0.0f, 30, num_bins), true};
  if (name == "Brightness" || name == "Color" || name == "Contrast" || name == "Sharpness")
    return {Linspace(0.0f, 0.9f, num_bins), true};
  if (name == "Posterize") return {Linspace(0.0f, bins - 1.0f, num_bins, -4.0f / (bins - 1.0f), 8, true), false};
  if (name == "Solarize") return {Linspace(rand_augment ? 255.0f : 256.0f, 0.0f, num_bins), false};
  return {{0.0f}, false};  // AutoContrast, Equalize, Invert, Identity
}

Result<std::unique_ptr<TensorOp>> AutoAugmentOp::Make(const nlohmann::json& spec) {
  const std::string op = "AutoAugment";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"policy", "interpolation", "fill_value"}));
  auto o = std::make_unique<AutoAugmentOp>();
  auto policy = GetString(spec, op, "policy", "imagenet");
  if (!policy.ok()) return policy.status();
  if (*policy != "imagenet" && *policy != "cifar10" && *policy != "svhn")
    return Status::InvalidArgument(op + ": parameter 'policy' must be imagenet, cifar10 or svhn, got '" + *policy +
                                   "'");
  o->policy_ = *policy;
  MR_ASSIGN_OR_RETURN(o->interp_, GetPolicyInterpolation(spec, op));
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json AutoAugmentOp::ToJson() const {
  return {{"op", "AutoAugment"}, {"policy", policy_}, {"interpolation", InterpolationName(interp_)},
          {"fill_value", fill_.spec}};
}

Result<Tensor> AutoAugmentOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "AutoAugment";
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(input, op));
  const SubPolicy* table = policy_ == "imagenet" ? kImageNet : policy_ == "cifar10" ? kCifar10 : kSvhn;
  const int64_t n = policy_ == "imagenet" ? std::size(kImageNet)
                    : policy_ == "cifar10" ? std::size(kCifar10)
                                           : std::size(kSvhn);
  // Draws in MindSpore's order: sub-policy, two probabilities, two signs.
  const SubPolicy& sub = table[RandInt(rng, 0, n - 1)];
  const double probs[2] = {RandUniform(rng, 0, 1), RandUniform(rng, 0, 1)};
  const int64_t signs[2] = {RandInt(rng, 0, 1), RandInt(rng, 0, 1)};
  Tensor img = std::move(input);
  for (int i = 0; i < 2; ++i) {
    const Step& s = sub[i];
    if (probs[i] > s.prob) continue;
    const MagnitudeSpace space = GetMagnitudes(s.name, 10, d.h, d.w, false);
    double magnitude = 0;
    if (space.values.size() != 1 && s.magnitude_bin != -1) magnitude = space.values[s.magnitude_bin];
    if (space.signed_ && signs[i] == 0) magnitude = -magnitude;
    MR_ASSIGN_OR_RETURN(img, ApplyAugment(img, s.name, magnitude, interp_, fill_, op));
  }
  return img;
}

Result<std::unique_ptr<TensorOp>> RandAugmentOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandAugment";
  MR_RETURN_IF_ERROR(
      CheckKeys(spec, op, {"num_ops", "magnitude", "num_magnitude_bins", "interpolation", "fill_value"}));
  auto o = std::make_unique<RandAugmentOp>();
  MR_ASSIGN_OR_RETURN(double num_ops, GetNumber(spec, op, "num_ops", 2));
  MR_ASSIGN_OR_RETURN(double magnitude, GetNumber(spec, op, "magnitude", 9));
  MR_ASSIGN_OR_RETURN(double bins, GetNumber(spec, op, "num_magnitude_bins", 31));
  if (num_ops < 0 || num_ops > 1000 || num_ops != std::floor(num_ops))
    return Status::InvalidArgument(op + ": parameter 'num_ops' must be an integer in [0, 1000]");
  if (bins < 2 || bins > 100000 || bins != std::floor(bins))
    return Status::InvalidArgument(op + ": parameter 'num_magnitude_bins' must be an integer >= 2");
  if (magnitude < 0 || magnitude >= bins || magnitude != std::floor(magnitude))
    return Status::InvalidArgument(op + ": parameter 'magnitude' must be an integer in [0, num_magnitude_bins)");
  o->num_ops_ = static_cast<int>(num_ops);
  o->magnitude_ = static_cast<int>(magnitude);
  o->bins_ = static_cast<int>(bins);
  MR_ASSIGN_OR_RETURN(o->interp_, GetPolicyInterpolation(spec, op));
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandAugmentOp::ToJson() const {
  return {{"op", "RandAugment"},          {"num_ops", num_ops_},
          {"magnitude", magnitude_},      {"num_magnitude_bins", bins_},
          {"interpolation", InterpolationName(interp_)}, {"fill_value", fill_.spec}};
}

Result<Tensor> RandAugmentOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "RandAugment";
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(input, op));
  Tensor img = std::move(input);
  for (int i = 0; i < num_ops_; ++i) {
    const char* name = kRandAugmentOps[RandInt(rng, 0, std::size(kRandAugmentOps) - 1)];
    const MagnitudeSpace space = GetMagnitudes(name, bins_, d.h, d.w, true);
    double magnitude = space.values.size() != 1 ? space.values[magnitude_] : 0.0;
    if (RandInt(rng, 0, 1) == 1 && space.signed_) magnitude = -magnitude;
    MR_ASSIGN_OR_RETURN(img, ApplyAugment(img, name, magnitude, interp_, fill_, op));
  }
  return img;
}

Result<std::unique_ptr<TensorOp>> TrivialAugmentWideOp::Make(const nlohmann::json& spec) {
  const std::string op = "TrivialAugmentWide";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"num_magnitude_bins", "interpolation", "fill_value"}));
  auto o = std::make_unique<TrivialAugmentWideOp>();
  // MindSpore's range: [2, 2^24] (FLOAT_MAX_INTEGER).
  MR_ASSIGN_OR_RETURN(o->bins_, GetIntIn(spec, op, "num_magnitude_bins", 2, 16777216, 31));
  MR_ASSIGN_OR_RETURN(o->interp_, GetPolicyInterpolation(spec, op));
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json TrivialAugmentWideOp::ToJson() const {
  return {{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", bins_},
          {"interpolation", InterpolationName(interp_)}, {"fill_value", fill_.spec}};
}

Result<Tensor> TrivialAugmentWideOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "TrivialAugmentWide";
  MR_RETURN_IF_ERROR(CheckRgb(input, op).status());
  // Draws in MindSpore's order: step, bin (ranged steps only), sign.
  const std::string name = kRandAugmentOps[RandInt(rng, 0, std::size(kRandAugmentOps) - 1)];
  const WideRange r = TrivialAugmentWideRange(name, bins_);
  double magnitude = 0;
  if (r.ranged)
    magnitude = LinspaceAt(r.start, r.end, bins_, static_cast<int>(RandInt(rng, 0, bins_ - 1)), r.scale, r.offset,
                           r.round);
  if (RandInt(rng, 0, 1) == 1 && r.signed_) magnitude = -magnitude;
  return ApplyAugment(input, name, magnitude, interp_, fill_, op);
}

}  // namespace mindrecord::ops
