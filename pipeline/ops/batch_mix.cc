#include "pipeline/ops/batch_mix.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "pipeline/ops/layout.h"

namespace mindrecord::ops {

namespace {

struct Batch {
  int64_t n = 0;
  int64_t image_elems = 0;  // per image
  int64_t label_elems = 0;  // per row of labels
};

// Checks images and labels for `op`; `nchw` says where channels are (null:
// either position, as MixUpBatch).
Result<Batch> CheckBatch(const Tensor& images, const Tensor& labels, const bool* nchw, const std::string& op) {
  if (!images.defined() || images.shape().size() != 4 ||
      (images.type() != TensorType::kUInt8 && images.type() != TensorType::kFloat32))
    return Status::InvalidArgument(op + ": images must be a batch of uint8 or float32 images [N, H, W, C] or "
                                   "[N, C, H, W] (map it after batch), got " + images.DebugString());
  const auto& s = images.shape();
  auto channels_ok = [](int64_t c) { return c == 1 || c == 3; };
  if (nchw == nullptr ? !(channels_ok(s[1]) || channels_ok(s[3])) : !channels_ok(*nchw ? s[1] : s[3]))
    return Status::InvalidArgument(op + ": images must have 1 or 3 channels in " +
                                   (nchw == nullptr ? std::string("NHWC or NCHW") : *nchw ? "NCHW" : "NHWC") +
                                   " layout, got " + images.DebugString());
  if (!labels.defined() || labels.type() == TensorType::kBytes || labels.type() == TensorType::kString ||
      (labels.shape().size() != 2 && labels.shape().size() != 3) || labels.shape()[0] != s[0])
    return Status::InvalidArgument(op + ": labels must be one-hot [N, K] or [N, L, K] with N = " +
                                   std::to_string(s[0]) + " (apply OneHot before batch), got " + labels.DebugString());
  Batch b;
  b.n = s[0];
  b.image_elems = s[0] ? images.num_elements() / s[0] : 0;
  b.label_elems = s[0] ? labels.num_elements() / s[0] : 0;
  return b;
}

std::vector<int64_t> Permutation(int64_t n, std::mt19937_64& rng) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[RandInt(rng, 0, i)]);
  return p;
}

// out = a * x + (1 - a) * y over n elements.
template <typename T>
void Blend(const T* x, const T* y, T* out, int64_t n, double a) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = a * x[i] + (1 - a) * y[i];
    if constexpr (std::is_same_v<T, uint8_t>)
      out[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0));
    else
      out[i] = static_cast<T>(v);
  }
}

void BlendImages(const Tensor& src, Tensor* dst, int64_t i, int64_t j, int64_t elems, double a) {
  if (src.type() == TensorType::kUInt8)
    Blend(src.data() + i * elems, src.data() + j * elems, dst->MutableData() + i * elems, elems, a);
  else
    Blend(src.data_as<float>() + i * elems, src.data_as<float>() + j * elems,
          dst->mutable_data_as<float>() + i * elems, elems, a);
}

Result<double> GetAlpha(const nlohmann::json& spec, const std::string& op) {
  MR_ASSIGN_OR_RETURN(double alpha, GetNumber(spec, op, "alpha", 1.0));
  if (!(alpha > 0) || alpha > 1e6) return Status::InvalidArgument(op + ": parameter 'alpha' must be > 0");
  return alpha;
}

}  // namespace

Result<Tensor> BatchMixOp::Apply(Tensor /*input*/, std::mt19937_64& /*rng*/) const {
  return Status::InvalidArgument(name() + ": takes 2 columns (images, labels); map it with input_columns=[image, "
                                 "label] after batch");
}

Result<std::unique_ptr<TensorOp>> MixUpBatchOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "MixUpBatch", {"alpha"}));
  MR_ASSIGN_OR_RETURN(double alpha, GetAlpha(spec, "MixUpBatch"));
  return std::unique_ptr<TensorOp>(new MixUpBatchOp(alpha));
}

