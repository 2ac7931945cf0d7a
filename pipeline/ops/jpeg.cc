#include "pipeline/ops/jpeg.h"

#include "pipeline/ops/cv_util.h"

#include <turbojpeg.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <memory>
#include <string>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "mindrecord/image_size.h"
#include "mindrecord/opencv_codecs.h"
#include "mindrecord/jpeg_errors.h"
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

Status CheckPixels(int64_t w, int64_t h, const char* format) {
  return CheckClaimedImageSize(ClaimedImageSize{format, w, h});
}

Result<Tensor> DecodeWithOpenCv(const uint8_t* data, size_t size, const char* op) {
  // Only an image whose header gives its size reaches OpenCV (a JPEG comes
  // here when libturbojpeg refused its header or data).
  auto claimed = ReadClaimedImageSize(data, size);
  if (!claimed.ok()) return claimed.status().WithContext(op);
  if (Status st = CheckClaimedImageSize(*claimed); !st.ok()) return st.WithContext(op);
  Tensor out;
  cv::Mat bgr;
  Status st = CatchCv(op, [&] {
    cv::Mat buf(1, static_cast<int>(size), CV_8UC1, const_cast<uint8_t*>(data));
    bgr = ImDecode(buf, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);  // as libturbojpeg: no EXIF rotation
    if (bgr.empty()) return;
    out = Tensor::Make(TensorType::kUInt8, {bgr.rows, bgr.cols, 3});
    cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, out.MutableData());
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  });
  MR_RETURN_IF_ERROR(st);
  if (!out.defined())
    return Status::InvalidArgument(std::string(op) + ": cannot decode the " + claimed->format + " image (" +
                                   std::to_string(size) + " bytes): corrupt or truncated");
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
    MR_RETURN_IF_ERROR(CheckPixels(w, ht, "JPEG"));
    hdr.width = w;
    hdr.height = ht;
    hdr.is_jpeg = true;
    return hdr;
  }
  MR_ASSIGN_OR_RETURN(ClaimedImageSize claimed, ReadClaimedImageSize(data, size));
  MR_RETURN_IF_ERROR(CheckClaimedImageSize(claimed));
  hdr.height = static_cast<int>(claimed.height);  // within the pixel limit: fits
  hdr.width = static_cast<int>(claimed.width);
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
  MR_RETURN_IF_ERROR(CheckPixels(w, ht, "JPEG"));
  const int sw = scale.Scaled(w), sh = scale.Scaled(ht);
  Tensor out = Tensor::Make(TensorType::kUInt8, {sh, sw, 3});
  int rc = tjDecompress2(h, data, static_cast<unsigned long>(size), out.MutableData(), sw, sw * 3, sh, TJPF_RGB, 0);
  if (rc != 0 && tjGetErrorCode(h) == TJERR_FATAL)
    return Status::InvalidArgument("JPEG decode failed: " + TjError(h));
  return out;
}

namespace {

// The window [x, x+w) x [y, y+h) of the scaled image plus `margin` pixels
// around it (clamped to the image; columns widened by libjpeg to iMCU
// boundaries) into `strip` (row length *out_w pixels, first row y0 =
// max(0, y - margin), first column *out_x0). `strip_bytes` must hold
// (w + 2 margin + 64) * (h + 2 margin) * 3 bytes; *out_rows rows are
// decoded. Plain C types only: a libjpeg error longjmps out of here. False
// on any error or warning, or a window outside the image.
bool DecodeStrip(const uint8_t* data, size_t size, JpegScale scale, int x, int y, int w, int h, int margin,
                 uint8_t* strip, size_t strip_bytes, int* out_x0, int* out_w, int* out_rows) {
  jpeg_decompress_struct ci;
  JpegErrors err;
  UseJpegErrors(&ci, &err);
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  jpeg_create_decompress(&ci);
  jpeg_mem_src(&ci, data, static_cast<unsigned long>(size));
  if (jpeg_read_header(&ci, TRUE) != JPEG_HEADER_OK) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  ci.scale_num = static_cast<unsigned>(scale.num);
  ci.scale_denom = static_cast<unsigned>(scale.denom);
  ci.out_color_space = JCS_EXT_RGB;
  jpeg_start_decompress(&ci);
  const int sw = static_cast<int>(ci.output_width), sh = static_cast<int>(ci.output_height);
  if (sw != scale.Scaled(static_cast<int>(ci.image_width)) || sh != scale.Scaled(static_cast<int>(ci.image_height)) ||
      ci.output_components != 3 || x + w > sw || y + h > sh) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  const int x0 = std::max(0, x - margin), x1 = std::min(sw, x + w + margin);
  const int y0 = std::max(0, y - margin), y1 = std::min(sh, y + h + margin);
  JDIMENSION xoff = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
  jpeg_crop_scanline(&ci, &xoff, &width);
  const size_t row_bytes = static_cast<size_t>(ci.output_width) * 3;
  if (row_bytes * static_cast<size_t>(y1 - y0) > strip_bytes) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  if (y0 > 0 && jpeg_skip_scanlines(&ci, static_cast<JDIMENSION>(y0)) != static_cast<JDIMENSION>(y0)) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  while (static_cast<int>(ci.output_scanline) < y1) {
    JSAMPROW row = strip + static_cast<size_t>(static_cast<int>(ci.output_scanline) - y0) * row_bytes;
    if (jpeg_read_scanlines(&ci, &row, 1) != 1) {
      jpeg_destroy_decompress(&ci);
      return false;
    }
  }
  *out_x0 = static_cast<int>(xoff);
  *out_w = static_cast<int>(ci.output_width);
  *out_rows = y1 - y0;
  const bool ok = !err.warned;
  jpeg_abort_decompress(&ci);  // the rows below are not needed
  jpeg_destroy_decompress(&ci);
  return ok;
}

}  // namespace

