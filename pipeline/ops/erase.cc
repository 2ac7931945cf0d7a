#include "pipeline/ops/erase.h"

#include <algorithm>
#include <cmath>
#include <type_traits>


namespace mindrecord::ops {

namespace {

struct Layout {
  int c, h, w;
};

Result<Layout> GetLayout(const Tensor& t, bool hwc, const std::string& op) {
  if (!t.defined() || (t.type() != TensorType::kUInt8 && t.type() != TensorType::kFloat32))
    return Status::InvalidArgument(op + ": expected a uint8 or float32 image, got " + t.DebugString());
  const auto& s = t.shape();
  if (s.size() == 2) return Layout{1, static_cast<int>(s[0]), static_cast<int>(s[1])};
  if (s.size() != 3)
    return Status::InvalidArgument(op + ": expected an " + (hwc ? "HWC" : "CHW") + " image, got " + t.DebugString());
  if (hwc) return Layout{static_cast<int>(s[2]), static_cast<int>(s[0]), static_cast<int>(s[1])};
  return Layout{static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2])};
}

template <typename T>
T Cast(double v) {
  if constexpr (std::is_same_v<T, uint8_t>) return static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0));
  return static_cast<T>(v);
}

template <typename T>
void FillBox(T* p, const Layout& l, bool hwc, int y0, int x0, int y1, int x1, const std::vector<double>& value) {
  for (int c = 0; c < l.c; ++c) {
    const T v = Cast<T>(value.size() == 1 ? value[0] : value[c]);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        const size_t at = hwc ? (static_cast<size_t>(y) * l.w + x) * l.c + c
                              : (static_cast<size_t>(c) * l.h + y) * l.w + x;
        p[at] = v;
      }
  }
}

}  // namespace

Status FillWindow(Tensor* img, bool hwc, int top, int left, int h, int w, const std::vector<double>& value) {
  MR_ASSIGN_OR_RETURN(Layout l, GetLayout(*img, hwc, "FillWindow"));
  if (value.size() != 1 && static_cast<int>(value.size()) != l.c)
    return Status::InvalidArgument("fill value has " + std::to_string(value.size()) + " entries for " +
                                   std::to_string(l.c) + " channels");
  const int y0 = std::max(0, top), x0 = std::max(0, left);
  const int y1 = std::min(l.h, top + h), x1 = std::min(l.w, left + w);
  if (y0 >= y1 || x0 >= x1) return Status::OK();
  if (img->type() == TensorType::kUInt8)
    FillBox(img->mutable_data_as<uint8_t>(), l, hwc, y0, x0, y1, x1, value);
  else
    FillBox(img->mutable_data_as<float>(), l, hwc, y0, x0, y1, x1, value);
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> CutOutOp::Make(const nlohmann::json& spec) {
  const std::string op = "CutOut";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"length", "num_patches", "is_hwc"}));
  if (!spec.contains("length")) return Status::InvalidArgument(op + ": parameter 'length' is required");
  MR_ASSIGN_OR_RETURN(double length, GetNumber(spec, op, "length", 1));
  MR_ASSIGN_OR_RETURN(double patches, GetNumber(spec, op, "num_patches", 1));
  if (length < 1 || length > (1 << 20) || length != std::floor(length))
    return Status::InvalidArgument(op + ": parameter 'length' must be an integer in [1, 2^20]");
  if (patches < 1 || patches > 65536 || patches != std::floor(patches))
    return Status::InvalidArgument(op + ": parameter 'num_patches' must be an integer in [1, 65536]");
  auto o = std::make_unique<CutOutOp>();
  o->length_ = static_cast<int>(length);
  o->patches_ = static_cast<int>(patches);
  MR_ASSIGN_OR_RETURN(o->hwc_, GetBool(spec, op, "is_hwc", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<Tensor> CutOutOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "CutOut";
  MR_ASSIGN_OR_RETURN(Layout l, GetLayout(input, hwc_, op));
  if (length_ > l.h || length_ > l.w)
    return Status::InvalidArgument(op + ": length " + std::to_string(length_) + " is larger than the image " +
                                   std::to_string(l.h) + "x" + std::to_string(l.w));
  for (int i = 0; i < patches_; ++i) {
    const int top = static_cast<int>(RandInt(rng, 0, l.h + length_)) - length_;
    const int left = static_cast<int>(RandInt(rng, 0, l.w + length_)) - length_;
    MR_RETURN_IF_ERROR(FillWindow(&input, hwc_, top, left, length_, length_, {0.0}));
  }
  return input;
}

Result<std::unique_ptr<TensorOp>> RandomErasingOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomErasing";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"prob", "scale", "ratio", "value", "max_attempts"}));
  auto o = std::make_unique<RandomErasingOp>();
  MR_ASSIGN_OR_RETURN(o->prob_, GetProbability(spec, op, "prob"));
  MR_ASSIGN_OR_RETURN(std::vector<double> scale, GetNumbers(spec, op, "scale", {0.02, 0.33}));
  MR_ASSIGN_OR_RETURN(std::vector<double> ratio, GetNumbers(spec, op, "ratio", {0.3, 3.3}));
  if (scale.size() != 2 || scale[0] < 0 || scale[0] > scale[1])
    return Status::InvalidArgument(op + ": parameter 'scale' must be [min, max] with 0 <= min <= max");
  if (ratio.size() != 2 || ratio[0] <= 0 || ratio[0] > ratio[1])
    return Status::InvalidArgument(op + ": parameter 'ratio' must be [min, max] with 0 < min <= max");
  o->scale_ = {scale[0], scale[1]};
  o->ratio_ = {ratio[0], ratio[1]};
  if (spec.contains("value") && spec["value"].is_string()) {
    if (spec["value"] != "random")
      return Status::InvalidArgument(op + ": parameter 'value' must be a number, [v0, v1, v2] or \"random\"");
    o->random_value_ = true;
  } else {
    MR_ASSIGN_OR_RETURN(o->value_, GetNumbers(spec, op, "value", {0}));
    if (o->value_.size() != 1 && o->value_.size() != 3)
      return Status::InvalidArgument(op + ": parameter 'value' must be a number, [v0, v1, v2] or \"random\"");
  }
  MR_ASSIGN_OR_RETURN(double attempts, GetNumber(spec, op, "max_attempts", 10));
  if (attempts < 1 || attempts > 1000 || attempts != std::floor(attempts))
    return Status::InvalidArgument(op + ": parameter 'max_attempts' must be an integer in [1, 1000]");
  o->max_attempts_ = static_cast<int>(attempts);
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomErasingOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomErasing"}, {"prob", prob_}, {"scale", scale_}, {"ratio", ratio_},
                      {"max_attempts", max_attempts_}};
  j["value"] = random_value_ ? nlohmann::json("random") : nlohmann::json(value_);
  return j;
}

