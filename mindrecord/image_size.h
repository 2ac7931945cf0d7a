// The image size a JPEG or PNG header claims, read without decoding, so that
// every decoder (the pipeline's Decode ops, the converters' --encode) can
// refuse an image above kMaxImagePixels before it allocates anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace mindrecord {

struct ClaimedImageSize {
  const char* format;  // "JPEG" or "PNG"
  int64_t width = 0;
  int64_t height = 0;
};

// JPEG: the frame header as libjpeg reads it (the library OpenCV decodes
// with, and more lenient than libturbojpeg's header call); PNG: the IHDR
// chunk. nullopt for other formats and for headers libjpeg cannot read.
// Thread safety: a pure function.
std::optional<ClaimedImageSize> ReadClaimedImageSize(const uint8_t* data, size_t size);

// Whether width x height is at most kMaxImagePixels (both sizes may be up to
// 2^32: no product is formed). Thread safety: a pure function.
bool WithinPixelLimit(int64_t width, int64_t height);

}  // namespace mindrecord
