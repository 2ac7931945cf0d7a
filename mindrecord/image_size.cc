#include "mindrecord/image_size.h"

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstring>

#include <jpeglib.h>

#include "mindrecord/limits.h"

namespace mindrecord {

namespace {

struct HeaderErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
};
void HeaderErrorExit(j_common_ptr c) { std::longjmp(reinterpret_cast<HeaderErrors*>(c->err)->jump, 1); }
void HeaderQuiet(j_common_ptr, int) {}

// Plain C types only between setjmp and longjmp.
bool JpegHeaderSize(const uint8_t* data, size_t size, int64_t* w, int64_t* h) {
  jpeg_decompress_struct ci;
  HeaderErrors err;
  ci.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = HeaderErrorExit;
  err.mgr.emit_message = HeaderQuiet;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  jpeg_create_decompress(&ci);
  jpeg_mem_src(&ci, data, static_cast<unsigned long>(size));
  const bool ok = jpeg_read_header(&ci, TRUE) == JPEG_HEADER_OK;
  *w = ci.image_width;
  *h = ci.image_height;
  jpeg_destroy_decompress(&ci);
  return ok;
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

std::optional<ClaimedImageSize> ReadClaimedImageSize(const uint8_t* data, size_t size) {
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
    ClaimedImageSize s{"JPEG"};
    if (!JpegHeaderSize(data, size, &s.width, &s.height)) return std::nullopt;
    return s;
  }
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (size >= 24 && std::memcmp(data, kPng, 8) == 0 && std::memcmp(data + 12, "IHDR", 4) == 0)
    return ClaimedImageSize{"PNG", BigEndian32(data + 16), BigEndian32(data + 20)};
  return std::nullopt;
}

bool WithinPixelLimit(int64_t width, int64_t height) {
  return width >= 0 && height >= 0 && (height == 0 || width <= kMaxImagePixels / height);
}

}  // namespace mindrecord
