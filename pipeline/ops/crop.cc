#include "pipeline/ops/crop.h"

#include "pipeline/ops/cv_util.h"
#include "pipeline/ops/scalar.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include <opencv2/core.hpp>

namespace mindrecord::ops {

namespace {

void FillPixels(uint8_t* dst, size_t count, TensorType type, double fill) {
  if (fill == 0) {
    std::memset(dst, 0, count * TensorTypeSize(type));
    return;
  }
  VisitNumeric(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      FillElements<bool>(dst, static_cast<int64_t>(count), fill != 0);
    } else if constexpr (std::is_integral_v<T>) {
      // Clamped first: the conversion of an out-of-range double is undefined.
      const double v = std::clamp(fill, static_cast<double>(std::numeric_limits<T>::lowest()),
                                  static_cast<double>(std::numeric_limits<T>::max()));
      FillElements<T>(dst, static_cast<int64_t>(count), static_cast<T>(v));
    } else {
      FillElements<T>(dst, static_cast<int64_t>(count), static_cast<T>(fill));
    }
  });
}

}  // namespace

Tensor CropWindow(const Tensor& img, const ImageDims& d, int top, int left, int h, int w, double fill) {
  Tensor out = MakeImage(img.type(), d, h, w);
  const size_t px = static_cast<size_t>(d.c) * TensorTypeSize(img.type());
  uint8_t* dst = out.MutableData();
  const uint8_t* src = img.data();
  const int x0 = std::max(0, left), x1 = std::min(d.w, left + w);  // source columns kept
  for (int y = 0; y < h; ++y) {
    uint8_t* row = dst + static_cast<size_t>(y) * w * px;
    const int sy = top + y;
    if (sy < 0 || sy >= d.h || x0 >= x1) {
      FillPixels(row, static_cast<size_t>(w) * d.c, img.type(), fill);
      continue;
    }
    if (x0 > left) FillPixels(row, static_cast<size_t>(x0 - left) * d.c, img.type(), fill);
    std::memcpy(row + static_cast<size_t>(x0 - left) * px, src + (static_cast<size_t>(sy) * d.w + x0) * px,
                static_cast<size_t>(x1 - x0) * px);
    if (left + w > x1)
      FillPixels(row + static_cast<size_t>(x1 - left) * px, static_cast<size_t>(left + w - x1) * d.c, img.type(),
                 fill);
  }
  return out;
}

Result<ImageDims> CropDims(const Tensor& t, const std::string& op) {
  constexpr int64_t kMaxDim = 2147483647;  // INT32_MAX, MindSpore's bound
  const auto& s = t.shape();
  if (!t.defined() || s.size() < 2 || s.size() > 3 || !IsNumericType(t.type()))
    return Status::InvalidArgument(op + ": expected an HW or HWC image, got " + t.DebugString());
  if (s[0] > kMaxDim || s[1] > kMaxDim || (s.size() == 3 && s[2] > kMaxDim))
    return Status::InvalidArgument(op + ": image too large: " + t.DebugString());
  return ImageDims{static_cast<int>(s[0]), static_cast<int>(s[1]), s.size() == 3 ? static_cast<int>(s[2]) : 1,
                   s.size() == 3};
}

Result<std::unique_ptr<TensorOp>> CenterCropOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "CenterCrop", {"size"}));
  MR_ASSIGN_OR_RETURN(Size2 size, GetSize(spec, "CenterCrop", "size", true));
  return std::unique_ptr<TensorOp>(new CenterCropOp(size));
}

nlohmann::json CenterCropOp::ToJson() const { return {{"op", "CenterCrop"}, {"size", size_.ToJson()}}; }

Result<Tensor> CenterCropOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "CenterCrop", true));
  const int h = static_cast<int>(size_.h), w = static_cast<int>(size_.w);
  if (h == d.h && w == d.w) return input;
  // Floor division also for negative differences (crop larger than image).
  auto half = [](int diff) { return diff >= 0 ? diff / 2 : -((-diff + 1) / 2); };
  return CropWindow(input, d, half(d.h - h), half(d.w - w), h, w);
}

Result<RandomCropParams> RandomCropParams::FromJson(const nlohmann::json& spec, const std::string& op,
                                                   const char* fill_key, bool fill_byte_range) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "padding", "pad_if_needed", fill_key, "padding_mode"}));
  RandomCropParams r;
  MR_ASSIGN_OR_RETURN(r.size, GetSize(spec, op, "size", true));
  MR_ASSIGN_OR_RETURN(r.pad, GetPadding(spec, op, "padding"));
  if (spec.contains("padding")) r.padding_spec = spec["padding"];
  MR_ASSIGN_OR_RETURN(r.pad_if_needed, GetBool(spec, op, "pad_if_needed", false));
  MR_ASSIGN_OR_RETURN(r.fill, GetFillValue(spec, op, fill_key, fill_byte_range));
  MR_ASSIGN_OR_RETURN(r.mode, GetPaddingMode(spec, op, "padding_mode"));
  return r;
}

void RandomCropParams::ToJson(nlohmann::json* j, const char* fill_key) const {
  if (!padding_spec.is_null()) (*j)["padding"] = padding_spec;
  (*j)["pad_if_needed"] = pad_if_needed;
  (*j)[fill_key] = fill.spec;
  (*j)["padding_mode"] = PaddingModeName(mode);
}

Padding RandomCropParams::PaddingFor(const ImageDims& d) const {
  const int th = static_cast<int>(size.h), tw = static_cast<int>(size.w);
  Padding p = pad;
  if (pad_if_needed) {
    const int pw = d.w + p.left + p.right, ph = d.h + p.top + p.bottom;
    if (pw < tw) p.left += tw - pw, p.right += tw - pw;
    if (ph < th) p.top += th - ph, p.bottom += th - ph;
  }
  return p;
}

Status RandomCropParams::CheckFits(const ImageDims& padded, const std::string& op) const {
  if (padded.h >= size.h && padded.w >= size.w) return Status::OK();
  return Status::InvalidArgument(op + ": crop " + std::to_string(size.h) + "x" + std::to_string(size.w) +
                                 " is larger than the (padded) image " + std::to_string(padded.h) + "x" +
                                 std::to_string(padded.w) + "; set pad_if_needed");
}

Result<std::unique_ptr<TensorOp>> RandomCropOp::Make(const nlohmann::json& spec) {
  auto o = std::make_unique<RandomCropOp>();
  MR_ASSIGN_OR_RETURN(o->p_, RandomCropParams::FromJson(spec, "RandomCrop", "fill", false));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomCropOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomCrop"}, {"size", p_.size.ToJson()}};
  p_.ToJson(&j, "fill");
  return j;
}

Result<Tensor> RandomCropOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomCrop", true));
  const int th = static_cast<int>(p_.size.h), tw = static_cast<int>(p_.size.w);
  const Padding p = p_.PaddingFor(d);
  Tensor img = input;
  if (p.any()) {
    MR_ASSIGN_OR_RETURN(img, PadImage(input, d, p, p_.mode, p_.fill, "RandomCrop"));
    d.h += p.top + p.bottom;
    d.w += p.left + p.right;
  }
  MR_RETURN_IF_ERROR(p_.CheckFits(d, "RandomCrop"));
  const int top = static_cast<int>(RandInt(rng, 0, d.h - th));
  const int left = static_cast<int>(RandInt(rng, 0, d.w - tw));
  if (th == d.h && tw == d.w) return img;
  return CropWindow(img, d, top, left, th, tw);
}

}  // namespace mindrecord::ops
