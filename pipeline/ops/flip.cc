#include "pipeline/ops/flip.h"

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> RandomHorizontalFlipOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "RandomHorizontalFlip", {"p"}));
  MR_ASSIGN_OR_RETURN(double p, GetNumber(spec, "RandomHorizontalFlip", "p", 0.5));
  if (p < 0 || p > 1) return Status::InvalidArgument("RandomHorizontalFlip: parameter 'p' must be in [0, 1]");
  return std::unique_ptr<TensorOp>(new RandomHorizontalFlipOp(p));
}

Result<Tensor> RandomHorizontalFlipOp::Apply(Tensor input, std::mt19937_64& rng) const {
  if (!input.defined() || input.shape().size() < 2 || input.shape().size() > 3 || input.type() == TensorType::kBytes ||
      input.type() == TensorType::kString)
    return Status::InvalidArgument("RandomHorizontalFlip: expected an HW or HWC image, got " + input.DebugString());
  const double u = RandUniform(rng, 0.0, 1.0);
  if (u >= p_) return input;
  const auto& s = input.shape();
  ImageDims d{static_cast<int>(s[0]), static_cast<int>(s[1]), s.size() == 3 ? static_cast<int>(s[2]) : 1,
              s.size() == 3};
  // In place: the input is this op's own (MutableData copies it first when
  // another tensor shares its buffer), and cv::flip swaps mirrored pixels
  // pairwise, so no second image is allocated and written.
  const int px = d.c * static_cast<int>(TensorTypeSize(input.type()));
  cv::Mat m(d.h, d.w, CV_8UC(px), input.MutableData());
  MR_RETURN_IF_ERROR(CatchCv("RandomHorizontalFlip", [&] { cv::flip(m, m, 1); }));
  return input;
}

}  // namespace mindrecord::ops
