// Image decoding: JPEG through libturbojpeg (TurboJPEG 2.x API: tjDecompress2,
// with DCT-domain downscaling), other formats through OpenCV imdecode.
// Output is always HWC uint8 RGB (3 channels).
// Thread safety: all functions may run on many threads at once (each thread
// keeps its own libturbojpeg handle); the structs are plain values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mindrecord/limits.h"
#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

struct ImageHeader {
  int width = 0;
  int height = 0;
  bool is_jpeg = false;
};

// A DCT scaling factor num/denom (1/1 = full size).
struct JpegScale {
  int num = 1;
  int denom = 1;
  int Scaled(int dim) const { return (dim * num + denom - 1) / denom; }  // TJSCALED
};

bool LooksLikeJpeg(const uint8_t* data, size_t size);

// Width and height from the header alone (JPEG: tjDecompressHeader3; other
// formats: ReadClaimedImageSize). Every function here refuses, with
// InvalidArgument and before decoding, an image whose header claims more
// than the limits (CheckClaimedImageSize) or whose format's header is not
// read (mindrecord/image_size.h).
Result<ImageHeader> ReadImageHeader(const uint8_t* data, size_t size);

// The smallest scale <= 1 (from tjGetScalingFactors, restricted to 1/1, 1/2,
// 1/4, 1/8 unless `all_factors`) whose output is still >= min_w x min_h; 1/1
// when even full size is smaller. min_w/min_h <= 0 mean "no constraint".
JpegScale ChooseJpegScale(int width, int height, int min_w, int min_h, bool all_factors = false);

// Decodes a JPEG at `scale` into HWC uint8 RGB. Fails with InvalidArgument
// (message from libturbojpeg) on data that does not decode; recoverable
// warnings (e.g. a truncated scan) still give the image.
Result<Tensor> DecodeJpeg(const uint8_t* data, size_t size, JpegScale scale);

// The window [x, x+w) x [y, y+h) (in the coordinates of the image scaled by
// `scale`) of DecodeJpeg(data, size, scale), byte for byte, decoding only
// the rows and columns around it (libjpeg's jpeg_skip_scanlines and
// jpeg_crop_scanline, with a margin so upsampling at the cut edges matches
// the full decode). Fails (the caller falls back to DecodeJpeg) on anything
// unusual: a window outside the image, a stream libjpeg refuses or warns
// about (e.g. truncated).
Result<Tensor> DecodeJpegWindow(const uint8_t* data, size_t size, JpegScale scale, int x, int y, int w, int h);

// The rows and columns DecodeJpegWindow decodes, uncopied: `pixels` [rows,
// cols, 3] holds the window at column x, row y (its pixels byte for byte as
// DecodeJpegWindow gives them), with the margin libjpeg decoded around it.
struct JpegStrip {
  Tensor pixels;
  int x = 0, y = 0;
};
Result<JpegStrip> DecodeJpegStrip(const uint8_t* data, size_t size, JpegScale scale, int x, int y, int w, int h);

// Any format: JPEG at the scale chosen for (min_w, min_h) (<= 0: full size),
// others via OpenCV at full size. `op` names the caller in errors.
Result<Tensor> DecodeImage(const uint8_t* data, size_t size, int min_w, int min_h, const char* op,
                           bool all_factors = false);

}  // namespace mindrecord::ops
