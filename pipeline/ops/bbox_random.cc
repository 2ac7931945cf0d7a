#include "pipeline/ops/bbox_random.h"

#include "pipeline/ops/crop.h"
#include "pipeline/ops/resize.h"
#include "pipeline/ops/simple_vision.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> RandomResizedCropWithBBoxOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomResizedCropWithBBox";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "scale", "ratio", "interpolation", "attempts"}));
  MR_ASSIGN_OR_RETURN(RandomResizedCropParams p, RandomResizedCropParams::FromJson(spec, op));
  return std::unique_ptr<TensorOp>(new RandomResizedCropWithBBoxOp(std::move(p)));
}

nlohmann::json RandomResizedCropWithBBoxOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomResizedCropWithBBox"}};
  p_.ToJson(&j);
  return j;
}

Result<std::vector<Tensor>> RandomResizedCropWithBBoxOp::ApplyColumns(std::vector<Tensor> inputs,
                                                                      std::mt19937_64& rng) const {
  const std::string op = "RandomResizedCropWithBBox";
  MR_ASSIGN_OR_RETURN(auto in, Inputs(inputs, op));
  auto& [d, boxes] = in;
  // MindSpore's order: window, boxes cut to it, window resized, boxes scaled.
  const CropRect r = SampleRandomResizedCrop(d.h, d.w, p_, rng);
  Tensor kept = CropBoxes(boxes, static_cast<float>(r.left), static_cast<float>(r.top),
                          static_cast<float>(r.left + r.w), static_cast<float>(r.top + r.h));
  ImageDims wd = d;
  wd.h = r.h;
  wd.w = r.w;
  const int oh = static_cast<int>(p_.size.h), ow = static_cast<int>(p_.size.w);
  MR_ASSIGN_OR_RETURN(Tensor image,
                      ResizeImage(CropWindow(inputs[0], d, r.top, r.left, r.h, r.w), wd, oh, ow, p_.interp, op));
  ScaleBoxes(&kept, static_cast<float>(ow) / static_cast<float>(r.w), static_cast<float>(oh) / static_cast<float>(r.h));
  return Pair(std::move(image), std::move(kept));
}

Result<std::unique_ptr<TensorOp>> RandomResizeWithBBoxOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomResizeWithBBox";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size"}));
  MR_ASSIGN_OR_RETURN(Size2 size, GetSize(spec, op, "size", true));
  return std::unique_ptr<TensorOp>(new RandomResizeWithBBoxOp(size));
}

Result<std::vector<Tensor>> RandomResizeWithBBoxOp::ApplyColumns(std::vector<Tensor> inputs,
                                                                 std::mt19937_64& rng) const {
  return ResizeWithBoxes(std::move(inputs), size_, DrawResizeInterpolation(rng), "RandomResizeWithBBox");
}

}  // namespace mindrecord::ops
