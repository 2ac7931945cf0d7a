#include "pipeline/ops/bbox_crop.h"

#include <cstring>

#include "pipeline/op_registry.h"
#include "pipeline/ops/crop.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> RandomCropWithBBoxOp::Make(const nlohmann::json& spec) {
  auto o = std::make_unique<RandomCropWithBBoxOp>();
  MR_ASSIGN_OR_RETURN(o->p_, RandomCropParams::FromJson(spec, "RandomCropWithBBox", "fill_value", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomCropWithBBoxOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomCropWithBBox"}, {"size", p_.size.ToJson()}};
  p_.ToJson(&j, "fill_value");
  return j;
}

Result<std::vector<Tensor>> RandomCropWithBBoxOp::ApplyColumns(std::vector<Tensor> inputs,
                                                               std::mt19937_64& rng) const {
  const std::string op = "RandomCropWithBBox";
  MR_ASSIGN_OR_RETURN(auto in, Inputs(inputs, op));
  auto& [d, boxes] = in;
  const int th = static_cast<int>(p_.size.h), tw = static_cast<int>(p_.size.w);
  const Padding p = p_.PaddingFor(d);
  Tensor img = std::move(inputs[0]);
  if (p.any()) {
    MR_ASSIGN_OR_RETURN(img, PadImage(img, d, p, p_.mode, p_.fill, op));
    d.h += p.top + p.bottom;
    d.w += p.left + p.right;
    const int64_t n = boxes.shape()[0], k = boxes.shape()[1];
    float* b = boxes.mutable_data_as<float>();
    for (int64_t i = 0; i < n; ++i) b[i * k] += static_cast<float>(p.left), b[i * k + 1] += static_cast<float>(p.top);
  }
  MR_RETURN_IF_ERROR(p_.CheckFits(d, op));
  if (d.h == th && d.w == tw) return Pair(std::move(img), std::move(boxes));
  const int top = static_cast<int>(RandInt(rng, 0, d.h - th));
  const int left = static_cast<int>(RandInt(rng, 0, d.w - tw));
  Tensor cropped = CropWindow(img, d, top, left, th, tw);
  return Pair(std::move(cropped), CropBoxes(boxes, static_cast<float>(left), static_cast<float>(top),
                                            static_cast<float>(left + tw), static_cast<float>(top + th)));
}

Result<std::unique_ptr<TensorOp>> BoundingBoxAugmentOp::Make(const nlohmann::json& spec) {
  const std::string op = "BoundingBoxAugment";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transform", "ratio"}));
  if (!spec.contains("transform")) return Status::InvalidArgument(op + ": parameter 'transform' is required");
  auto built = BuildColumnOps({spec["transform"]});
  if (!built.ok()) return built.status().WithContext(op);
  if (built->size() != 1 || (*built)[0]->num_inputs() != 1 || (*built)[0]->num_outputs() != 1)
    return Status::InvalidArgument(op + ": parameter 'transform' must be one op on one column (an image op)");
  auto o = std::make_unique<BoundingBoxAugmentOp>();
  o->transform_ = std::shared_ptr<const TensorOp>(std::move((*built)[0]));
  MR_ASSIGN_OR_RETURN(o->ratio_, GetProbability(spec, op, "ratio", 0.3));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<std::vector<Tensor>> BoundingBoxAugmentOp::ApplyColumns(std::vector<Tensor> inputs,
                                                               std::mt19937_64& rng) const {
  const std::string op = "BoundingBoxAugment";
  MR_ASSIGN_OR_RETURN(auto in, Inputs(inputs, op));
  auto& [d, boxes] = in;
  Tensor img = std::move(inputs[0]);
  const int64_t n = boxes.shape()[0], k = boxes.shape()[1];
  const size_t px = static_cast<size_t>(d.c) * TensorTypeSize(img.type());
  for (int64_t i = 0; i < n; ++i) {
    if (RandUniform(rng, 0.0, 1.0) >= ratio_) continue;
    const float* r = boxes.data_as<float>() + i * k;
    const int x = static_cast<int>(r[0]), y = static_cast<int>(r[1]);
    const int w = static_cast<int>(r[2]), h = static_cast<int>(r[3]);
    if (w < 1 || h < 1) continue;
    Tensor region = CropWindow(img, d, y, x, h, w);
    auto t = transform_->Apply(std::move(region), rng);
    if (!t.ok()) return t.status().WithContext(op);
    Tensor res = std::move(t).value();
    MR_ASSIGN_OR_RETURN(ImageDims rd, CheckImage(res, op, true));
    if (res.type() != img.type() || rd.c != d.c)
      return Status::InvalidArgument(op + ": " + transform_->name() + " changed the type or channels of a box (" +
                                     res.DebugString() + ")");
    if (rd.h != h || rd.w != w) {
      MR_ASSIGN_OR_RETURN(res, ResizeImage(res, rd, h, w, Interpolation::kBilinear, op));
    }
    uint8_t* dst = img.MutableData();
    for (int yy = 0; yy < h; ++yy)
      std::memcpy(dst + (static_cast<size_t>(y + yy) * d.w + x) * px, res.data() + static_cast<size_t>(yy) * w * px,
                  static_cast<size_t>(w) * px);
  }
  return Pair(std::move(img), std::move(boxes));
}

}  // namespace mindrecord::ops
