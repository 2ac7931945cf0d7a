#include "pipeline/ops/layout.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

bool IsNumeric(TensorType t) { return t != TensorType::kBytes && t != TensorType::kString; }

template <typename D, typename S>
D Saturate(S v) {
  if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(v);
  } else if constexpr (std::is_floating_point_v<S>) {
    if (std::isnan(v)) return 0;
    const S r = std::nearbyint(v);
    if (r <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (r >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(r);
  } else {
    using W = std::conditional_t<std::is_signed_v<S>, int64_t, uint64_t>;
    if constexpr (std::is_signed_v<S>) {
      if (static_cast<int64_t>(v) < static_cast<int64_t>(std::numeric_limits<D>::min()))
        return std::numeric_limits<D>::min();
    }
    if (static_cast<W>(v) > static_cast<W>(0) &&
        static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(v);
  }
}

template <typename S, typename D>
void CastLoop(const void* src, void* dst, int64_t n) {
  const S* s = static_cast<const S*>(src);
  D* d = static_cast<D*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = Saturate<D>(s[i]);
}

// To bool as numpy's astype(bool): any non-zero value (NaN too) is true.
// Bool elements are stored as uint8 0 / 1.
template <typename S>
void CastToBool(const void* src, void* dst, int64_t n) {
  const S* s = static_cast<const S*>(src);
  uint8_t* d = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = s[i] != 0;
}

template <typename S>
void CastFrom(const void* src, void* dst, int64_t n, TensorType to) {
  switch (to) {
    case TensorType::kUInt8: return CastLoop<S, uint8_t>(src, dst, n);
    case TensorType::kInt8: return CastLoop<S, int8_t>(src, dst, n);
    case TensorType::kInt16: return CastLoop<S, int16_t>(src, dst, n);
    case TensorType::kInt32: return CastLoop<S, int32_t>(src, dst, n);
    case TensorType::kInt64: return CastLoop<S, int64_t>(src, dst, n);
    case TensorType::kFloat32: return CastLoop<S, float>(src, dst, n);
    case TensorType::kFloat64: return CastLoop<S, double>(src, dst, n);
    case TensorType::kBool: return CastToBool<S>(src, dst, n);
    default: return;
  }
}

}  // namespace

Result<std::unique_ptr<TensorOp>> HWC2CHWOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "HWC2CHW", {}));
  return std::unique_ptr<TensorOp>(new HWC2CHWOp());
}

Result<Tensor> HWC2CHWOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const { return Run(input, nullptr); }

Result<Tensor> HWC2CHWOp::ApplyInto(Tensor input, std::mt19937_64& /*rng*/, const OutputSlot& slot) const {
  return Run(input, &slot);
}

Result<Tensor> HWC2CHWOp::Run(const Tensor& input, const OutputSlot* slot) const {
  if (!input.defined() || input.shape().size() != 3 || !IsNumeric(input.type()))
    return Status::InvalidArgument("HWC2CHW: expected a 3-D [H, W, C] numeric tensor, got " + input.DebugString());
  const int64_t h = input.shape()[0], w = input.shape()[1], c = input.shape()[2];
  const std::vector<int64_t> shape = {c, h, w};
  const bool into = slot && slot->view.type() == input.type() && slot->view.shape() == shape;
  Tensor out = into ? slot->view : Tensor::Make(input.type(), shape);
  // An empty tensor (a zero dimension: any sizes may come with it) has
  // nothing to move; otherwise h * w * c elements exist, so h * w fits.
  if (h == 0 || w == 0 || c == 0) return out;
  const size_t es = TensorTypeSize(input.type());
  if (c <= 512 && h * w <= INT32_MAX) {
    // cv::split copies bits: pick an OpenCV depth of the same element size.
    const int depth = es == 1 ? CV_8U : es == 2 ? CV_16U : es == 4 ? CV_32S : CV_64F;
    cv::Mat src(static_cast<int>(h), static_cast<int>(w), CV_MAKETYPE(depth, static_cast<int>(c)),
                const_cast<uint8_t*>(input.data()));
    std::vector<cv::Mat> planes;
    uint8_t* dst = into ? slot->data : out.MutableData();
    for (int64_t k = 0; k < c; ++k)
      planes.emplace_back(static_cast<int>(h), static_cast<int>(w), depth, dst + k * h * w * es);
    MR_RETURN_IF_ERROR(CatchCv("HWC2CHW", [&] { cv::split(src, planes.data()); }));
    return out;
  }
  const uint8_t* src = input.data();
  uint8_t* dst = into ? slot->data : out.MutableData();
  const int64_t hw = h * w;
  for (int64_t i = 0; i < hw; ++i)
    for (int64_t k = 0; k < c; ++k) std::memcpy(dst + (k * hw + i) * es, src + (i * c + k) * es, es);
  return out;
}

