#include "pipeline/ops/simple_vision.h"

#include <cmath>

#include "pipeline/ops/convert_color.h"
#include "pipeline/ops/crop.h"
#include "pipeline/ops/erase.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

namespace {

constexpr int64_t kMaxCoord = 2147483647;  // INT32_MAX, MindSpore's bound

}  // namespace

Result<std::unique_ptr<TensorOp>> FlipOp::MakeHorizontal(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "HorizontalFlip", {}));
  return std::unique_ptr<TensorOp>(new FlipOp(FlipAxis::kHorizontal));
}

Result<std::unique_ptr<TensorOp>> FlipOp::MakeVertical(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "VerticalFlip", {}));
  return std::unique_ptr<TensorOp>(new FlipOp(FlipAxis::kVertical));
}

Result<Tensor> FlipOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  return FlipImage(std::move(input), axis_, name());
}

Status CropBox::CheckInside(const ImageDims& d, const std::string& op) const {
  // int64 sums: top + h cannot overflow (both below 2^31).
  if (static_cast<int64_t>(top) + size.h > d.h || static_cast<int64_t>(left) + size.w > d.w)
    return Status::InvalidArgument(op + ": crop window (top " + std::to_string(top) + ", left " +
                                   std::to_string(left) + ", " + std::to_string(size.h) + "x" +
                                   std::to_string(size.w) + ") exceeds the image " + std::to_string(d.h) + "x" +
                                   std::to_string(d.w));
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> CropOp::Make(const nlohmann::json& spec) {
  const std::string op = "Crop";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"coordinates", "size"}));
  auto o = std::make_unique<CropOp>();
  const auto c = spec.contains("coordinates") ? spec["coordinates"] : nlohmann::json();
  if (!c.is_array() || c.size() != 2)
    return Status::InvalidArgument(op + ": parameter 'coordinates' must be [top, left], got " + c.dump());
  MR_ASSIGN_OR_RETURN(o->box_.top, GetIntIn({{"top", c[0]}}, op, "top", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->box_.left, GetIntIn({{"left", c[1]}}, op, "left", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->box_.size, GetSize(spec, op, "size", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json CropOp::ToJson() const {
  return {{"op", "Crop"}, {"coordinates", {box_.top, box_.left}}, {"size", box_.size.ToJson()}};
}

Result<Tensor> CropOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CropDims(input, name()));
  MR_RETURN_IF_ERROR(box_.CheckInside(d, name()));
  return CropWindow(input, d, box_.top, box_.left, static_cast<int>(box_.size.h), static_cast<int>(box_.size.w));
}

Result<std::unique_ptr<TensorOp>> ResizedCropOp::Make(const nlohmann::json& spec) {
  const std::string op = "ResizedCrop";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"top", "left", "height", "width", "size", "interpolation"}));
  auto o = std::make_unique<ResizedCropOp>();
  MR_ASSIGN_OR_RETURN(o->box_.top, GetIntIn(spec, op, "top", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->box_.left, GetIntIn(spec, op, "left", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(int h, GetIntIn(spec, op, "height", 1, kMaxCoord));
  MR_ASSIGN_OR_RETURN(int w, GetIntIn(spec, op, "width", 1, kMaxCoord));
  o->box_.size.h = h;
  o->box_.size.w = w;
  MR_ASSIGN_OR_RETURN(o->size_, GetSize(spec, op, "size", true));
  MR_ASSIGN_OR_RETURN(o->interp_, GetInterpolation(spec, op));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json ResizedCropOp::ToJson() const {
  return {{"op", "ResizedCrop"},   {"top", box_.top},          {"left", box_.left},
          {"height", box_.size.h}, {"width", box_.size.w},     {"size", size_.ToJson()},
          {"interpolation", InterpolationName(interp_)}};
}

Result<Tensor> ResizedCropOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, name(), true));
  MR_RETURN_IF_ERROR(box_.CheckInside(d, name()));
  const int h = static_cast<int>(box_.size.h), w = static_cast<int>(box_.size.w);
  Tensor crop = CropWindow(input, d, box_.top, box_.left, h, w);
  int oh = 0, ow = 0;
  if (size_.from_int) {
    // MindSpore's rule (resized_crop_op.cc): the side given is chosen by the
    // *image's* orientation, the other keeps the window's aspect ratio, rounded.
    const float s = static_cast<float>(size_.h);  // float arithmetic, as MindSpore's
    const double other = std::round(d.h < d.w ? static_cast<float>(w) / static_cast<float>(h) * s
                                              : static_cast<float>(h) / static_cast<float>(w) * s);
    if (other < 1 || other > kMaxCoord)
      return Status::InvalidArgument(name() + ": the window " + std::to_string(h) + "x" + std::to_string(w) +
                                     " resized to " + std::to_string(size_.h) + " has an empty or too large side");
    oh = d.h < d.w ? static_cast<int>(size_.h) : static_cast<int>(other);
    ow = d.h < d.w ? static_cast<int>(other) : static_cast<int>(size_.h);
  } else {
    ResizeTarget(size_, h, w, &oh, &ow);
  }
  ImageDims cd = d;
  cd.h = h;
  cd.w = w;
  return ResizeImage(crop, cd, oh, ow, interp_, name());
}

