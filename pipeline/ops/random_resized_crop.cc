#include "pipeline/ops/random_resized_crop.h"

#include "pipeline/ops/cv_util.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

Result<RandomResizedCropParams> RandomResizedCropParams::FromJson(const nlohmann::json& spec,
                                                                  const std::string& op) {
  RandomResizedCropParams p;
  MR_ASSIGN_OR_RETURN(p.size, GetSize(spec, op, "size", true));
  MR_ASSIGN_OR_RETURN(std::vector<double> scale, GetNumbers(spec, op, "scale", {0.08, 1.0}));
  MR_ASSIGN_OR_RETURN(std::vector<double> ratio, GetNumbers(spec, op, "ratio", {3.0 / 4.0, 4.0 / 3.0}));
  // MindSpore allows lo == 0 (a zero-area draw is one failed attempt).
  if (scale.size() != 2 || !(scale[0] >= 0) || scale[0] > scale[1] || !(scale[1] > 0))
    return Status::InvalidArgument(op + ": parameter 'scale' must be [lo, hi] with 0 <= lo <= hi, hi > 0");
  if (ratio.size() != 2 || ratio[0] <= 0 || ratio[0] > ratio[1])
    return Status::InvalidArgument(op + ": parameter 'ratio' must be [lo, hi] with 0 < lo <= hi");
  p.scale_lo = scale[0];
  p.scale_hi = scale[1];
  p.ratio_lo = ratio[0];
  p.ratio_hi = ratio[1];
  MR_ASSIGN_OR_RETURN(p.interp, GetInterpolation(spec, op));
  MR_ASSIGN_OR_RETURN(double attempts, GetNumber(spec, op, "attempts", 10));
  if (attempts < 1 || attempts > 1000 || attempts != std::floor(attempts))
    return Status::InvalidArgument(op + ": parameter 'attempts' must be an integer in [1, 1000]");
  p.attempts = static_cast<int>(attempts);
  return p;
}

void RandomResizedCropParams::ToJson(nlohmann::json* j) const {
  (*j)["size"] = size.ToJson();
  (*j)["scale"] = {scale_lo, scale_hi};
  (*j)["ratio"] = {ratio_lo, ratio_hi};
  (*j)["interpolation"] = InterpolationName(interp);
  (*j)["attempts"] = attempts;
}

CropRect SampleRandomResizedCrop(int height, int width, const RandomResizedCropParams& p, std::mt19937_64& rng) {
  const double area = static_cast<double>(height) * width;
  const double log_lo = std::log(p.ratio_lo), log_hi = std::log(p.ratio_hi);
  for (int i = 0; i < p.attempts; ++i) {
    const double target_area = area * RandUniform(rng, p.scale_lo, p.scale_hi);
    const double aspect = std::exp(RandUniform(rng, log_lo, log_hi));
    const int w = static_cast<int>(std::lround(std::sqrt(target_area * aspect)));
    const int h = static_cast<int>(std::lround(std::sqrt(target_area / aspect)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      CropRect r;
      r.h = h;
      r.w = w;
      r.top = static_cast<int>(RandInt(rng, 0, height - h));
      r.left = static_cast<int>(RandInt(rng, 0, width - w));
      return r;
    }
  }
  // Fallback: central crop with the aspect ratio clamped into range.
  CropRect r;
  const double in_ratio = static_cast<double>(width) / height;
  if (in_ratio < p.ratio_lo) {
    r.w = width;
    r.h = std::max(1, std::min(height, static_cast<int>(std::lround(width / p.ratio_lo))));
  } else if (in_ratio > p.ratio_hi) {
    r.h = height;
    r.w = std::max(1, std::min(width, static_cast<int>(std::lround(height * p.ratio_hi))));
  } else {
    r.w = width;
    r.h = height;
  }
  r.top = (height - r.h) / 2;
  r.left = (width - r.w) / 2;
  return r;
}

Result<std::unique_ptr<TensorOp>> RandomResizedCropOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomResizedCrop";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "scale", "ratio", "interpolation", "attempts"}));
  MR_ASSIGN_OR_RETURN(RandomResizedCropParams p, RandomResizedCropParams::FromJson(spec, op));
  return std::unique_ptr<TensorOp>(new RandomResizedCropOp(std::move(p)));
}

nlohmann::json RandomResizedCropOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomResizedCrop"}};
  p_.ToJson(&j);
  return j;
}

Result<Tensor> RandomResizedCropOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomResizedCrop", true));
  const CropRect r = SampleRandomResizedCrop(d.h, d.w, p_, rng);
  // Resize straight from the window (an ROI view, no copy).
  ImageDims od = d;
  od.h = static_cast<int>(p_.size.h);
  od.w = static_cast<int>(p_.size.w);
  Tensor out = MakeImage(input.type(), d, od.h, od.w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv("RandomResizedCrop", [&] {
    cv::Mat roi = AsMat(input, d)(cv::Rect(r.left, r.top, r.w, r.h));
    cv::Mat dst = AsMat(out, od);
    cv::resize(roi, dst, dst.size(), 0, 0, ToCvInterpolation(p_.interp));
  }));
  return out;
}

}  // namespace mindrecord::ops
