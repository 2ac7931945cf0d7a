#include "pipeline/ops/fused.h"

#include "pipeline/ops/cv_util.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/decode.h"
#include "pipeline/ops/jpeg.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

namespace {

// Resizes the window `r` (in full-resolution coordinates) of `img`, decoded
// at `s`, to out_h x out_w.
// The crop window `r` (original pixels) in an image of w x h scaled by `s`:
// [x0, x1) x [y0, y1), never empty.
struct ScaledWindow {
  int x0, y0, x1, y1;
};
ScaledWindow ScaleWindow(const CropRect& r, JpegScale s, int w, int h) {
  const double f = static_cast<double>(s.num) / s.denom;
  int x0 = static_cast<int>(std::lround(r.left * f)), x1 = static_cast<int>(std::lround((r.left + r.w) * f));
  int y0 = static_cast<int>(std::lround(r.top * f)), y1 = static_cast<int>(std::lround((r.top + r.h) * f));
  x0 = std::clamp(x0, 0, w - 1);
  y0 = std::clamp(y0, 0, h - 1);
  x1 = std::clamp(x1, x0 + 1, w);
  y1 = std::clamp(y1, y0 + 1, h);
  return {x0, y0, x1, y1};
}

// Resizes the window `win` of `img` to out_h x out_w.
Result<Tensor> ResizeWindow(const Tensor& img, ScaledWindow win, int out_h, int out_w, Interpolation interp,
                            const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(img, op, false));
  const int x0 = win.x0, y0 = win.y0, x1 = win.x1, y1 = win.y1;
  ImageDims od = d;
  od.h = out_h;
  od.w = out_w;
  Tensor out = MakeImage(TensorType::kUInt8, d, out_h, out_w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat roi = AsMat(img, d)(cv::Rect(x0, y0, x1 - x0, y1 - y0));
    cv::Mat dst = AsMat(out, od);
    cv::resize(roi, dst, dst.size(), 0, 0, ToCvInterpolation(interp));
  }));
  return out;
}

Result<Tensor> ResizeScaledWindow(const Tensor& img, const CropRect& r, JpegScale s, int out_h, int out_w,
                                  Interpolation interp, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(img, op, false));
  return ResizeWindow(img, ScaleWindow(r, s, d.w, d.h), out_h, out_w, interp, op);
}

// Smallest DCT scale keeping a w x h window >= out_w x out_h.
JpegScale ScaleForWindow(int w, int h, int out_w, int out_h, bool all_factors) {
  // ChooseJpegScale works on whole-image sizes; a window of w x h scales the
  // same way, so pass the window as the "image".
  return ChooseJpegScale(w, h, out_w, out_h, all_factors);
}

}  // namespace

Result<std::unique_ptr<TensorOp>> DecodeResizeOp::Make(const nlohmann::json& spec) {
  const std::string op = "DecodeResize";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "interpolation", "all_factors"}));
  MR_ASSIGN_OR_RETURN(Size2 size, GetSize(spec, op, "size", true));
  MR_ASSIGN_OR_RETURN(Interpolation interp, GetInterpolation(spec, op));
  MR_ASSIGN_OR_RETURN(bool all, GetBool(spec, op, "all_factors", false));
  return std::unique_ptr<TensorOp>(new DecodeResizeOp(size, interp, all));
}

nlohmann::json DecodeResizeOp::ToJson() const {
  nlohmann::json j = {{"op", "DecodeResize"}, {"size", size_.ToJson()}, {"interpolation", InterpolationName(interp_)}};
  if (all_factors_) j["all_factors"] = true;
  return j;
}

Result<Tensor> DecodeResizeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  const std::string op = "DecodeResize";
  MR_RETURN_IF_ERROR(CheckEncoded(input, op));
  const uint8_t* data = input.data();
  const size_t size = input.size_bytes();
  int oh = 0, ow = 0;
  Tensor img;
  if (LooksLikeJpeg(data, size)) {
    auto hdr = ReadImageHeader(data, size);
    if (hdr.ok()) {
      ResizeTarget(size_, hdr->height, hdr->width, &oh, &ow);
      auto r = DecodeJpeg(data, size, ChooseJpegScale(hdr->width, hdr->height, ow, oh, all_factors_));
      if (r.ok()) img = std::move(r).value();
    }
  }
  if (!img.defined()) {  // other formats, or a JPEG libturbojpeg refused
    MR_ASSIGN_OR_RETURN(img, DecodeImage(data, size, 0, 0, op.c_str()));
    ResizeTarget(size_, static_cast<int>(img.shape()[0]), static_cast<int>(img.shape()[1]), &oh, &ow);
  }
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(img, op, false));
  return ResizeImage(img, d, oh, ow, interp_, op);
}

Result<std::unique_ptr<TensorOp>> DecodeRandomResizedCropOp::Make(const nlohmann::json& spec) {
  // Also MindSpore's RandomCropDecodeResize: errors name the op as the spec does.
  const std::string op = spec.value("op", std::string("DecodeRandomResizedCrop"));
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"size", "scale", "ratio", "interpolation", "attempts", "all_factors"}));
  MR_ASSIGN_OR_RETURN(RandomResizedCropParams p, RandomResizedCropParams::FromJson(spec, op));
  MR_ASSIGN_OR_RETURN(bool all, GetBool(spec, op, "all_factors", false));
  return std::unique_ptr<TensorOp>(new DecodeRandomResizedCropOp(std::move(p), all));
}

nlohmann::json DecodeRandomResizedCropOp::ToJson() const {
  nlohmann::json j = {{"op", "DecodeRandomResizedCrop"}};
  p_.ToJson(&j);
  if (all_factors_) j["all_factors"] = true;
  return j;
}

Result<Tensor> DecodeRandomResizedCropOp::Apply(Tensor input, std::mt19937_64& rng) const {
  const std::string op = "DecodeRandomResizedCrop";
  MR_RETURN_IF_ERROR(CheckEncoded(input, op));
  const uint8_t* data = input.data();
  const size_t size = input.size_bytes();
  const int oh = static_cast<int>(p_.size.h), ow = static_cast<int>(p_.size.w);
  if (LooksLikeJpeg(data, size)) {
    auto hdr = ReadImageHeader(data, size);
    if (hdr.ok()) {
      // Draw from a copy: if the fast path fails we redraw identically below.
      std::mt19937_64 probe = rng;
      const CropRect r = SampleRandomResizedCrop(hdr->height, hdr->width, p_, probe);
      const JpegScale s = ScaleForWindow(r.w, r.h, ow, oh, all_factors_);
      // Only the window's rows and columns are decoded: the same pixels as a
      // full decode, so the same output.
      const ScaledWindow win = ScaleWindow(r, s, s.Scaled(hdr->width), s.Scaled(hdr->height));
      const int ww = win.x1 - win.x0, wh = win.y1 - win.y0;
      auto part = DecodeJpegStrip(data, size, s, win.x0, win.y0, ww, wh);
      if (part.ok()) {
        rng = probe;
        return ResizeWindow(part->pixels, {part->x, part->y, part->x + ww, part->y + wh}, oh, ow, p_.interp, op);
      }
      auto img = DecodeJpeg(data, size, s);
      if (img.ok()) {
        rng = probe;
        return ResizeScaledWindow(*img, r, s, oh, ow, p_.interp, op);
      }
    }
  }
  MR_ASSIGN_OR_RETURN(Tensor img, DecodeImage(data, size, 0, 0, op.c_str()));
  return RandomResizedCropOp(p_).Apply(std::move(img), rng);
}

}  // namespace mindrecord::ops