Result<Tensor> CastTensor(const Tensor& t, TensorType to, const std::string& op, const OutputSlot* slot) {
  if (!t.defined()) return Status::InvalidArgument(op + ": input tensor is undefined");
  if (!IsNumeric(t.type()) || !IsNumeric(to))
    return Status::InvalidArgument(op + ": cannot cast " + t.DebugString() + " to " + TensorTypeName(to) +
                                   " (numeric types only)");
  if (t.type() == to) return t;
  const bool into = slot && slot->view.type() == to && slot->view.shape() == t.shape();
  Tensor out = into ? slot->view : Tensor::Make(to, t.shape());
  const void* s = t.data();
  void* d = into ? static_cast<void*>(slot->data) : static_cast<void*>(out.MutableData());
  const int64_t n = t.num_elements();
  std::vector<uint8_t> bits;
  if (t.type() == TensorType::kBool) {  // read as 0 / 1 whatever non-zero byte a true holds
    const uint8_t* b = t.data_as<uint8_t>();
    bits.assign(b, b + n);
    for (auto& v : bits) v = v != 0;
    s = bits.data();
  }
  switch (t.type()) {
    case TensorType::kBool:
    case TensorType::kUInt8: CastFrom<uint8_t>(s, d, n, to); break;
    case TensorType::kInt8: CastFrom<int8_t>(s, d, n, to); break;
    case TensorType::kInt16: CastFrom<int16_t>(s, d, n, to); break;
    case TensorType::kInt32: CastFrom<int32_t>(s, d, n, to); break;
    case TensorType::kInt64: CastFrom<int64_t>(s, d, n, to); break;
    case TensorType::kFloat32: CastFrom<float>(s, d, n, to); break;
    case TensorType::kFloat64: CastFrom<double>(s, d, n, to); break;
    default: break;
  }
  return out;
}

Result<TensorType> GetNumericType(const nlohmann::json& spec, const std::string& op, const std::string& key,
                                  const std::string& fallback) {
  MR_ASSIGN_OR_RETURN(std::string name, GetString(spec, op, key.c_str(), fallback));
  if (name.empty()) return BadParameter(op, key.c_str(), "is required");
  auto t = ParseTensorType(name);
  if (!t.ok()) return t.status().WithContext(op);
  if (!IsNumeric(*t))
    return BadParameter(op, key.c_str(), "must be a numeric type, got " + name);
  return *t;
}

Result<std::unique_ptr<TensorOp>> TypeCastOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "TypeCast", {"type"}));
  MR_ASSIGN_OR_RETURN(TensorType t, GetNumericType(spec, "TypeCast", "type", ""));
  return std::unique_ptr<TensorOp>(new TypeCastOp(t));
}

Result<Tensor> TypeCastOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  return CastTensor(input, to_, "TypeCast");
}

Result<Tensor> TypeCastOp::ApplyInto(Tensor input, std::mt19937_64& /*rng*/, const OutputSlot& slot) const {
  return CastTensor(input, to_, "TypeCast", &slot);
}

}  // namespace mindrecord::ops
