#include "pipeline/ops/jpeg.h"

#include "pipeline/ops/cv_util.h"

#include <turbojpeg.h>

#include <memory>
#include <string>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

// One decompressor per thread: a tjhandle is not safe to share, and creating
// one per image costs more than decoding a thumbnail.
struct DecompressorHolder {
  tjhandle h = tjInitDecompress();
  ~DecompressorHolder() {
    if (h) tjDestroy(h);
  }
};
thread_local DecompressorHolder t_decompressor;

tjhandle ThreadDecompressor() { return t_decompressor.h; }

// The message of the failed call; the handle is then replaced: libturbojpeg
// leaves a handle whose header read failed mid-stream in that state, and the
// next image read with it fails too ("Bogus Huffman table definition").
std::string TjError(tjhandle h) {
  std::string msg = tjGetErrorStr2(h);
  if (h == t_decompressor.h) {
    tjDestroy(t_decompressor.h);
    t_decompressor.h = tjInitDecompress();
  }
  return msg;
}

Result<Tensor> DecodeWithOpenCv(const uint8_t* data, size_t size, const char* op) {
  Tensor out;
  cv::Mat bgr;
  Status st = CatchCv(op, [&] {
    cv::Mat buf(1, static_cast<int>(size), CV_8UC1, const_cast<uint8_t*>(data));
    bgr = cv::imdecode(buf, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);  // as libturbojpeg: no EXIF rotation
    if (bgr.empty()) return;
    out = Tensor::Make(TensorType::kUInt8, {bgr.rows, bgr.cols, 3});
    cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, out.MutableData());
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  });
  MR_RETURN_IF_ERROR(st);
  if (!out.defined())
    return Status::InvalidArgument(std::string(op) + ": cannot decode image (" + std::to_string(size) +
                                   " bytes): not a format OpenCV or libturbojpeg reads");
  return out;
}

}  // namespace

bool LooksLikeJpeg(const uint8_t* data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

Result<ImageHeader> ReadImageHeader(const uint8_t* data, size_t size) {
  ImageHeader hdr;
  if (LooksLikeJpeg(data, size)) {
    tjhandle h = ThreadDecompressor();
    if (!h) return Status::Internal("tjInitDecompress failed");
    int w = 0, ht = 0, subsamp = 0, colorspace = 0;
    if (tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &ht, &subsamp, &colorspace) != 0)
      return Status::InvalidArgument("bad JPEG header: " + TjError(h));
    if (w <= 0 || ht <= 0) return Status::InvalidArgument("bad JPEG header: no image in the data (truncated?)");
    hdr.width = w;
    hdr.height = ht;
    hdr.is_jpeg = true;
    return hdr;
  }
  MR_ASSIGN_OR_RETURN(Tensor t, DecodeWithOpenCv(data, size, "ReadImageHeader"));
  hdr.height = static_cast<int>(t.shape()[0]);
  hdr.width = static_cast<int>(t.shape()[1]);
  return hdr;
}

JpegScale ChooseJpegScale(int width, int height, int min_w, int min_h, bool all_factors) {
  int n = 0;
  const tjscalingfactor* f = tjGetScalingFactors(&n);
  JpegScale best;  // 1/1
  if (!f) return best;
  for (int i = 0; i < n; ++i) {
    JpegScale s{f[i].num, f[i].denom};
    if (s.num * 1 > s.denom) continue;  // upscaling never helps
    bool pow2 = s.num == 1 && (s.denom == 1 || s.denom == 2 || s.denom == 4 || s.denom == 8);
    if (!all_factors && !pow2) continue;
    if (min_w > 0 && s.Scaled(width) < min_w) continue;
    if (min_h > 0 && s.Scaled(height) < min_h) continue;
    // Smaller output wins: compare num/denom.
    if (s.num * best.denom < best.num * s.denom) best = s;
  }
  return best;
}

Result<Tensor> DecodeJpeg(const uint8_t* data, size_t size, JpegScale scale) {
  tjhandle h = ThreadDecompressor();
  if (!h) return Status::Internal("tjInitDecompress failed");
  int w = 0, ht = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &ht, &subsamp, &colorspace) != 0)
    return Status::InvalidArgument("bad JPEG header: " + TjError(h));
  // libturbojpeg accepts a tables-only (or truncated) stream with size 0x0.
  if (w <= 0 || ht <= 0) return Status::InvalidArgument("bad JPEG header: no image in the data (truncated?)");
  const int sw = scale.Scaled(w), sh = scale.Scaled(ht);
  Tensor out = Tensor::Make(TensorType::kUInt8, {sh, sw, 3});
  int rc = tjDecompress2(h, data, static_cast<unsigned long>(size), out.MutableData(), sw, sw * 3, sh, TJPF_RGB, 0);
  if (rc != 0 && tjGetErrorCode(h) == TJERR_FATAL)
    return Status::InvalidArgument("JPEG decode failed: " + TjError(h));
  return out;
}

Result<Tensor> DecodeImage(const uint8_t* data, size_t size, int min_w, int min_h, const char* op,
                           bool all_factors) {
  if (size == 0) return Status::InvalidArgument(std::string(op) + ": empty image bytes");
  if (LooksLikeJpeg(data, size)) {
    JpegScale scale;
    if (min_w > 0 || min_h > 0) {
      tjhandle h = ThreadDecompressor();
      int w = 0, ht = 0, subsamp = 0, colorspace = 0;
      if (h && tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &ht, &subsamp, &colorspace) == 0)
        scale = ChooseJpegScale(w, ht, min_w, min_h, all_factors);
      else if (h)
        (void)TjError(h);
    }
    auto r = DecodeJpeg(data, size, scale);
    if (r.ok()) return r;
    // A JPEG libturbojpeg refuses (e.g. arithmetic-coded, CMYK quirks): try OpenCV.
    auto cv = DecodeWithOpenCv(data, size, op);
    if (cv.ok()) return cv;
    return r.status().WithContext(op);
  }
  return DecodeWithOpenCv(data, size, op);
}

}  // namespace mindrecord::ops
