#include "pipeline/ops/bbox.h"

#include <algorithm>
#include <cstring>

#include "pipeline/ops/flip.h"
#include "pipeline/ops/layout.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

Result<Tensor> CheckBoxes(const Tensor& boxes, int width, int height, const std::string& op) {
  if (!boxes.defined() || boxes.shape().size() != 2 || boxes.shape()[1] < 4)
    return Status::InvalidArgument(op + ": bounding boxes must be [n, 4 or more] (x, y, width, height, ...), got " +
                                   boxes.DebugString());
  MR_ASSIGN_OR_RETURN(Tensor f, CastTensor(boxes, TensorType::kFloat32, op));
  const int64_t n = f.shape()[0], k = f.shape()[1];
  const float* b = f.data_as<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float x = b[i * k], y = b[i * k + 1], w = b[i * k + 2], h = b[i * k + 3];
    const std::string box = "box " + std::to_string(i) + " (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                            std::to_string(w) + ", " + std::to_string(h) + ")";
    if (!(x >= 0 && y >= 0 && w >= 0 && h >= 0))
      return Status::InvalidArgument(op + ": " + box + " has a negative or NaN coordinate");
    if (x + w > static_cast<float>(width) || y + h > static_cast<float>(height))
      return Status::InvalidArgument(op + ": " + box + " is out of bounds of the " + std::to_string(width) + "x" +
                                     std::to_string(height) + " image");
  }
  return f;
}

Tensor CropBoxes(const Tensor& boxes, float x0, float y0, float x1, float y1) {
  const int64_t n = boxes.shape()[0], k = boxes.shape()[1];
  const float* b = boxes.data_as<float>();
  std::vector<float> kept;
  for (int64_t i = 0; i < n; ++i) {
    const float* r = b + i * k;
    const float bx1 = r[0] + r[2], by1 = r[1] + r[3];
    if (r[0] > x1 || r[1] > y1 || bx1 < x0 || by1 < y0) continue;  // no overlap
    const float nx0 = std::max(r[0], x0) - x0, ny0 = std::max(r[1], y0) - y0;
    const float nx1 = std::min(bx1, x1) - x0, ny1 = std::min(by1, y1) - y0;
    kept.insert(kept.end(), r, r + k);
    float* o = kept.data() + kept.size() - k;
    o[0] = nx0;
    o[1] = ny0;
    o[2] = nx1 - nx0;
    o[3] = ny1 - ny0;
  }
  Tensor out = Tensor::Make(TensorType::kFloat32, {static_cast<int64_t>(kept.size()) / k, k});
  if (!kept.empty()) std::memcpy(out.MutableData(), kept.data(), kept.size() * sizeof(float));
  return out;
}

void ScaleBoxes(Tensor* boxes, float sx, float sy) {
  const int64_t n = boxes->shape()[0], k = boxes->shape()[1];
  float* b = boxes->mutable_data_as<float>();
  for (int64_t i = 0; i < n; ++i) {
    b[i * k] *= sx;
    b[i * k + 1] *= sy;
    b[i * k + 2] *= sx;
    b[i * k + 3] *= sy;
  }
}

Result<std::vector<Tensor>> ResizeWithBoxes(std::vector<Tensor> inputs, const Size2& size, Interpolation interp,
                                            const std::string& op) {
  MR_ASSIGN_OR_RETURN(auto in, ImageBoxesOp::Inputs(inputs, op));
  auto& [d, boxes] = in;
  int oh = 0, ow = 0;
  ResizeTarget(size, d.h, d.w, &oh, &ow);
  MR_ASSIGN_OR_RETURN(Tensor image, ResizeImage(inputs[0], d, oh, ow, interp, op));
  ScaleBoxes(&boxes, static_cast<float>(ow) / static_cast<float>(d.w),
             static_cast<float>(oh) / static_cast<float>(d.h));
  return ImageBoxesOp::Pair(std::move(image), std::move(boxes));
}

Result<Tensor> ImageBoxesOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument(name() + ": takes 2 columns (image, bounding boxes); map it with "
                                 "input_columns=[image, bbox]");
}

Result<std::pair<ImageDims, Tensor>> ImageBoxesOp::Inputs(const std::vector<Tensor>& inputs, const std::string& op) {
  if (inputs.size() != 2) return Status::InvalidArgument(op + ": takes 2 columns (image, bounding boxes)");
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(inputs[0], op, true));
  MR_ASSIGN_OR_RETURN(Tensor boxes, CheckBoxes(inputs[1], d.w, d.h, op));
  return std::make_pair(d, std::move(boxes));
}

std::vector<Tensor> ImageBoxesOp::Pair(Tensor image, Tensor boxes) {
  std::vector<Tensor> out;
  out.push_back(std::move(image));
  out.push_back(std::move(boxes));
  return out;
}

Result<std::unique_ptr<TensorOp>> RandomFlipWithBBoxOp::MakeHorizontal(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "RandomHorizontalFlipWithBBox", {"p"}));
  MR_ASSIGN_OR_RETURN(double p, GetProbability(spec, "RandomHorizontalFlipWithBBox"));
  return std::unique_ptr<TensorOp>(new RandomFlipWithBBoxOp(false, p));
}

Result<std::unique_ptr<TensorOp>> RandomFlipWithBBoxOp::MakeVertical(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "RandomVerticalFlipWithBBox", {"p"}));
  MR_ASSIGN_OR_RETURN(double p, GetProbability(spec, "RandomVerticalFlipWithBBox"));
  return std::unique_ptr<TensorOp>(new RandomFlipWithBBoxOp(true, p));
}

Result<std::vector<Tensor>> RandomFlipWithBBoxOp::ApplyColumns(std::vector<Tensor> inputs,
                                                               std::mt19937_64& rng) const {
  const std::string op = name();
  MR_ASSIGN_OR_RETURN(auto in, Inputs(inputs, op));
  auto& [d, boxes] = in;
  if (RandUniform(rng, 0.0, 1.0) >= p_) return Pair(std::move(inputs[0]), std::move(boxes));
  MR_ASSIGN_OR_RETURN(Tensor image,
                      FlipImage(std::move(inputs[0]), vertical_ ? FlipAxis::kVertical : FlipAxis::kHorizontal, op));
  const int64_t n = boxes.shape()[0], k = boxes.shape()[1];
  float* b = boxes.mutable_data_as<float>();
  for (int64_t i = 0; i < n; ++i) {
    if (vertical_)
      b[i * k + 1] = static_cast<float>(d.h) - b[i * k + 1] - b[i * k + 3];
    else
      b[i * k] = static_cast<float>(d.w) - b[i * k] - b[i * k + 2];
  }
  return Pair(std::move(image), std::move(boxes));
}

Result<std::unique_ptr<TensorOp>> ResizeWithBBoxOp::Make(const nlohmann::json& spec) {
  const std::string op = "ResizeWithBBox";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "interpolation"}));
  MR_ASSIGN_OR_RETURN(Size2 size, GetSize(spec, op, "size", true));
  MR_ASSIGN_OR_RETURN(Interpolation interp, GetInterpolation(spec, op));
  return std::unique_ptr<TensorOp>(new ResizeWithBBoxOp(size, interp));
}

nlohmann::json ResizeWithBBoxOp::ToJson() const {
  return {{"op", "ResizeWithBBox"}, {"size", size_.ToJson()}, {"interpolation", InterpolationName(interp_)}};
}

Result<std::vector<Tensor>> ResizeWithBBoxOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64&) const {
  return ResizeWithBoxes(std::move(inputs), size_, interp_, "ResizeWithBBox");
}

}  // namespace mindrecord::ops