Result<std::vector<Tensor>> MixUpBatchOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  const std::string op = "MixUpBatch";
  if (inputs.size() != 2) return Status::InvalidArgument(op + ": takes 2 columns (images, labels)");
  MR_ASSIGN_OR_RETURN(Batch b, CheckBatch(inputs[0], inputs[1], nullptr, op));
  MR_ASSIGN_OR_RETURN(Tensor labels, CastTensor(inputs[1], TensorType::kFloat32, op));
  const double lam = RandBeta(rng, alpha_, alpha_);
  const std::vector<int64_t> p = Permutation(b.n, rng);
  Tensor images = Tensor::Make(inputs[0].type(), inputs[0].shape());
  Tensor out_labels = Tensor::Make(TensorType::kFloat32, labels.shape());
  for (int64_t i = 0; i < b.n; ++i) {
    BlendImages(inputs[0], &images, i, p[i], b.image_elems, lam);
    Blend(labels.data_as<float>() + i * b.label_elems, labels.data_as<float>() + p[i] * b.label_elems,
          out_labels.mutable_data_as<float>() + i * b.label_elems, b.label_elems, lam);
  }
  std::vector<Tensor> out;
  out.push_back(std::move(images));
  out.push_back(std::move(out_labels));
  return out;
}

Result<std::unique_ptr<TensorOp>> MixUpOp::Make(const nlohmann::json& spec) {
  const std::string op = "MixUp";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"batch_size", "alpha"}));
  MR_ASSIGN_OR_RETURN(int batch_size, GetIntIn(spec, op, "batch_size", 1, 16777216));
  if (!spec.contains("alpha")) return Status::InvalidArgument(op + ": parameter 'alpha' is required");
  MR_ASSIGN_OR_RETURN(double alpha, GetAlpha(spec, op));
  return std::unique_ptr<TensorOp>(new MixUpOp(batch_size, alpha));
}

Result<std::vector<Tensor>> MixUpOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  const std::string op = "MixUp";
  if (inputs.size() != 2) return Status::InvalidArgument(op + ": takes 2 columns (images, labels)");
  const Tensor& images = inputs[0];
  const Tensor& labels = inputs[1];
  const int64_t n = batch_size_;
  auto numeric = [](const Tensor& t) {
    return t.defined() && t.type() != TensorType::kBytes && t.type() != TensorType::kString;
  };
  if (!numeric(images) || images.shape().size() != 4 || images.shape()[0] != n)
    return Status::InvalidArgument(op + ": images must be a numeric batch of rank 4 with batch_size = " +
                                   std::to_string(n) + " images (map it after batch), got " + images.DebugString());
  if (!numeric(labels) || labels.shape().size() != 2 || labels.shape()[0] != n)
    return Status::InvalidArgument(op + ": labels must be one-hot [batch_size = " + std::to_string(n) +
                                   ", K] (apply OneHot before batch), got " + labels.DebugString());
  MR_ASSIGN_OR_RETURN(Tensor x, CastTensor(images, TensorType::kFloat64, op));
  MR_ASSIGN_OR_RETURN(Tensor y, CastTensor(labels, TensorType::kFloat64, op));
  std::vector<double> lam(static_cast<size_t>(n));
  for (double& l : lam) l = RandBeta(rng, alpha_, alpha_);
  Tensor out_x = Tensor::Make(TensorType::kFloat64, x.shape());
  Tensor out_y = Tensor::Make(TensorType::kFloat64, y.shape());
  const int64_t xe = x.num_elements() / n, ye = y.num_elements() / n;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = (i + 1) % n;
    Blend(x.data_as<double>() + i * xe, x.data_as<double>() + j * xe, out_x.mutable_data_as<double>() + i * xe, xe,
          lam[i]);
    Blend(y.data_as<double>() + i * ye, y.data_as<double>() + j * ye, out_y.mutable_data_as<double>() + i * ye, ye,
          lam[i]);
  }
  std::vector<Tensor> out;
  out.push_back(std::move(out_x));
  out.push_back(std::move(out_y));
  return out;
}

