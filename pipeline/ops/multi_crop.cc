#include "pipeline/ops/multi_crop.h"

#include <string>
#include <utility>

#include "pipeline/ops/crop.h"
#include "pipeline/ops/flip.h"

namespace mindrecord::ops {

namespace {

// Python's int(round(diff / 2.)) for diff >= 0: halves round to even.
int HalfToEven(int diff) {
  const int k = diff / 2;
  return (diff % 2 == 1 && k % 2 == 1) ? k + 1 : k;
}

Result<Tensor> OnlyInput(std::vector<Tensor>& inputs, const std::string& op) {
  if (inputs.size() != 1) return Status::InvalidArgument(op + ": takes 1 column, got " + std::to_string(inputs.size()));
  return std::move(inputs[0]);
}

}  // namespace

Result<std::vector<Tensor>> FiveCrops(const Tensor& img, const ImageDims& d, int h, int w, const std::string& op) {
  if (h > d.h || w > d.w)
    return Status::InvalidArgument(op + ": crop size (" + std::to_string(h) + ", " + std::to_string(w) +
                                   ") is larger than the image (" + std::to_string(d.h) + ", " + std::to_string(d.w) +
                                   ")");
  std::vector<Tensor> out;
  out.push_back(CropWindow(img, d, 0, 0, h, w));
  out.push_back(CropWindow(img, d, 0, d.w - w, h, w));
  out.push_back(CropWindow(img, d, d.h - h, 0, h, w));
  out.push_back(CropWindow(img, d, d.h - h, d.w - w, h, w));
  out.push_back(CropWindow(img, d, HalfToEven(d.h - h), HalfToEven(d.w - w), h, w));
  return out;
}

Result<std::unique_ptr<TensorOp>> FiveCropOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "FiveCrop", {"size"}));
  auto o = std::make_unique<FiveCropOp>();
  MR_ASSIGN_OR_RETURN(o->size_, GetSize(spec, "FiveCrop", "size", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<Tensor> FiveCropOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument(
      "FiveCrop: gives 5 images; map it with five output_columns or follow it with an op taking 5 columns");
}

Result<std::vector<Tensor>> FiveCropOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(Tensor img, OnlyInput(inputs, name()));
  MR_ASSIGN_OR_RETURN(ImageDims d, CropDims(img, name()));
  return FiveCrops(img, d, static_cast<int>(size_.h), static_cast<int>(size_.w), name());
}

Result<std::unique_ptr<TensorOp>> TenCropOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "TenCrop", {"size", "use_vertical_flip"}));
  auto o = std::make_unique<TenCropOp>();
  MR_ASSIGN_OR_RETURN(o->size_, GetSize(spec, "TenCrop", "size", true));
  MR_ASSIGN_OR_RETURN(o->vertical_, GetBool(spec, "TenCrop", "use_vertical_flip", false));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<Tensor> TenCropOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument(
      "TenCrop: gives 10 images; map it with ten output_columns or follow it with an op taking 10 columns");
}

Result<std::vector<Tensor>> TenCropOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(Tensor img, OnlyInput(inputs, name()));
  MR_ASSIGN_OR_RETURN(ImageDims d, CropDims(img, name()));
  const int h = static_cast<int>(size_.h), w = static_cast<int>(size_.w);
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> out, FiveCrops(img, d, h, w, name()));
  // FlipImage works in place; the shared buffer is copied first.
  MR_ASSIGN_OR_RETURN(Tensor flipped, FlipImage(img, vertical_ ? FlipAxis::kVertical : FlipAxis::kHorizontal, name()));
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> second, FiveCrops(flipped, d, h, w, name()));
  for (auto& t : second) out.push_back(std::move(t));
  return out;
}

}  // namespace mindrecord::ops
