// The image size a header claims, read without decoding, so that every
// decoder (the pipeline's Decode ops, the converters' decodes) can refuse an
// image before it allocates anything. An image reaches a decoder only when
// its header was read here: a format whose size cannot be read is refused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mindrecord/status.h"

namespace mindrecord {

struct ClaimedImageSize {
  const char* format = "";  // "JPEG", "PNG", "BMP", "PNM", "PAM", "TIFF", "WebP", "JPEG 2000"
  int64_t width = 0;
  int64_t height = 0;
  // What a decoder holds per pixel before converting to the caller's layout:
  // the samples per pixel and the bytes per sample.
  int64_t samples = 3;
  int64_t sample_bytes = 1;
};

// The formats read, each as its decoder reads it: JPEG (libjpeg's header
// read, as OpenCV's fallback decoder reads it), PNG (IHDR), BMP, PBM/PGM/PPM
// and PAM (OpenCV's own header rules), TIFF (libtiff), WebP (libwebp) and
// JPEG 2000 (OpenJPEG). Any other bytes are an InvalidArgument naming the
// format when it is one OpenCV knows: its decoders for Sun raster, PFM,
// Radiance HDR and DICOM read only files (imdecode writes the bytes to a
// temporary file first), and its OpenEXR decoder is off by default.
// Thread safety: a pure function.
Result<ClaimedImageSize> ReadClaimedImageSize(const uint8_t* data, size_t size);

// OK when the image has at most kMaxImagePixels and its decoder holds at most
// kMaxImageSampleBytes; otherwise an InvalidArgument "<format> header claims
// W x H pixels, ...". No product of the claimed sizes is formed.
// Thread safety: a pure function.
Status CheckClaimedImageSize(const ClaimedImageSize& s);

// Whether width x height is at most kMaxImagePixels (both sizes may be up to
// 2^32: no product is formed). Thread safety: a pure function.
bool WithinPixelLimit(int64_t width, int64_t height);

}  // namespace mindrecord
