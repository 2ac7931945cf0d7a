#include "pipeline/ops/one_hot.h"

#include <cmath>
#include <cstring>

namespace mindrecord::ops {

namespace {

// Label i of an integer tensor as int64 (unsigned types fit: uint8 only).
int64_t LabelAt(const Tensor& t, int64_t i) {
  switch (t.type()) {
    case TensorType::kUInt8: return t.data_as<uint8_t>()[i];
    case TensorType::kInt8: return t.data_as<int8_t>()[i];
    case TensorType::kInt16: return t.data_as<int16_t>()[i];
    case TensorType::kInt32: return t.data_as<int32_t>()[i];
    default: return t.data_as<int64_t>()[i];
  }
}

template <typename T>
void SetOne(uint8_t* data, int64_t index) {
  reinterpret_cast<T*>(data)[index] = T{1};
}

}  // namespace

Result<std::unique_ptr<TensorOp>> OneHotOp::Make(const nlohmann::json& spec) {
  const std::string op = "OneHot";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"num_classes", "smoothing_rate"}));
  if (!spec.contains("num_classes")) return Status::InvalidArgument(op + ": parameter 'num_classes' is required");
  MR_ASSIGN_OR_RETURN(double k, GetNumber(spec, op, "num_classes", 0));
  if (k != std::floor(k) || k < 1 || k > (1 << 30))
    return Status::InvalidArgument(op + ": parameter 'num_classes' must be an integer in [1, 2^30], got " +
                                   spec["num_classes"].dump());
  MR_ASSIGN_OR_RETURN(double s, GetNumber(spec, op, "smoothing_rate", 0.0));
  if (s < 0 || s > 1) return Status::InvalidArgument(op + ": parameter 'smoothing_rate' must be in [0, 1]");
  return std::unique_ptr<TensorOp>(new OneHotOp(static_cast<int64_t>(k), s));
}

Result<Tensor> OneHotOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  const TensorType t = input.type();
  if (!input.defined() || !(t == TensorType::kUInt8 || t == TensorType::kInt8 || t == TensorType::kInt16 ||
                            t == TensorType::kInt32 || t == TensorType::kInt64))
    return Status::InvalidArgument("OneHot: expected integer labels, got " + input.DebugString());
  int rank = 0;
  for (int64_t d : input.shape()) rank += d != 1;
  if (rank > 1)
    return Status::InvalidArgument("OneHot: expected a scalar or 1-D array of labels, got " + input.DebugString());
  const int64_t n = input.num_elements(), k = num_classes_;
  std::vector<int64_t> shape;
  if (n != 1) shape.push_back(n);
  if (k != 1) shape.push_back(k);
  const TensorType out_type = smoothing_ > 0 ? TensorType::kFloat32 : t;
  Tensor out = Tensor::Make(out_type, shape);
  uint8_t* data = out.MutableData();
  if (out.size_bytes() > 0) std::memset(data, 0, out.size_bytes());
  const float on = static_cast<float>(1.0 - smoothing_ + smoothing_ / k), off = static_cast<float>(smoothing_ / k);
  if (out_type == TensorType::kFloat32)
    for (int64_t i = 0; i < n * k; ++i) reinterpret_cast<float*>(data)[i] = off;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = LabelAt(input, i);
    if (label < 0 || label >= k)
      return Status::InvalidArgument("OneHot: label " + std::to_string(label) + " (element " + std::to_string(i) +
                                     ") is outside [0, num_classes=" + std::to_string(k) + ")");
    const int64_t at = i * k + label;
    switch (out_type) {
      case TensorType::kFloat32: reinterpret_cast<float*>(data)[at] = on; break;
      case TensorType::kUInt8: SetOne<uint8_t>(data, at); break;
      case TensorType::kInt8: SetOne<int8_t>(data, at); break;
      case TensorType::kInt16: SetOne<int16_t>(data, at); break;
      case TensorType::kInt32: SetOne<int32_t>(data, at); break;
      default: SetOne<int64_t>(data, at); break;
    }
  }
  return out;
}

}  // namespace mindrecord::ops