Result<std::unique_ptr<TensorOp>> RandomGrayscaleOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "RandomGrayscale", {"prob"}));
  auto o = std::make_unique<RandomGrayscaleOp>();
  MR_ASSIGN_OR_RETURN(o->prob_, GetProbability(spec, "RandomGrayscale", "prob", 0.1));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<Tensor> RandomGrayscaleOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, name(), true));
  if (d.c != 1 && d.c != 3)
    return Status::InvalidArgument(name() + ": expected a 1- or 3-channel image, got " + input.DebugString());
  // Draw first, whatever the image, so later ops see the same stream.
  const bool apply = RandUniform(rng, 0.0, 1.0) < prob_;
  if (!apply || d.c == 1) return input;
  static const GrayscaleOp kGray3(3);
  return kGray3.Apply(std::move(input), rng);
}

Result<std::unique_ptr<TensorOp>> ToPILOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "ToPIL", {}));
  return std::unique_ptr<TensorOp>(new ToPILOp());
}

Result<Tensor> ToPILOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  const auto& s = input.shape();
  const bool numeric = input.defined() && input.type() != TensorType::kBytes && input.type() != TensorType::kString;
  if (!numeric || (s.size() != 2 && s.size() != 3) || (s.size() == 3 && (s[2] < 1 || s[2] > 4)))
    return Status::InvalidArgument(name() + ": expected a decoded HW or HWC image (1 to 4 channels), got " +
                                   input.DebugString());
  return input;
}

Result<std::unique_ptr<TensorOp>> EraseOp::Make(const nlohmann::json& spec) {
  const std::string op = "Erase";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"top", "left", "height", "width", "value", "inplace"}));
  auto o = std::make_unique<EraseOp>();
  MR_ASSIGN_OR_RETURN(o->top_, GetIntIn(spec, op, "top", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->left_, GetIntIn(spec, op, "left", 0, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->height_, GetIntIn(spec, op, "height", 1, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->width_, GetIntIn(spec, op, "width", 1, kMaxCoord));
  MR_ASSIGN_OR_RETURN(o->value_, GetNumbers(spec, op, "value", {0.0}));
  if (o->value_.size() != 1 && o->value_.size() != 3)
    return Status::InvalidArgument(op + ": parameter 'value' must be a number or [r, g, b]");
  for (double v : o->value_)
    if (v < 0 || v > 255) return Status::InvalidArgument(op + ": parameter 'value' must be in [0, 255]");
  MR_ASSIGN_OR_RETURN(o->inplace_, GetBool(spec, op, "inplace", false));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json EraseOp::ToJson() const {
  return {{"op", "Erase"},       {"top", top_},     {"left", left_},       {"height", height_},
          {"width", width_},     {"value", value_}, {"inplace", inplace_}};
}

Result<Tensor> EraseOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, name(), true));
  if (!d.has_channel_dim || d.c != 3)
    return Status::InvalidArgument(name() + ": expected an HWC image with 3 channels, got " + input.DebugString());
  // As MindSpore (image_utils Erase): a box taller or wider than the image is
  // an error; one that starts inside and runs past an edge is clipped.
  if (height_ > d.h || width_ > d.w)
    return Status::InvalidArgument(name() + ": the box " + std::to_string(height_) + "x" + std::to_string(width_) +
                                   " is larger than the image " + input.DebugString());
  // FillWindow clips with int sums; top/left/h/w < 2^31 each, so clip the
  // extent here first (top + height could overflow int).
  const int h = static_cast<int>(std::min<int64_t>(height_, std::max<int64_t>(0, int64_t{d.h} - top_)));
  const int w = static_cast<int>(std::min<int64_t>(width_, std::max<int64_t>(0, int64_t{d.w} - left_)));
  if (h == 0 || w == 0) return input;
  MR_RETURN_IF_ERROR(FillWindow(&input, true, top_, left_, h, w, value_));
  return input;
}

