#include "pipeline/ops/augment.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/color_adjust.h"
#include "pipeline/ops/cv_util.h"
#include "pipeline/ops/warp.h"

namespace mindrecord::ops {

namespace {


// out = table[x] per value, for an image already checked.
Tensor Lut(const Tensor& img, const uint8_t (&table)[256]) {
  Tensor out = Tensor::Make(img.type(), img.shape());
  const uint8_t* src = img.data();
  uint8_t* dst = out.MutableData();
  for (size_t i = 0, n = img.size_bytes(); i < n; ++i) dst[i] = table[src[i]];
  return out;
}

// MindSpore's ComputeUpperAndLowerPercentiles: cuts `percent` of the pixels
// counted in `hist` from its low end, then as many from its high end
// (counted before either cut, in float), and returns the lowest and highest
// levels left (hi < lo when none is).
void CutPercentiles(int64_t (&hist)[256], int percent, int* lo, int* hi) {
  int64_t n = 0;
  for (int64_t h : hist) n += h;
  const auto cut_n = static_cast<int64_t>((static_cast<float>(percent) / 100.0f) * static_cast<float>(n));
  int64_t cut = cut_n;
  for (int v = 0; v < 256 && cut > 0; ++v) {
    const int64_t take = std::min(cut, hist[v]);
    hist[v] -= take;
    cut -= take;
  }
  cut = cut_n;
  for (int v = 255; v >= 0 && cut > 0; --v) {
    const int64_t take = std::min(cut, hist[v]);
    hist[v] -= take;
    cut -= take;
  }
  *lo = 0;
  *hi = 255;
  while (*lo < *hi && hist[*lo] == 0) ++*lo;
  while (*hi >= 0 && hist[*hi] == 0) --*hi;
}

}  // namespace

Result<Tensor> Posterize(const Tensor& img, int bits, const std::string& op) {
  if (bits < 0 || bits > 8) return Status::InvalidArgument(op + ": posterize bits must be in [0, 8]");
  MR_RETURN_IF_ERROR(CheckImage(img, op, false).status());
  const uint8_t mask = static_cast<uint8_t>(~((1u << (8 - bits)) - 1u));
  uint8_t table[256];
  for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(i & mask);
  return Lut(img, table);
}

Result<Tensor> Solarize(const Tensor& img, double lo, double hi, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckGrayOrRgb(img, op).status());
  uint8_t table[256];
  for (int i = 0; i < 256; ++i) {
    const bool inside = lo == hi ? i >= lo : (i >= lo && i <= hi);
    table[i] = static_cast<uint8_t>(inside ? 255 - i : i);
  }
  return Lut(img, table);
}

Result<Tensor> Solarize(const Tensor& img, double threshold, const std::string& op) {
  return Solarize(img, threshold, threshold, op);
}

Result<Tensor> Invert(const Tensor& img, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckRgb(img, op).status());
  uint8_t table[256];
  for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(255 - i);
  return Lut(img, table);
}

Result<Tensor> AutoContrast(const Tensor& img, double cutoff, const std::vector<int>& ignore,
                            const std::string& op) {
  if (!(cutoff >= 0 && cutoff < 50)) return Status::InvalidArgument(op + ": cutoff must be in [0, 50)");
  for (int v : ignore)
    if (v < 0 || v > 255) return Status::InvalidArgument(op + ": ignore values must be in [0, 255]");
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckGrayOrRgb(img, op));
  Tensor out = Tensor::Make(img.type(), img.shape());
  const uint8_t* src = img.data();
  uint8_t* dst = out.MutableData();
  const size_t px = static_cast<size_t>(d.h) * d.w;
  for (int c = 0; c < d.c; ++c) {
    int64_t hist[256] = {0};  // 64-bit: an image may hold more than 2^31 pixels of one level
    for (size_t i = 0; i < px; ++i) ++hist[src[i * d.c + c]];
    for (int v : ignore) hist[v] = 0;
    int lo = 0, hi = 255;
    CutPercentiles(hist, static_cast<int>(cutoff), &lo, &hi);
    uint8_t table[256];
    if (hi <= lo) {
      for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(i);
    } else {
      // float arithmetic and truncation, as MindSpore's AutoContrast
      const float scale = 255.0f / static_cast<float>(hi - lo), offset = -static_cast<float>(lo) * scale;
      for (int i = 0; i < 256; ++i)
        table[i] = static_cast<uint8_t>(std::clamp(static_cast<int>(static_cast<float>(i) * scale + offset), 0, 255));
    }
    for (size_t i = 0; i < px; ++i) dst[i * d.c + c] = table[src[i * d.c + c]];
  }
  return out;
}

