#include "pipeline/ops/resize.h"

#include "pipeline/ops/cv_util.h"

#include <opencv2/imgproc.hpp>

namespace mindrecord::ops {

void ResizeTarget(const Size2& size, int h, int w, int* out_h, int* out_w) {
  if (!size.from_int) {
    *out_h = static_cast<int>(size.h);
    *out_w = static_cast<int>(size.w);
    return;
  }
  const int64_t s = size.h;
  if (h <= w) {
    *out_h = static_cast<int>(s);
    *out_w = static_cast<int>(std::max<int64_t>(1, s * w / h));
  } else {
    *out_w = static_cast<int>(s);
    *out_h = static_cast<int>(std::max<int64_t>(1, s * h / w));
  }
}

Result<Tensor> ResizeImage(const Tensor& img, const ImageDims& d, int out_h, int out_w, Interpolation interp,
                           const std::string& op) {
  if (out_h == d.h && out_w == d.w) return img;
  Tensor out = MakeImage(img.type(), d, out_h, out_w);
  ImageDims od = d;
  od.h = out_h;
  od.w = out_w;
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat src = AsMat(img, d);
    cv::Mat dst = AsMat(out, od);
    out.MutableData();  // sole owner: no copy
    cv::resize(src, dst, cv::Size(out_w, out_h), 0, 0, ToCvInterpolation(interp));
  }));
  return out;
}

Result<Interpolation> GetInterpolation(const nlohmann::json& spec, const std::string& op) {
  MR_ASSIGN_OR_RETURN(std::string name, GetString(spec, op, "interpolation", "bilinear"));
  auto r = ParseInterpolation(name);
  if (!r.ok()) return r.status().WithContext(op);
  return r;
}

Result<std::unique_ptr<TensorOp>> ResizeOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Resize", {"size", "interpolation"}));
  MR_ASSIGN_OR_RETURN(Size2 size, GetSize(spec, "Resize", "size", true));
  MR_ASSIGN_OR_RETURN(Interpolation interp, GetInterpolation(spec, "Resize"));
  return std::unique_ptr<TensorOp>(new ResizeOp(size, interp));
}

nlohmann::json ResizeOp::ToJson() const {
  return {{"op", "Resize"}, {"size", size_.ToJson()}, {"interpolation", InterpolationName(interp_)}};
}

Result<Tensor> ResizeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Resize", true));
  int oh = 0, ow = 0;
  ResizeTarget(size_, d.h, d.w, &oh, &ow);
  return ResizeImage(input, d, oh, ow, interp_, "Resize");
}

}  // namespace mindrecord::ops
