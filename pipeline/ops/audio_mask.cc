#include "pipeline/ops/audio_mask.h"

#include <cmath>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> AxisMaskOp::Make(const nlohmann::json& spec) {
  std::unique_ptr<AxisMaskOp> m(new AxisMaskOp());
  m->name_ = spec.value("op", "");
  const std::string& op = m->name_;
  const char* param = nullptr;  // the width's key
  if (op == "TimeMasking" || op == "FrequencyMasking") {
    param = op == "TimeMasking" ? "time_mask_param" : "freq_mask_param";
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"iid_masks", param, "mask_start", "mask_value"}));
    MR_ASSIGN_OR_RETURN(m->random_, GetBool(spec, op, "iid_masks", false));
    m->axis_ = op == "TimeMasking" ? 2 : 1;
  } else if (op == "MaskAlongAxis") {
    param = "mask_width";
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"mask_start", param, "mask_value", "axis"}));
  } else {
    param = "mask_param";
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {param, "mask_value", "axis"}));
    m->random_ = true;
  }
  if (op == "MaskAlongAxis" || op == "MaskAlongAxisIID") {
    if (!spec.contains("axis")) return Status::InvalidArgument(op + ": parameter 'axis' is required");
    MR_ASSIGN_OR_RETURN(m->axis_, GetIntIn(spec, op, "axis", 1, 2));
  }
  MR_ASSIGN_OR_RETURN(int width, GetIntIn(spec, op, param, 0, INT32_MAX, 0));
  MR_ASSIGN_OR_RETURN(int start, GetIntIn(spec, op, "mask_start", 0, INT32_MAX, 0));
  MR_ASSIGN_OR_RETURN(m->value_, GetNumber(spec, op, "mask_value", 0.0));
  if (!std::isfinite(m->value_)) return BadParameter(op, "mask_value", "must be a finite number");
  m->width_ = width;
  m->start_ = start;
  return std::unique_ptr<TensorOp>(std::move(m));
}

nlohmann::json AxisMaskOp::ToJson() const {
  nlohmann::json j = {{"op", name_}, {"mask_value", value_}};
  if (name_ == "TimeMasking" || name_ == "FrequencyMasking") {
    j[name_ == "TimeMasking" ? "time_mask_param" : "freq_mask_param"] = width_;
    j["iid_masks"] = random_;
    j["mask_start"] = start_;
  } else if (name_ == "MaskAlongAxis") {
    j["mask_width"] = width_;
    j["mask_start"] = start_;
    j["axis"] = axis_;
  } else {
    j["mask_param"] = width_;
    j["axis"] = axis_;
  }
  return j;
}

Result<Tensor> AxisMaskOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name_, 2, "<..., freq, time>"));
  const Shape& s = x.shape();
  const int64_t freq = s[s.size() - 2], time = s.back();
  const int64_t length = axis_ == 2 ? time : freq;
  const char* axis_name = axis_ == 2 ? "time" : "frequency";
  if (width_ > length)
    return Status::InvalidArgument(name_ + ": the mask's width " + std::to_string(width_) + " is more than the " +
                                   std::to_string(length) + " of the " + axis_name + " axis of " + x.DebugString());
  int64_t width = width_, start = start_;
  if (random_) {
    width = RandInt(rng, 0, width_);
    start = RandInt(rng, 0, length - width);
  } else if (start + width > length) {
    return Status::InvalidArgument(name_ + ": the mask [" + std::to_string(start) + ", " +
                                   std::to_string(start + width) + ") lies past the " + std::to_string(length) +
                                   " of the " + axis_name + " axis of " + x.DebugString());
  }
  if (width == 0) return x;
  const int64_t count = OuterCount(s, 2);
  auto fill = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    const T v = static_cast<T>(value_);
    for (int64_t c = 0; c < count; ++c) {
      T* m = d + c * freq * time;
      if (axis_ == 2) {
        for (int64_t f = 0; f < freq; ++f) std::fill(m + f * time + start, m + f * time + start + width, v);
      } else {
        std::fill(m + start * time, m + (start + width) * time, v);
      }
    }
  };
  if (x.type() == TensorType::kFloat64) fill(double{}); else fill(float{});
  return x;
}

}  // namespace mindrecord::ops