Result<Tensor> AutoContrast(const Tensor& img, const std::string& op) { return AutoContrast(img, 0.0, {}, op); }

Result<Tensor> Equalize(const Tensor& img, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckGrayOrRgb(img, op));
  Tensor out = Tensor::Make(img.type(), img.shape());
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    std::vector<cv::Mat> planes;
    cv::split(AsMat(img, d), planes);
    for (auto& p : planes) cv::equalizeHist(p, p);
    cv::Mat dst = AsMat(out, d);
    cv::merge(planes, dst);
  }));
  return out;
}

Result<Tensor> Sharpness(const Tensor& img, double factor, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(img, op, false));
  Tensor out = Tensor::Make(img.type(), img.shape());
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat src = AsMat(img, d);
    cv::Mat kernel(3, 3, CV_32F, cv::Scalar::all(1.0 / 13));
    kernel.at<float>(1, 1) = 5.0f / 13;
    cv::Mat smooth;
    cv::filter2D(src, smooth, -1, kernel);
    src.row(0).copyTo(smooth.row(0));
    src.row(d.h - 1).copyTo(smooth.row(d.h - 1));
    src.col(0).copyTo(smooth.col(0));
    src.col(d.w - 1).copyTo(smooth.col(d.w - 1));
    cv::Mat dst = AsMat(out, d);
    cv::addWeighted(src, factor, smooth, 1.0 - factor, 0.0, dst);
  }));
  return out;
}

Result<Tensor> ApplyAugment(const Tensor& img, const std::string& name, double magnitude, Interpolation interp,
                            const FillValue& fill, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckRgb(img, op));
  // MindSpore passes the shear as magnitude * 180 / pi degrees, which its
  // affine matrix turns back into tan(magnitude).
  if (name == "ShearX") return AffineImage(img, d, 0, 0, 0, 1, magnitude * 180 / std::numbers::pi, 0, interp, fill, op);
  if (name == "ShearY") return AffineImage(img, d, 0, 0, 0, 1, 0, magnitude * 180 / std::numbers::pi, interp, fill, op);
  if (name == "TranslateX")
    return AffineImage(img, d, 0, static_cast<int>(magnitude), 0, 1, 0, 0, interp, fill, op);
  if (name == "TranslateY")
    return AffineImage(img, d, 0, 0, static_cast<int>(magnitude), 1, 0, 0, interp, fill, op);
  if (name == "Rotate") return RotateImage(img, d, magnitude, std::nullopt, interp, false, fill, op);
  if (name == "Brightness") return AdjustBrightness(img, 1 + magnitude, op);
  if (name == "Color") return AdjustSaturation(img, 1 + magnitude, op);
  if (name == "Contrast") return AdjustContrast(img, 1 + magnitude, op);
  if (name == "Sharpness") return Sharpness(img, 1 + magnitude, op);
  if (name == "Posterize") return Posterize(img, static_cast<int>(magnitude), op);
  if (name == "Solarize") return Solarize(img, magnitude, op);
  if (name == "AutoContrast") return AutoContrast(img, op);
  if (name == "Equalize") return Equalize(img, op);
  if (name == "Invert") return Invert(img, op);
  if (name == "Identity") return img;
  return Status::InvalidArgument(op + ": unknown augmentation '" + name + "'");
}

}  // namespace mindrecord::ops