Result<Tensor> RandomErasingOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "RandomErasing";
  MR_ASSIGN_OR_RETURN(Layout l, GetLayout(input, false, op));
  if (input.shape().size() != 3) return Status::InvalidArgument(op + ": expected a CHW image, got " + input.DebugString());
  if (!random_value_ && value_.size() == 3 && l.c != 3)
    return Status::InvalidArgument(op + ": 3 values for an image with " + std::to_string(l.c) + " channels");
  if (RandUniform(rng, 0.0, 1.0) >= prob_) return input;
  const double area = static_cast<double>(l.h) * l.w;
  for (int i = 0; i < max_attempts_; ++i) {
    const double erase_area = RandUniform(rng, scale_[0], scale_[1]) * area;
    const double aspect = RandUniform(rng, ratio_[0], ratio_[1]);
    const int w = static_cast<int>(std::nearbyint(std::sqrt(erase_area * aspect)));
    const int h = static_cast<int>(std::nearbyint(w / aspect));
    if (h >= l.h || w >= l.w) continue;
    const int top = static_cast<int>(RandInt(rng, 0, l.h - h));
    const int left = static_cast<int>(RandInt(rng, 0, l.w - w));
    if (!random_value_) {
      MR_RETURN_IF_ERROR(FillWindow(&input, false, top, left, h, w, value_));
      return input;
    }
    // N(0, 1) per element, channel-major as numpy's normal(size=(C, h, w)).
    const bool u8 = input.type() == TensorType::kUInt8;
    uint8_t* data = input.MutableData();
    for (int c = 0; c < l.c; ++c)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const size_t at = (static_cast<size_t>(c) * l.h + top + y) * l.w + left + x;
          const double v = RandNormal(rng);
          if (u8)
            data[at] = Cast<uint8_t>(v);
          else
            reinterpret_cast<float*>(data)[at] = static_cast<float>(v);
        }
    return input;
  }
  return input;
}

}  // namespace mindrecord::ops
