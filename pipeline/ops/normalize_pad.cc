#include "pipeline/ops/normalize_pad.h"

#include <cstring>

#include "pipeline/ops/normalize.h"

namespace mindrecord::ops {

namespace {

const char kOp[] = "NormalizePad";

Status BadNormalizePad(const std::string& what) { return Status::InvalidArgument(std::string(kOp) + ": " + what); }

}  // namespace

Result<std::unique_ptr<TensorOp>> NormalizePadOp::Make(const nlohmann::json& spec) {
  const std::string op = kOp;
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"mean", "std", "dtype", "is_hwc"}));
  if (!spec.contains("mean") || !spec.contains("std")) return BadNormalizePad("parameters 'mean' and 'std' are required");
  MR_ASSIGN_OR_RETURN(std::vector<double> mean, GetNumbers(spec, op, "mean", {}));
  MR_ASSIGN_OR_RETURN(std::vector<double> stdv, GetNumbers(spec, op, "std", {}));
  if (mean.empty() || mean.size() > 4 || mean.size() != stdv.size())
    return BadNormalizePad("'mean' and 'std' must have the same length (1 to 4)");
  for (double m : mean)
    if (!(m >= 0 && m <= 255)) return BadNormalizePad("parameter 'mean' values must be in [0, 255], got " + spec["mean"].dump());
  for (double s : stdv)
    if (!(s > 0 && s <= 255)) return BadNormalizePad("parameter 'std' values must be in (0, 255], got " + spec["std"].dump());
  MR_ASSIGN_OR_RETURN(std::string dtype, GetString(spec, op, "dtype", "float32"));
  if (dtype == "float16")
    return BadNormalizePad("dtype 'float16' is not supported (mindrecord tensors have no float16); use 'float32'");
  if (dtype != "float32") return BadNormalizePad("parameter 'dtype' must be 'float32' or 'float16', got '" + dtype + "'");
  MR_ASSIGN_OR_RETURN(bool is_hwc, GetBool(spec, op, "is_hwc", true));
  return std::unique_ptr<TensorOp>(new NormalizePadOp(std::move(mean), std::move(stdv), is_hwc));
}

Result<Tensor> NormalizePadOp::Apply(Tensor input, std::mt19937_64& rng) const {
  return is_hwc_ ? ApplyHwc(input, rng) : ApplyChw(input, rng);
}

// Normalize on the whole image, then each pixel's C values and a 0.
Result<Tensor> NormalizePadOp::ApplyHwc(const Tensor& input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, kOp, true));
  if (mean_.size() != 1 && static_cast<int>(mean_.size()) != d.c)
    return BadNormalizePad(std::to_string(mean_.size()) + " mean/std values for an image with " + std::to_string(d.c) +
                           " channels " + input.DebugString());
  MR_ASSIGN_OR_RETURN(Tensor norm, NormalizeOp(mean_, std_).Apply(input, rng));
  Tensor out = Tensor::Make(TensorType::kFloat32, {d.h, d.w, d.c + 1});
  const float* src = norm.data_as<float>();
  float* dst = out.mutable_data_as<float>();
  const int64_t pixels = static_cast<int64_t>(d.h) * d.w;
  for (int64_t i = 0; i < pixels; ++i) {
    for (int k = 0; k < d.c; ++k) dst[i * (d.c + 1) + k] = src[i * d.c + k];
    dst[i * (d.c + 1) + d.c] = 0.0f;
  }
  return out;
}

// Normalize on each [H, W] plane with its channel's mean and std, then a
// plane of zeros.
Result<Tensor> NormalizePadOp::ApplyChw(const Tensor& input, std::mt19937_64& rng) const {
  const auto& s = input.shape();
  if (!input.defined() || s.size() != 3 ||
      (input.type() != TensorType::kUInt8 && input.type() != TensorType::kFloat32))
    return BadNormalizePad("with is_hwc=False, expected a uint8 or float32 [C, H, W] image, got " + input.DebugString());
  const int64_t c = s[0];
  if (mean_.size() != 1 && static_cast<int64_t>(mean_.size()) != c)
    return BadNormalizePad(std::to_string(mean_.size()) + " mean/std values for an image with " + std::to_string(c) +
                           " channels " + input.DebugString());
  Tensor out = Tensor::Make(TensorType::kFloat32, {c + 1, s[1], s[2]});
  const size_t plane_bytes = out.size_bytes() / static_cast<size_t>(c + 1);
  uint8_t* dst = out.MutableData();
  for (int64_t k = 0; k < c; ++k) {
    const size_t i = mean_.size() == 1 ? 0 : static_cast<size_t>(k);
    MR_RETURN_IF_ERROR(CheckImage(input.Subtensor(k), kOp, true).status());
    MR_ASSIGN_OR_RETURN(Tensor plane, NormalizeOp({mean_[i]}, {std_[i]}).Apply(input.Subtensor(k), rng));
    std::memcpy(dst + k * plane_bytes, plane.data(), plane_bytes);
  }
  std::memset(dst + c * plane_bytes, 0, plane_bytes);
  return out;
}

}  // namespace mindrecord::ops
