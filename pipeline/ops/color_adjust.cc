#include "pipeline/ops/color_adjust.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

const char* const kNames[] = {"brightness", "contrast", "saturation", "hue"};

Tensor NewLike(const Tensor& img) { return Tensor::Make(img.type(), img.shape()); }

}  // namespace

Result<ImageDims> CheckRgb(const Tensor& t, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(t, op, false));
  if (!d.has_channel_dim || d.c != 3)
    return Status::InvalidArgument(op + ": expected an HWC image with 3 channels, got " + t.DebugString());
  return d;
}

Result<ImageDims> CheckGrayOrRgb(const Tensor& t, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(t, op, false));
  if (d.c != 1 && d.c != 3)
    return Status::InvalidArgument(op + ": expected an HW image or an HWC one with 1 or 3 channels, got " +
                                   t.DebugString());
  return d;
}

Result<Tensor> AdjustBrightness(const Tensor& img, double factor, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(img, op));
  Tensor out = NewLike(img);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat dst = AsMat(out, d);
    AsMat(img, d).convertTo(dst, -1, factor, 0);
  }));
  return out;
}

Result<Tensor> AdjustContrast(const Tensor& img, double factor, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(img, op));
  Tensor out = NewLike(img);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat gray;
    cv::cvtColor(AsMat(img, d), gray, cv::COLOR_RGB2GRAY);
    const int mean = static_cast<int>(cv::mean(gray)[0] + 0.5);
    cv::Mat dst = AsMat(out, d);
    AsMat(img, d).convertTo(dst, -1, factor, mean * (1.0 - factor));
  }));
  return out;
}

Result<Tensor> AdjustSaturation(const Tensor& img, double factor, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(img, op));
  Tensor out = NewLike(img);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat gray, gray3;
    cv::cvtColor(AsMat(img, d), gray, cv::COLOR_RGB2GRAY);
    cv::cvtColor(gray, gray3, cv::COLOR_GRAY2RGB);
    cv::Mat dst = AsMat(out, d);
    cv::addWeighted(gray3, 1.0 - factor, AsMat(img, d), factor, 0.0, dst);
  }));
  return out;
}

Result<Tensor> AdjustHue(const Tensor& img, double hue, const std::string& op) {
  if (hue < -0.5 || hue > 0.5) return Status::InvalidArgument(op + ": hue must be in [-0.5, 0.5]");
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(img, op));
  Tensor out = NewLike(img);
  out.MutableData();
  // Truncation toward zero, then wrap-around in 8 bits, as MindSpore's
  // uint8 cast of hue * 255 added to the hue byte.
  const int shift = static_cast<int>(hue * 255);
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat hsv;
    cv::cvtColor(AsMat(img, d), hsv, cv::COLOR_RGB2HSV_FULL);
    for (int y = 0; y < hsv.rows; ++y) {
      auto* row = hsv.ptr<cv::Vec3b>(y);
      for (int x = 0; x < hsv.cols; ++x) row[x][0] = static_cast<uint8_t>((row[x][0] + shift) & 0xFF);
    }
    cv::Mat dst = AsMat(out, d);
    cv::cvtColor(hsv, dst, cv::COLOR_HSV2RGB_FULL);
  }));
  return out;
}

Result<std::unique_ptr<TensorOp>> RandomColorAdjustOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomColorAdjust";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"brightness", "contrast", "saturation", "hue"}));
  auto o = std::make_unique<RandomColorAdjustOp>();
  for (int i = 0; i < 4; ++i) {
    const bool hue = i == 3;
    MR_ASSIGN_OR_RETURN(std::vector<double> v, GetNumbers(spec, op, kNames[i], {hue ? 0.0 : 1.0, hue ? 0.0 : 1.0}));
    if (v.size() == 1) {
      if (v[0] < 0 || (hue && v[0] > 0.5))
        return Status::InvalidArgument(op + ": parameter '" + kNames[i] + "' as one number must be in " +
                                       (hue ? "[0, 0.5]" : "[0, inf)"));
      v = hue ? std::vector<double>{-v[0], v[0]} : std::vector<double>{std::max(0.0, 1 - v[0]), 1 + v[0]};
    }
    if (v.size() != 2 || v[0] > v[1] || (hue ? (v[0] < -0.5 || v[1] > 0.5) : v[0] < 0))
      return Status::InvalidArgument(op + ": parameter '" + kNames[i] + "' must be [min, max] with " +
                                     (hue ? "-0.5 <= min <= max <= 0.5" : "0 <= min <= max"));
    o->ranges_[i] = {v[0], v[1]};
  }
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomColorAdjustOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomColorAdjust"}};
  for (int i = 0; i < 4; ++i) j[kNames[i]] = {ranges_[i][0], ranges_[i][1]};
  return j;
}

Result<Tensor> RandomColorAdjustOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "RandomColorAdjust";
  MR_RETURN_IF_ERROR(CheckRgb(input, op).status());
  int order[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) std::swap(order[i], order[RandInt(rng, 0, i)]);
  Tensor img = std::move(input);
  for (int k : order) {
    const auto& r = ranges_[k];
    const double identity = k == 3 ? 0.0 : 1.0;
    if (r[0] == identity && r[1] == identity) continue;
    const double f = RandUniform(rng, r[0], r[1]);
    Result<Tensor> out = k == 0   ? AdjustBrightness(img, f, op)
                         : k == 1 ? AdjustContrast(img, f, op)
                         : k == 2 ? AdjustSaturation(img, f, op)
                                  : AdjustHue(img, f, op);
    if (!out.ok()) return out.status();
    img = std::move(out).value();
  }
  return img;
}

}  // namespace mindrecord::ops
