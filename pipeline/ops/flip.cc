#include "pipeline/ops/flip.h"

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

Result<std::unique_ptr<TensorOp>> MakeFlip(const nlohmann::json& spec, FlipAxis axis) {
  RandomFlipOp probe(axis, 0);
  const std::string op = probe.name();
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"p"}));
  MR_ASSIGN_OR_RETURN(double p, GetProbability(spec, op));
  return std::unique_ptr<TensorOp>(new RandomFlipOp(axis, p));
}

Status CheckFlippable(const Tensor& input, const std::string& op) {
  if (!input.defined() || input.shape().size() < 2 || input.shape().size() > 3 || input.type() == TensorType::kBytes ||
      input.type() == TensorType::kString)
    return Status::InvalidArgument(op + ": expected an HW or HWC image, got " + input.DebugString());
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<TensorOp>> RandomFlipOp::MakeHorizontal(const nlohmann::json& spec) {
  return MakeFlip(spec, FlipAxis::kHorizontal);
}

Result<std::unique_ptr<TensorOp>> RandomFlipOp::MakeVertical(const nlohmann::json& spec) {
  return MakeFlip(spec, FlipAxis::kVertical);
}

Result<Tensor> FlipImage(Tensor input, FlipAxis axis, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckFlippable(input, op));
  const auto& s = input.shape();
  ImageDims d{static_cast<int>(s[0]), static_cast<int>(s[1]), s.size() == 3 ? static_cast<int>(s[2]) : 1,
              s.size() == 3};
  if (d.h == 0 || d.w == 0) return input;
  // In place: the input is this op's own, and cv::flip swaps mirrored pixels
  // pairwise, so no second image is allocated and written. A pixel is copied
  // as opaque bytes, so any element type and channel count works.
  const int px = d.c * static_cast<int>(TensorTypeSize(input.type()));
  cv::Mat m(d.h, d.w, CV_8UC(px), input.MutableData());
  MR_RETURN_IF_ERROR(CatchCv(op, [&] { cv::flip(m, m, axis == FlipAxis::kHorizontal ? 1 : 0); }));
  return input;
}

Result<Tensor> RandomFlipOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_RETURN_IF_ERROR(CheckFlippable(input, name()));
  if (RandUniform(rng, 0.0, 1.0) >= p_) return input;
  return FlipImage(std::move(input), axis_, name());
}

}  // namespace mindrecord::ops
