#include "pipeline/ops/blur.h"

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

// MindSpore's default sigma for a kernel of size k (OpenCV's own formula).
float DefaultSigma(int k) { return static_cast<float>(k * 0.15 + 0.35); }

}  // namespace

Result<std::unique_ptr<TensorOp>> GaussianBlurOp::Make(const nlohmann::json& spec) {
  const std::string op = "GaussianBlur";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"kernel_size", "sigma"}));
  if (!spec.contains("kernel_size")) return Status::InvalidArgument(op + ": parameter 'kernel_size' is required");
  MR_ASSIGN_OR_RETURN(std::vector<double> k, GetNumbers(spec, op, "kernel_size", {}));
  if (k.size() == 1) k.push_back(k[0]);
  const std::string kernel_form = op + ": parameter 'kernel_size' must be an odd integer k or [kx, ky] in [1, 2^24]";
  if (k.size() != 2) return Status::InvalidArgument(kernel_form);
  for (double v : k)
    if (!(v >= 1 && v <= (1 << 24)) || v != static_cast<int>(v) || static_cast<int>(v) % 2 == 0)
      return Status::InvalidArgument(kernel_form + ", got " + spec["kernel_size"].dump());
  auto o = std::make_unique<GaussianBlurOp>();
  o->kx_ = static_cast<int>(k[0]);
  o->ky_ = static_cast<int>(k[1]);
  std::vector<double> s;
  if (spec.contains("sigma") && !spec["sigma"].is_null()) {
    MR_ASSIGN_OR_RETURN(s, GetNumbers(spec, op, "sigma", {}));
    if (s.empty() || s.size() > 2)
      return Status::InvalidArgument(op + ": parameter 'sigma' must be null, a number or [sx, sy]");
    for (double v : s)
      if (v < 0) return Status::InvalidArgument(op + ": parameter 'sigma' must be >= 0");
  }
  o->sx_ = !s.empty() && s[0] > 0 ? static_cast<float>(s[0]) : DefaultSigma(o->kx_);
  o->sy_ = s.size() < 2 ? o->sx_ : s[1] > 0 ? static_cast<float>(s[1]) : DefaultSigma(o->ky_);
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json GaussianBlurOp::ToJson() const {
  return {{"op", "GaussianBlur"}, {"kernel_size", {kx_, ky_}}, {"sigma", {double{sx_}, double{sy_}}}};
}

Result<Tensor> GaussianBlurOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "GaussianBlur", true));
  Tensor out = MakeImage(input.type(), d, d.h, d.w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv("GaussianBlur", [&] {
    cv::Mat dst = AsMat(out, d);
    cv::GaussianBlur(AsMat(input, d), dst, cv::Size(kx_, ky_), sx_, sy_);
  }));
  return out;
}

}  // namespace mindrecord::ops
