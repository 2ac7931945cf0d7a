#include "pipeline/ops/flip.h"

#include <cstring>

namespace mindrecord::ops {

Tensor FlipHorizontal(const Tensor& img, const ImageDims& d) {
  Tensor out = MakeImage(img.type(), d, d.h, d.w);
  const size_t px = static_cast<size_t>(d.c) * TensorTypeSize(img.type());
  const size_t row = px * d.w;
  uint8_t* dst = out.MutableData();
  const uint8_t* src = img.data();
  for (int y = 0; y < d.h; ++y) {
    const uint8_t* s = src + y * row;
    uint8_t* o = dst + y * row;
    if (px == 3) {
      for (int x = 0; x < d.w; ++x) {
        const uint8_t* p = s + (d.w - 1 - x) * 3;
        o[3 * x] = p[0];
        o[3 * x + 1] = p[1];
        o[3 * x + 2] = p[2];
      }
    } else {
      for (int x = 0; x < d.w; ++x) std::memcpy(o + x * px, s + (d.w - 1 - x) * px, px);
    }
  }
  return out;
}

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
  return FlipHorizontal(input, d);
}

}  // namespace mindrecord::ops