Result<std::unique_ptr<TensorOp>> PadToSizeOp::Make(const nlohmann::json& spec) {
  const std::string op = "PadToSize";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "offset", "fill_value", "padding_mode"}));
  auto o = std::make_unique<PadToSizeOp>();
  MR_ASSIGN_OR_RETURN(o->size_, GetSize(spec, op, "size", true));
  if (spec.contains("offset") && !spec["offset"].is_null()) {
    const auto& v = spec["offset"];
    o->offset_spec_ = v;
    o->has_offset_ = true;
    if (v.is_array()) {
      if (v.size() != 2) return Status::InvalidArgument(op + ": parameter 'offset' must be o or [top, left]");
      MR_ASSIGN_OR_RETURN(o->off_top_, GetIntIn({{"offset", v[0]}}, op, "offset", 0, kMaxCoord));
      MR_ASSIGN_OR_RETURN(o->off_left_, GetIntIn({{"offset", v[1]}}, op, "offset", 0, kMaxCoord));
    } else {
      MR_ASSIGN_OR_RETURN(o->off_top_, GetIntIn(spec, op, "offset", 0, kMaxCoord));
      o->off_left_ = o->off_top_;
    }
  }
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  MR_ASSIGN_OR_RETURN(o->mode_, GetPaddingMode(spec, op, "padding_mode"));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json PadToSizeOp::ToJson() const {
  return {{"op", "PadToSize"},       {"size", size_.ToJson()},
          {"offset", offset_spec_},  {"fill_value", fill_.spec},
          {"padding_mode", PaddingModeName(mode_)}};
}

Result<Tensor> PadToSizeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, name(), true));
  // Sizes are <= 2^20 and offsets < 2^31: int64 sums cannot overflow.
  const int64_t dh = size_.h - d.h, dw = size_.w - d.w;
  if (dh < 0 || dw < 0)
    return Status::InvalidArgument(name() + ": size " + size_.ToJson().dump() + " is smaller than the image " +
                                   input.DebugString());
  const int64_t top = has_offset_ ? off_top_ : dh / 2, left = has_offset_ ? off_left_ : dw / 2;
  if (top > dh || left > dw)
    return Status::InvalidArgument(name() + ": offset " + offset_spec_.dump() + " puts the image beyond size " +
                                   size_.ToJson().dump());
  Padding p;
  p.top = static_cast<int>(top);
  p.left = static_cast<int>(left);
  p.bottom = static_cast<int>(dh - top);
  p.right = static_cast<int>(dw - left);
  if (!p.any()) return input;
  return PadImage(input, d, p, mode_, fill_, name());
}

Result<std::unique_ptr<TensorOp>> RandomResizeOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "RandomResize", {"size"}));
  auto o = std::make_unique<RandomResizeOp>();
  MR_ASSIGN_OR_RETURN(o->size_, GetSize(spec, "RandomResize", "size", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Interpolation DrawResizeInterpolation(std::mt19937_64& rng) {
  static constexpr Interpolation kModes[] = {Interpolation::kBilinear, Interpolation::kNearest,
                                             Interpolation::kBicubic, Interpolation::kArea};
  return kModes[RandInt(rng, 0, 3)];
}

Result<Tensor> RandomResizeOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, name(), true));
  const Interpolation interp = DrawResizeInterpolation(rng);
  int oh = 0, ow = 0;
  ResizeTarget(size_, d.h, d.w, &oh, &ow);
  return ResizeImage(input, d, oh, ow, interp, name());
}

}  // namespace mindrecord::ops
