#include "pipeline/ops/random_color.h"

#include <cmath>

#include "pipeline/ops/color_adjust.h"
#include "pipeline/ops/point_ops.h"

namespace mindrecord::ops {

namespace {


// MindSpore's RandomColor: factors this close to 1 (or 0) give the input (or
// its grey version) as it is: "0.5 pixel precision assuming an 8 bit image".
constexpr double kColorEps = 0.00195;

// The ImageNet PCA of MindSpore's RandomLighting: row k holds channel k's
// eigenvector components, each times its eigenvalue (products in double,
// stored as float, as its table is).
const float kPca[3][3] = {
    {static_cast<float>(55.46 * -0.5675), static_cast<float>(4.794 * 0.7192), static_cast<float>(1.148 * 0.4009)},
    {static_cast<float>(55.46 * -0.5808), static_cast<float>(4.794 * -0.0045), static_cast<float>(1.148 * -0.8140)},
    {static_cast<float>(55.46 * -0.5836), static_cast<float>(4.794 * -0.6948), static_cast<float>(1.148 * 0.4203)},
};

// cv::saturate_cast<uchar>(float): round to nearest, ties to even, into [0,
// 255]; clamped before the conversion so huge values stay defined.
uint8_t SaturateRound(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 255.0f) return 255;
  return static_cast<uint8_t>(std::nearbyint(v));
}

}  // namespace

Result<std::unique_ptr<TensorOp>> RandomColorOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomColor";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees"}));
  MR_ASSIGN_OR_RETURN(std::vector<double> d, GetNumbers(spec, op, "degrees", {0.1, 1.9}));
  if (d.size() != 2 || !(d[0] >= 0) || !(d[0] <= d[1]) || !(d[1] <= kFactorMax))
    return Status::InvalidArgument(op + ": parameter 'degrees' must be [min, max] with 0 <= min <= max <= " +
                                   "16777216, got " + spec["degrees"].dump());
  return std::unique_ptr<TensorOp>(new RandomColorOp(d[0], d[1]));
}

Result<Tensor> RandomColorOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = name();
  MR_RETURN_IF_ERROR(CheckRgb(input, op).status());
  const float t = static_cast<float>(RandUniform(rng, lo_, hi_));
  if (std::abs(t - 1.0) < kColorEps) return input;
  // AdjustSaturation blends as MindSpore's addWeighted(x, t, grey, 1 - t): both
  // weights reach OpenCV as the float nearest to t and 1 - t.
  return AdjustSaturation(input, std::abs(t - 0.0) < kColorEps ? 0.0 : static_cast<double>(t), op);
}

Result<std::unique_ptr<TensorOp>> RandomLightingOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomLighting";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"alpha"}));
  MR_ASSIGN_OR_RETURN(double alpha, GetNumberIn(spec, op, "alpha", 0, kFactorMax, 0.05));
  return std::unique_ptr<TensorOp>(new RandomLightingOp(alpha));
}

Result<Tensor> RandomLightingOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = name();
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(input, op));
  // MindSpore keeps alpha and the draws as float.
  const float alpha = static_cast<float>(alpha_);
  float a[3];
  for (float& x : a) x = static_cast<float>(alpha * RandNormal(rng));
  float shift[3];
  for (int k = 0; k < 3; ++k) shift[k] = kPca[k][0] * a[0] + kPca[k][1] * a[1] + kPca[k][2] * a[2];
  Tensor out = Tensor::Make(TensorType::kUInt8, input.shape());
  const uint8_t* src = input.data();
  uint8_t* dst = out.MutableData();
  const int64_t pixels = static_cast<int64_t>(d.h) * d.w;
  for (int64_t i = 0; i < pixels; ++i)
    for (int k = 0; k < 3; ++k) dst[3 * i + k] = SaturateRound(static_cast<float>(src[3 * i + k]) + shift[k]);
  return out;
}

}  // namespace mindrecord::ops