Result<JpegStrip> DecodeJpegStrip(const uint8_t* data, size_t size, JpegScale scale, int x, int y, int w, int h) {
  if (w <= 0 || h <= 0 || x < 0 || y < 0) return Status::InvalidArgument("JPEG window outside the image");
  // Upsampled chroma near a cut edge depends on the pixels beyond it: decode
  // a margin around the window (4 px is more than any sampling factor needs).
  // jpeg_crop_scanline widens the columns to iMCU boundaries (at most 32
  // scaled pixels each side).
  constexpr int kMargin = 4;
  const size_t strip_bytes =
      static_cast<size_t>(w + 2 * kMargin + 64) * 3 * static_cast<size_t>(h + 2 * kMargin);
  Tensor strip = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(strip_bytes)});
  int sx0 = 0, sww = 0, rows = 0;
  if (!DecodeStrip(data, size, scale, x, y, w, h, kMargin, strip.MutableData(), strip_bytes, &sx0, &sww, &rows) ||
      sx0 > x || sx0 + sww < x + w)
    return Status::InvalidArgument("JPEG window decode failed (or the window is outside the image)");
  const int y0 = std::max(0, y - kMargin);
  JpegStrip out{strip.Region(0, TensorType::kUInt8, {rows, sww, 3}), x - sx0, y - y0};
  if (!out.pixels.defined() || out.y + h > rows) return Status::Internal("JPEG window decode: strip too small");
  return out;
}

Result<Tensor> DecodeJpegWindow(const uint8_t* data, size_t size, JpegScale scale, int x, int y, int w, int h) {
  MR_ASSIGN_OR_RETURN(JpegStrip strip, DecodeJpegStrip(data, size, scale, x, y, w, h));
  const int sww = static_cast<int>(strip.pixels.shape()[1]);
  Tensor out = Tensor::Make(TensorType::kUInt8, {h, w, 3});
  uint8_t* dst = out.MutableData();
  for (int r = 0; r < h; ++r) {
    std::memcpy(dst + static_cast<size_t>(r) * w * 3,
                strip.pixels.data() + (static_cast<size_t>(strip.y + r) * sww + static_cast<size_t>(strip.x)) * 3,
                static_cast<size_t>(w) * 3);
  }
  return out;
}

Result<Tensor> DecodeImage(const uint8_t* data, size_t size, int min_w, int min_h, const char* op,
                           bool all_factors) {
  if (size == 0) return Status::InvalidArgument(std::string(op) + ": empty image bytes");
  if (LooksLikeJpeg(data, size)) {
    JpegScale scale;
    tjhandle h = ThreadDecompressor();
    int w = 0, ht = 0, subsamp = 0, colorspace = 0;
    if (h && tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &ht, &subsamp, &colorspace) == 0) {
      // Refused here, not left to the OpenCV fallback (which would decode it).
      if (Status st = CheckPixels(w, ht, "JPEG"); !st.ok()) return st.WithContext(op);
      if (min_w > 0 || min_h > 0) scale = ChooseJpegScale(w, ht, min_w, min_h, all_factors);
    } else {
      if (h) (void)TjError(h);
      // The OpenCV fallback below would decode the size libjpeg reads.
      if (auto claimed = ReadClaimedImageSize(data, size); claimed.ok()) {
        if (Status st = CheckClaimedImageSize(*claimed); !st.ok()) return st.WithContext(op);
      }
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
