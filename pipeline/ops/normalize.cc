#include "pipeline/ops/normalize.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>

#include "pipeline/ops/layout.h"

namespace mindrecord::ops {

namespace {

template <typename T>
void NormalizeLoop(const T* src, float* dst, int64_t pixels, int c, const float* mean, const float* inv_std) {
  if (c == 3) {
    const float m0 = mean[0], m1 = mean[1], m2 = mean[2];
    const float s0 = inv_std[0], s1 = inv_std[1], s2 = inv_std[2];
    for (int64_t i = 0; i < pixels; ++i) {
      dst[3 * i] = (static_cast<float>(src[3 * i]) - m0) * s0;
      dst[3 * i + 1] = (static_cast<float>(src[3 * i + 1]) - m1) * s1;
      dst[3 * i + 2] = (static_cast<float>(src[3 * i + 2]) - m2) * s2;
    }
    return;
  }
  for (int64_t i = 0; i < pixels; ++i)
    for (int k = 0; k < c; ++k) dst[i * c + k] = (static_cast<float>(src[i * c + k]) - mean[k]) * inv_std[k];
}

// Interleaved [H, W, C] in, planar [C, H, W] out.
template <typename T>
void NormalizePlanarLoop(const T* src, float* dst, int64_t pixels, int c, const float* mean, const float* inv_std) {
  if (c == 3) {
    const float m0 = mean[0], m1 = mean[1], m2 = mean[2];
    const float s0 = inv_std[0], s1 = inv_std[1], s2 = inv_std[2];
    float* d0 = dst;
    float* d1 = dst + pixels;
    float* d2 = dst + 2 * pixels;
    for (int64_t i = 0; i < pixels; ++i) {
      d0[i] = (static_cast<float>(src[3 * i]) - m0) * s0;
      d1[i] = (static_cast<float>(src[3 * i + 1]) - m1) * s1;
      d2[i] = (static_cast<float>(src[3 * i + 2]) - m2) * s2;
    }
    return;
  }
  for (int k = 0; k < c; ++k)
    for (int64_t i = 0; i < pixels; ++i) dst[k * pixels + i] = (static_cast<float>(src[i * c + k]) - mean[k]) * inv_std[k];
}

// Outputs of at least this many bytes written into a batch slot go out with
// non-temporal stores: the batch buffer is far larger than the cache and is
// read later by the consumer, so ordinary stores would first read every line
// of it from memory only to overwrite it.
constexpr size_t kStreamMinBytes = size_t{128} << 10;
// Pixels normalized into a cache-resident buffer before they are streamed out.
constexpr int64_t kStreamPixels = 1024;

// dst[0, n) = src[0, n), bypassing the cache where the target allows.
void StreamOut(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 15) != 0; ++i) dst[i] = src[i];
  for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
#endif
  for (; i < n; ++i) dst[i] = src[i];
}

// As the loops above, a chunk of pixels at a time through a buffer in L1,
// streamed out to `dst` (the image's [H, W, C] or, `chw`, [C, H, W] floats).
template <typename T>
void NormalizeStreamed(const T* src, float* dst, int64_t pixels, int c, bool chw, const float* mean,
                       const float* inv_std) {
  float buf[kStreamPixels * 4];  // CheckImage: at most 4 channels
  for (int64_t p0 = 0; p0 < pixels; p0 += kStreamPixels) {
    const int64_t n = std::min(kStreamPixels, pixels - p0);
    if (chw) {
      NormalizePlanarLoop(src + p0 * c, buf, n, c, mean, inv_std);
      for (int k = 0; k < c; ++k) StreamOut(dst + k * pixels + p0, buf + k * n, n);
    } else {
      NormalizeLoop(src + p0 * c, buf, n, c, mean, inv_std);
      StreamOut(dst + p0 * c, buf, n * c);
    }
  }
#if defined(__SSE2__)
  _mm_sfence();  // the streamed stores are ordered before whatever hands the batch on
#endif
}

