#include "pipeline/ops/normalize.h"

namespace mindrecord::ops {

namespace {

template <typename T>
void NormalizeLoop(const T* src, float* dst, int64_t pixels, int c, const float* mean, const float* inv_std) {
  if (c == 3) {
    const float m0 = mean[0], m1 = mean[1], m2 = mean[2];
    const float s0 = inv_std[0], s1 = inv_std[1], s2 = inv_std[2];
    for (int64_t i = 0; i < pixels; ++i) {
      dst[3 * i] = (static_cast<float>(src[3 * i]) - m0) * s0;
      dst[3 * i + 1] = (static_cast<float>(src[3 * i + 1]) - m1) * s1;
      dst[3 * i + 2] = (static_cast<float>(src[3 * i + 2]) - m2) * s2;
    }
    return;
  }
  for (int64_t i = 0; i < pixels; ++i)
    for (int k = 0; k < c; ++k) dst[i * c + k] = (static_cast<float>(src[i * c + k]) - mean[k]) * inv_std[k];
}

}  // namespace

Result<std::unique_ptr<TensorOp>> NormalizeOp::Make(const nlohmann::json& spec) {
  const std::string op = "Normalize";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"mean", "std"}));
  if (!spec.contains("mean") || !spec.contains("std"))
    return Status::InvalidArgument(op + ": parameters 'mean' and 'std' are required");
  MR_ASSIGN_OR_RETURN(std::vector<double> mean, GetNumbers(spec, op, "mean", {}));
  MR_ASSIGN_OR_RETURN(std::vector<double> stdv, GetNumbers(spec, op, "std", {}));
  if (mean.empty() || mean.size() > 4 || mean.size() != stdv.size())
    return Status::InvalidArgument(op + ": 'mean' and 'std' must have the same length (1 to 4)");
  for (double s : stdv)
    if (!(s > 0)) return Status::InvalidArgument(op + ": parameter 'std' values must be > 0");
  return std::unique_ptr<TensorOp>(new NormalizeOp(std::move(mean), std::move(stdv)));
}

Result<Tensor> NormalizeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Normalize", true));
  if (mean_.size() != 1 && static_cast<int>(mean_.size()) != d.c)
    return Status::InvalidArgument("Normalize: " + std::to_string(mean_.size()) + " mean/std values for an image with " +
                                   std::to_string(d.c) + " channels " + input.DebugString());
  float mean[4], inv[4];
  for (int k = 0; k < d.c; ++k) {
    const size_t i = mean_.size() == 1 ? 0 : k;
    mean[k] = static_cast<float>(mean_[i]);
    inv[k] = static_cast<float>(1.0 / std_[i]);
  }
  Tensor out = Tensor::Make(TensorType::kFloat32, input.shape());
  const int64_t pixels = static_cast<int64_t>(d.h) * d.w;
  if (input.type() == TensorType::kUInt8)
    NormalizeLoop(input.data_as<uint8_t>(), out.mutable_data_as<float>(), pixels, d.c, mean, inv);
  else
    NormalizeLoop(input.data_as<float>(), out.mutable_data_as<float>(), pixels, d.c, mean, inv);
  return out;
}

}  // namespace mindrecord::ops