Result<std::unique_ptr<TensorOp>> CutMixBatchOp::Make(const nlohmann::json& spec) {
  const std::string op = "CutMixBatch";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"image_batch_format", "alpha", "prob"}));
  auto o = std::make_unique<CutMixBatchOp>();
  if (!spec.contains("image_batch_format"))
    return Status::InvalidArgument(op + ": parameter 'image_batch_format' (NHWC or NCHW) is required");
  auto format = GetString(spec, op, "image_batch_format", "");
  if (!format.ok()) return format.status();
  if (*format != "NHWC" && *format != "NCHW")
    return Status::InvalidArgument(op + ": parameter 'image_batch_format' must be NHWC or NCHW, got '" + *format + "'");
  o->nchw_ = *format == "NCHW";
  MR_ASSIGN_OR_RETURN(o->alpha_, GetAlpha(spec, op));
  MR_ASSIGN_OR_RETURN(o->prob_, GetProbability(spec, op, "prob", 1.0));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<std::vector<Tensor>> CutMixBatchOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  const std::string op = "CutMixBatch";
  if (inputs.size() != 2) return Status::InvalidArgument(op + ": takes 2 columns (images, labels)");
  MR_ASSIGN_OR_RETURN(Batch b, CheckBatch(inputs[0], inputs[1], &nchw_, op));
  MR_ASSIGN_OR_RETURN(Tensor labels, CastTensor(inputs[1], TensorType::kFloat32, op));
  const auto& s = inputs[0].shape();
  const int h = static_cast<int>(nchw_ ? s[2] : s[1]), w = static_cast<int>(nchw_ ? s[3] : s[2]);
  const int c = static_cast<int>(nchw_ ? s[1] : s[3]);
  const size_t es = TensorTypeSize(inputs[0].type());
  const std::vector<int64_t> p = Permutation(b.n, rng);
  Tensor images = inputs[0];
  uint8_t* dst = images.MutableData();  // a copy: the source images stay as they came
  const uint8_t* src = inputs[0].data();
  Tensor out_labels = labels;
  float* lab = out_labels.mutable_data_as<float>();
  const float* lab_src = labels.data_as<float>();
  for (int64_t i = 0; i < b.n; ++i) {
    const double lam = RandBeta(rng, alpha_, alpha_);
    if (RandUniform(rng, 0.0, 1.0) >= prob_) continue;
    // MindSpore's GetCropBox.
    const double cut_ratio = 1 - lam;
    const int cut_w = static_cast<int>(w * cut_ratio), cut_h = static_cast<int>(h * cut_ratio);
    const int cx = static_cast<int>(RandInt(rng, 0, w)), cy = static_cast<int>(RandInt(rng, 0, h));
    const int x = std::clamp(cx - cut_w / 2, 0, w - 1), y = std::clamp(cy - cut_h / 2, 0, h - 1);
    const int x2 = std::clamp(cx + cut_w / 2, 0, w - 1), y2 = std::clamp(cy + cut_h / 2, 0, h - 1);
    const int bw = std::clamp(x2 - x, 1, std::max(1, w - 1)), bh = std::clamp(y2 - y, 1, std::max(1, h - 1));
    const size_t image_bytes = static_cast<size_t>(b.image_elems) * es;
    const uint8_t* from = src + static_cast<size_t>(p[i]) * image_bytes;
    uint8_t* to = dst + static_cast<size_t>(i) * image_bytes;
    for (int k = 0; k < (nchw_ ? c : 1); ++k)
      for (int yy = y; yy < std::min(h, y + bh); ++yy) {
        const int x_end = std::min(w, x + bw);
        const size_t row = nchw_ ? (static_cast<size_t>(k) * h + yy) * w : static_cast<size_t>(yy) * w;
        const size_t px = nchw_ ? es : es * c;
        std::memcpy(to + (row + x) * px, from + (row + x) * px, static_cast<size_t>(x_end - x) * px);
      }
    const double a = 1.0 - static_cast<double>(bw) * bh / (static_cast<double>(h) * w);
    Blend(lab_src + i * b.label_elems, lab_src + p[i] * b.label_elems, lab + i * b.label_elems, b.label_elems, a);
  }
  std::vector<Tensor> out;
  out.push_back(std::move(images));
  out.push_back(std::move(out_labels));
  return out;
}

}  // namespace mindrecord::ops
