#include "pipeline/ops/flip.h"

#include "pipeline/ops/cv_util.h"

#include <algorithm>
#include <limits>

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
  for (int64_t dim : input.shape())
    if (dim > std::numeric_limits<int>::max())
      return Status::InvalidArgument(op + ": image too large: " + input.DebugString());
  return Status::OK();
}

// Mirrors rows (vertical) or the pixels of each row (horizontal) of an
// image whose pixels are `px` bytes, in place.
void FlipBytes(uint8_t* p, size_t h, size_t w, size_t px, FlipAxis axis) {
  const size_t row = w * px;
  if (axis == FlipAxis::kVertical) {
    for (size_t i = 0; i < h / 2; ++i) std::swap_ranges(p + i * row, p + (i + 1) * row, p + (h - 1 - i) * row);
    return;
  }
  for (size_t i = 0; i < h; ++i) {
    uint8_t* r = p + i * row;
    for (size_t j = 0; j < w / 2; ++j) std::swap_ranges(r + j * px, r + (j + 1) * px, r + (w - 1 - j) * px);
  }
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
  if (d.h == 0 || d.w == 0 || d.c == 0) return input;
  // In place: the input is this op's own, and cv::flip swaps mirrored pixels
  // pairwise, so no second image is allocated and written. A pixel is copied
  // as opaque bytes, so any element type and channel count works (pixels
  // wider than OpenCV's channel limit are swapped here).
  const size_t px = static_cast<size_t>(d.c) * TensorTypeSize(input.type());
  if (px > CV_CN_MAX) {
    FlipBytes(input.MutableData(), d.h, d.w, px, axis);
    return input;
  }
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat m(d.h, d.w, CV_8UC(static_cast<int>(px)), input.MutableData());
    cv::flip(m, m, axis == FlipAxis::kHorizontal ? 1 : 0);
  }));
  return input;
}

Result<Tensor> RandomFlipOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_RETURN_IF_ERROR(CheckFlippable(input, name()));
  if (RandUniform(rng, 0.0, 1.0) >= p_) return input;
  return FlipImage(std::move(input), axis_, name());
}

}  // namespace mindrecord::ops