Result<std::unique_ptr<TensorOp>> MakeNormalize(const nlohmann::json& spec, bool chw) {
  const std::string op = chw ? "NormalizeHWC2CHW" : "Normalize";
  if (chw) MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"mean", "std"}));
  else MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"mean", "std", "is_hwc"}));
  MR_ASSIGN_OR_RETURN(bool is_hwc, GetBool(spec, op, "is_hwc", true));
  if (!spec.contains("mean") || !spec.contains("std"))
    return Status::InvalidArgument(op + ": parameters 'mean' and 'std' are required");
  MR_ASSIGN_OR_RETURN(std::vector<double> mean, GetNumbers(spec, op, "mean", {}));
  MR_ASSIGN_OR_RETURN(std::vector<double> stdv, GetNumbers(spec, op, "std", {}));
  if (mean.empty() || mean.size() > 4 || mean.size() != stdv.size())
    return Status::InvalidArgument(op + ": 'mean' and 'std' must have the same length (1 to 4)");
  for (double s : stdv)
    if (!(s > 0)) return Status::InvalidArgument(op + ": parameter 'std' values must be > 0");
  return std::unique_ptr<TensorOp>(new NormalizeOp(std::move(mean), std::move(stdv), chw, !is_hwc));
}

}  // namespace

Result<std::unique_ptr<TensorOp>> NormalizeOp::Make(const nlohmann::json& spec) { return MakeNormalize(spec, false); }

Result<std::unique_ptr<TensorOp>> NormalizeOp::MakeHWC2CHW(const nlohmann::json& spec) {
  return MakeNormalize(spec, true);
}

Result<Tensor> NormalizeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const { return Run(input, nullptr); }

Result<Tensor> NormalizeOp::ApplyInto(Tensor input, std::mt19937_64& /*rng*/, const OutputSlot& slot) const {
  return Run(input, &slot);
}

Result<Tensor> NormalizeOp::Run(const Tensor& input, const OutputSlot* slot) const {
  const std::string op = name();
  if (planar_in_) return RunPlanar(input);
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, op, true));
  if (chw_ && !d.has_channel_dim)
    return Status::InvalidArgument(op + ": expected a 3-D [H, W, C] image, got " + input.DebugString());
  if (mean_.size() != 1 && static_cast<int>(mean_.size()) != d.c)
    return Status::InvalidArgument(op + ": " + std::to_string(mean_.size()) + " mean/std values for an image with " +
                                   std::to_string(d.c) + " channels " + input.DebugString());
  float mean[4], inv[4];
  for (int k = 0; k < d.c; ++k) {
    const size_t i = mean_.size() == 1 ? 0 : k;
    mean[k] = static_cast<float>(mean_[i]);
    inv[k] = static_cast<float>(1.0 / std_[i]);
  }
  const Shape shape = chw_ ? Shape{d.c, d.h, d.w} : input.shape();
  const bool into = slot && slot->view.type() == TensorType::kFloat32 && slot->view.shape() == shape;
  Tensor out = into ? slot->view : Tensor::Make(TensorType::kFloat32, shape);
  float* dst = into ? reinterpret_cast<float*>(slot->data) : out.mutable_data_as<float>();
  const int64_t pixels = static_cast<int64_t>(d.h) * d.w;
  const bool u8 = input.type() == TensorType::kUInt8;
  if (into && static_cast<size_t>(pixels) * d.c * sizeof(float) >= kStreamMinBytes) {
    if (u8) NormalizeStreamed(input.data_as<uint8_t>(), dst, pixels, d.c, chw_, mean, inv);
    else NormalizeStreamed(input.data_as<float>(), dst, pixels, d.c, chw_, mean, inv);
    return out;
  }
  if (chw_ && u8) NormalizePlanarLoop(input.data_as<uint8_t>(), dst, pixels, d.c, mean, inv);
  else if (chw_) NormalizePlanarLoop(input.data_as<float>(), dst, pixels, d.c, mean, inv);
  else if (u8) NormalizeLoop(input.data_as<uint8_t>(), dst, pixels, d.c, mean, inv);
  else NormalizeLoop(input.data_as<float>(), dst, pixels, d.c, mean, inv);
  return out;
}

// [C, H, W] in (uint8 or float32, C in 1..4), float32 [C, H, W] out.
Result<Tensor> NormalizeOp::RunPlanar(const Tensor& input) const {
  const std::string op = name();
  const auto& s = input.shape();
  const bool type_ok = input.type() == TensorType::kUInt8 || input.type() == TensorType::kFloat32;
  if (!input.defined() || !type_ok || s.size() != 3 || s[0] < 1 || s[0] > 4 || s[1] < 1 || s[2] < 1)
    return Status::InvalidArgument(op + ": is_hwc=False expects a uint8 or float32 [C, H, W] image (1 to 4 " +
                                   "channels), got " + input.DebugString());
  const int c = static_cast<int>(s[0]);
  if (mean_.size() != 1 && static_cast<int>(mean_.size()) != c)
    return Status::InvalidArgument(op + ": " + std::to_string(mean_.size()) + " mean/std values for an image with " +
                                   std::to_string(c) + " channels " + input.DebugString());
  Tensor out = Tensor::Make(TensorType::kFloat32, input.shape());
  float* dst = out.mutable_data_as<float>();
  const int64_t plane = s[1] * s[2];
  for (int k = 0; k < c; ++k) {
    const size_t i = mean_.size() == 1 ? 0 : k;
    const float mean = static_cast<float>(mean_[i]), inv = static_cast<float>(1.0 / std_[i]);
    float* out_plane = dst + k * plane;
    if (input.type() == TensorType::kUInt8)
      NormalizeLoop(input.data_as<uint8_t>() + k * plane, out_plane, plane, 1, &mean, &inv);
    else
      NormalizeLoop(input.data_as<float>() + k * plane, out_plane, plane, 1, &mean, &inv);
  }
  return out;
}

Result<std::unique_ptr<TensorOp>> ToTensorOp::Make(const nlohmann::json& spec) {
  const std::string op = "ToTensor";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"output_type"}));
  MR_ASSIGN_OR_RETURN(TensorType t, GetNumericType(spec, op, "output_type", "float32"));
  return std::unique_ptr<TensorOp>(new ToTensorOp(t));
}

Result<Tensor> ToTensorOp::Run(Tensor input, std::mt19937_64& rng, const OutputSlot* slot) const {
  if (input.defined() && input.shape().size() == 2) {  // HW: one channel
    Tensor hw1 = input.Reshaped({input.shape()[0], input.shape()[1], 1});
    if (hw1.defined()) input = std::move(hw1);
  }
  MR_RETURN_IF_ERROR(CheckImage(input, name(), true).status());
  if (out_ == TensorType::kFloat32)
    return slot ? scale_.ApplyInto(std::move(input), rng, *slot) : scale_.Apply(std::move(input), rng);
  MR_ASSIGN_OR_RETURN(Tensor f, scale_.Apply(std::move(input), rng));
  return CastTensor(f, out_, name(), slot);
}

Result<Tensor> ToTensorOp::Apply(Tensor input, std::mt19937_64& rng) const { return Run(std::move(input), rng, nullptr); }

Result<Tensor> ToTensorOp::ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const {
  return Run(std::move(input), rng, &slot);
}

Result<std::unique_ptr<TensorOp>> RescaleOp::Make(const nlohmann::json& spec) {
  const std::string op = "Rescale";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"rescale", "shift"}));
  if (!spec.contains("rescale") || !spec.contains("shift"))
    return Status::InvalidArgument(op + ": parameters 'rescale' and 'shift' are required");
  MR_ASSIGN_OR_RETURN(double rescale, GetNumber(spec, op, "rescale", 1.0));
  MR_ASSIGN_OR_RETURN(double shift, GetNumber(spec, op, "shift", 0.0));
  return std::unique_ptr<TensorOp>(new RescaleOp(rescale, shift));
}

Result<Tensor> RescaleOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(Tensor f, CastTensor(input, TensorType::kFloat32, "Rescale"));
  input = Tensor();  // a float32 input is then f's alone: rescaled in place, no copy
  float* p = f.mutable_data_as<float>();
  const float r = static_cast<float>(rescale_), s = static_cast<float>(shift_);
  for (int64_t i = 0, n = f.num_elements(); i < n; ++i) p[i] = p[i] * r + s;
  return f;
}

}  // namespace mindrecord::ops
