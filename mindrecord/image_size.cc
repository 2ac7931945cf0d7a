#include "mindrecord/image_size.h"

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <string>

#include <openjpeg.h>
#include <tiffio.h>
#include <webp/decode.h>

#include "mindrecord/jpeg_errors.h"
#include "mindrecord/limits.h"

namespace mindrecord {

namespace {

Status Unreadable(const char* format, const std::string& why) {
  return Status::InvalidArgument(std::string("unreadable ") + format + " header: " + why);
}

bool StartsWith(const uint8_t* data, size_t size, const char* sig, size_t n, size_t at = 0) {
  return size >= at + n && std::memcmp(data + at, sig, n) == 0;
}

bool IsSpace(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool IsDigit(int c) { return c >= '0' && c <= '9'; }

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}
uint32_t LittleEndian32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
uint16_t LittleEndian16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

// --- JPEG: libjpeg's header read ---------------------------------------------

// Plain C types only between setjmp and longjmp.
bool JpegHeader(const uint8_t* data, size_t size, int64_t* w, int64_t* h, int64_t* components, int64_t* precision) {
  jpeg_decompress_struct ci;
  JpegErrors err;
  UseJpegErrors(&ci, &err);
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  jpeg_create_decompress(&ci);
  jpeg_mem_src(&ci, data, static_cast<unsigned long>(size));
  const bool ok = jpeg_read_header(&ci, TRUE) == JPEG_HEADER_OK;
  *w = ci.image_width;
  *h = ci.image_height;
  *components = ci.num_components;
  *precision = ci.data_precision;
  jpeg_destroy_decompress(&ci);
  return ok;
}

Result<ClaimedImageSize> Jpeg(const uint8_t* data, size_t size) {
  ClaimedImageSize s{"JPEG"};
  int64_t precision = 8;
  if (!JpegHeader(data, size, &s.width, &s.height, &s.samples, &precision))
    return Unreadable("JPEG", "libjpeg cannot read its frame header");
  s.sample_bytes = precision > 8 ? 2 : 1;
  return s;
}

// --- PNG: the IHDR chunk -----------------------------------------------------

Result<ClaimedImageSize> Png(const uint8_t* data, size_t size) {
  if (size < 26 || std::memcmp(data + 12, "IHDR", 4) != 0) return Unreadable("PNG", "no IHDR chunk first");
  ClaimedImageSize s{"PNG", BigEndian32(data + 16), BigEndian32(data + 20)};
  switch (data[25]) {  // colour type: gray, RGB, palette (with tRNS: RGBA), gray + alpha, RGBA
    case 0: s.samples = 1; break;
    case 2: s.samples = 3; break;
    case 4: s.samples = 2; break;
    default: s.samples = 4; break;
  }
  s.sample_bytes = data[24] > 8 ? 2 : 1;
  return s;
}

// --- BMP: OpenCV's reading of the information header ---------------------------

Result<ClaimedImageSize> Bmp(const uint8_t* data, size_t size) {
  if (size < 18) return Unreadable("BMP", "truncated");
  const auto header_bytes = static_cast<int32_t>(LittleEndian32(data + 14));
  int64_t w = 0, h = 0, bpp = 0;
  if (header_bytes >= 36) {
    if (size < 30) return Unreadable("BMP", "truncated");
    w = static_cast<int32_t>(LittleEndian32(data + 18));
    h = static_cast<int32_t>(LittleEndian32(data + 22));
    bpp = LittleEndian16(data + 28);
  } else if (header_bytes == 12) {
    if (size < 26) return Unreadable("BMP", "truncated");
    w = LittleEndian16(data + 18);
    h = LittleEndian16(data + 20);
    bpp = LittleEndian16(data + 24);
  } else {
    return Unreadable("BMP", "an information header of " + std::to_string(header_bytes) + " bytes");
  }
  if (w <= 0 || h == 0)
    return Unreadable("BMP", "no image (width " + std::to_string(w) + ", height " + std::to_string(h) + ")");
  ClaimedImageSize s{"BMP", w, h < 0 ? -h : h};  // a negative height: rows stored top-down
  s.samples = bpp == 32 ? 4 : 3;
  return s;
}

// --- PBM/PGM/PPM and PAM: OpenCV's header rules --------------------------------

struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  int Get() { return p < end ? *p++ : -1; }
};

// A decimal number after whitespace and '#' comments; the character after it
// is consumed, as OpenCV's reader does.
bool PnmNumber(Cursor& c, int64_t* out) {
  int code = c.Get();
  while (!IsDigit(code)) {
    if (code == '#') {
      do {
        code = c.Get();
      } while (code >= 0 && code != '\n' && code != '\r');
      code = c.Get();
    } else if (IsSpace(code)) {
      while (IsSpace(code)) code = c.Get();
    } else {
      return false;  // another character, or the end of the data
    }
  }
  int64_t v = 0;
  do {
    v = v * 10 + (code - '0');
    if (v > INT32_MAX) return false;
    code = c.Get();
  } while (IsDigit(code));
  *out = v;
  return true;
}

Result<ClaimedImageSize> Pnm(const uint8_t* data, size_t size) {
  const char kind = static_cast<char>(data[1]);  // '1'..'6'
  Cursor c{data + 2, data + size};
  ClaimedImageSize s{"PNM"};
  int64_t maxval = 1;
  if (!PnmNumber(c, &s.width) || !PnmNumber(c, &s.height)) return Unreadable("PNM", "no width and height");
  if (kind != '1' && kind != '4' && !PnmNumber(c, &maxval)) return Unreadable("PNM", "no maximum value");
  if (s.width <= 0 || s.height <= 0 || maxval <= 0 || maxval > 65535)
    return Unreadable("PNM", "width " + std::to_string(s.width) + ", height " + std::to_string(s.height) +
                                 ", maximum value " + std::to_string(maxval));
  s.samples = kind == '3' || kind == '6' ? 3 : 1;
  s.sample_bytes = maxval > 255 ? 2 : 1;
  return s;
}

// "IDENT value" lines up to ENDHDR: the identifier ends at whitespace; a value
// follows unless that whitespace ends the line.
Result<ClaimedImageSize> Pam(const uint8_t* data, size_t size) {
  Cursor c{data + 2, data + size};
  int code = c.Get();
  if (code != '\n' && code != '\r') return Unreadable("PAM", "no line break after P7");
  int64_t width = -1, height = -1, depth = -1, maxval = -1;
  for (;;) {
    do {
      code = c.Get();
    } while (IsSpace(code));
    if (code == '#') {
      do {
        code = c.Get();
      } while (code >= 0 && code != '\n' && code != '\r');
      if (code < 0) return Unreadable("PAM", "truncated");
      continue;
    }
    std::string ident, value;
    while (code >= 0 && !IsSpace(code) && ident.size() <= 16) {
      ident += static_cast<char>(code);
      code = c.Get();
    }
    if (code < 0 || !IsSpace(code)) return Unreadable("PAM", "truncated or overlong line");
    if (code != '\n' && code != '\r') {
      do {
        code = c.Get();
      } while (IsSpace(code));
      while (code >= 0 && code != '\n' && code != '\r' && value.size() <= 256) {
        value += static_cast<char>(code);
        code = c.Get();
      }
      if (code != '\n' && code != '\r') return Unreadable("PAM", "truncated or overlong line");
      while (!value.empty() && IsSpace(static_cast<unsigned char>(value.back()))) value.pop_back();
    }
    if (ident == "ENDHDR") break;
    if (ident == "TUPLTYPE") continue;
    int64_t* field = ident == "WIDTH" ? &width : ident == "HEIGHT" ? &height : ident == "DEPTH" ? &depth
                   : ident == "MAXVAL" ? &maxval : nullptr;
    if (!field) return Unreadable("PAM", "unknown field '" + ident + "'");
    if (*field >= 0) return Unreadable("PAM", ident + " given twice");
    if (value.empty() || value.size() > 10 || !std::all_of(value.begin(), value.end(), IsDigit))
      return Unreadable("PAM", ident + " '" + value + "' is not a number");
    *field = std::stoll(value);
  }
  if (width <= 0 || height <= 0 || depth <= 0 || maxval <= 0 || maxval > 65535)
    return Unreadable("PAM", "WIDTH " + std::to_string(width) + ", HEIGHT " + std::to_string(height) + ", DEPTH " +
                                 std::to_string(depth) + ", MAXVAL " + std::to_string(maxval));
  ClaimedImageSize s{"PAM", width, height};
  s.samples = depth;
  s.sample_bytes = maxval > 255 ? 2 : 1;
  return s;
}

// --- TIFF: libtiff's reading of the first directory ----------------------------

struct MemoryFile {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
};

tmsize_t TiffRead(thandle_t h, void* buf, tmsize_t n) {
  auto* f = static_cast<MemoryFile*>(h);
  const size_t take = std::min(static_cast<size_t>(n), f->size - std::min(f->pos, f->size));
  if (take) std::memcpy(buf, f->data + f->pos, take);
  f->pos += take;
  return static_cast<tmsize_t>(take);
}
tmsize_t TiffWrite(thandle_t, void*, tmsize_t) { return 0; }
toff_t TiffSeek(thandle_t h, toff_t off, int whence) {
  auto* f = static_cast<MemoryFile*>(h);
  const uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->size : 0;
  if (off > UINT64_MAX - base) return static_cast<toff_t>(-1);
  f->pos = static_cast<size_t>(std::min<uint64_t>(base + off, SIZE_MAX));
  return f->pos;
}
int TiffClose(thandle_t) { return 0; }
toff_t TiffSize(thandle_t h) { return static_cast<MemoryFile*>(h)->size; }
int TiffMap(thandle_t, void**, toff_t*) { return 0; }
void TiffUnmap(thandle_t, void*, toff_t) {}
int TiffQuiet(TIFF*, void*, const char*, const char*, va_list) { return 1; }

Result<ClaimedImageSize> Tiff(const uint8_t* data, size_t size) {
  MemoryFile file{data, size};
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  if (!opts) return Status::Internal("libtiff: cannot allocate open options");
  TIFFOpenOptionsSetErrorHandlerExtR(opts, TiffQuiet, nullptr);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, TiffQuiet, nullptr);
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts, 64 << 20);  // the directory's arrays, not pixels
  TIFF* tif = TIFFClientOpenExt("image", "rm", &file, TiffRead, TiffWrite, TiffSeek, TiffClose, TiffSize, TiffMap,
                                TiffUnmap, opts);
  TIFFOpenOptionsFree(opts);
  if (!tif) return Unreadable("TIFF", "libtiff cannot read its first directory");
  uint32_t w = 0, h = 0;
  uint16_t samples = 1, bits = 1;
  const bool ok = TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) == 1 && TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) == 1;
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFClose(tif);
  if (!ok) return Unreadable("TIFF", "no image width and length");
  ClaimedImageSize s{"TIFF", w, h};
  s.samples = std::max<int64_t>(samples, 4);  // OpenCV reads some layouts as RGBA
  s.sample_bytes = std::max<int64_t>((bits + 7) / 8, 1);
  return s;
}

// --- WebP: libwebp's reading of the bitstream header ---------------------------

Result<ClaimedImageSize> Webp(const uint8_t* data, size_t size) {
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(data, size, &f) != VP8_STATUS_OK) return Unreadable("WebP", "libwebp cannot read it");
  ClaimedImageSize s{"WebP", f.width, f.height};
  s.samples = 4;
  return s;
}

// --- JPEG 2000: OpenJPEG's reading of the main header --------------------------

OPJ_SIZE_T OpjRead(void* buf, OPJ_SIZE_T n, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (f->pos >= f->size) return static_cast<OPJ_SIZE_T>(-1);
  const size_t take = std::min<size_t>(n, f->size - f->pos);
  std::memcpy(buf, f->data + f->pos, take);
  f->pos += take;
  return take;
}
OPJ_OFF_T OpjSkip(OPJ_OFF_T n, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (n < 0 || static_cast<uint64_t>(n) > f->size - std::min(f->pos, f->size)) return -1;
  f->pos += static_cast<size_t>(n);
  return n;
}
OPJ_BOOL OpjSeek(OPJ_OFF_T to, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (to < 0 || static_cast<uint64_t>(to) > f->size) return OPJ_FALSE;
  f->pos = static_cast<size_t>(to);
  return OPJ_TRUE;
}
void OpjQuiet(const char*, void*) {}

Result<ClaimedImageSize> Jpeg2000(const uint8_t* data, size_t size, bool codestream) {
  MemoryFile file{data, size};
  opj_stream_t* stream = opj_stream_create(64 << 10, OPJ_TRUE);
  opj_codec_t* codec = opj_create_decompress(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
  if (!stream || !codec) {
    if (stream) opj_stream_destroy(stream);
    if (codec) opj_destroy_codec(codec);
    return Status::Internal("OpenJPEG: cannot create a decoder");
  }
  opj_stream_set_user_data(stream, &file, nullptr);
  opj_stream_set_user_data_length(stream, size);
  opj_stream_set_read_function(stream, OpjRead);
  opj_stream_set_skip_function(stream, OpjSkip);
  opj_stream_set_seek_function(stream, OpjSeek);
  opj_set_error_handler(codec, OpjQuiet, nullptr);
  opj_set_warning_handler(codec, OpjQuiet, nullptr);
  opj_set_info_handler(codec, OpjQuiet, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* image = nullptr;
  const bool ok = opj_setup_decoder(codec, &params) && opj_read_header(stream, codec, &image) && image;
  ClaimedImageSize s{"JPEG 2000"};
  if (ok) {
    s.width = int64_t{image->x1} - image->x0;
    s.height = int64_t{image->y1} - image->y0;
    s.samples = image->numcomps;
    s.sample_bytes = 4;  // OpenJPEG decodes every sample into 32 bits
  }
  if (image) opj_image_destroy(image);
  opj_destroy_codec(codec);
  opj_stream_destroy(stream);
  if (!ok) return Unreadable("JPEG 2000", "OpenJPEG cannot read its main header");
  if (s.width <= 0 || s.height <= 0 || s.samples <= 0) return Unreadable("JPEG 2000", "no image");
  return s;
}

// --- Formats OpenCV knows that are not decoded ---------------------------------

Status NotDecoded(const char* format, const char* why) {
  return Status::InvalidArgument(std::string(format) + " images are not decoded (" + why + ")");
}

}  // namespace

// Each format is recognised by the signature OpenCV's imdecode matches, in
// its order where two could match the same bytes (DICOM before JPEG 2000).
Result<ClaimedImageSize> ReadClaimedImageSize(const uint8_t* data, size_t size) {
  static constexpr char kTempFile[] = "OpenCV's decoder for them writes the bytes to a temporary file";
  if (StartsWith(data, size, "\xFF\xD8\xFF", 3)) return Jpeg(data, size);
  if (StartsWith(data, size, "\x89PNG\r\n\x1A\n", 8)) return Png(data, size);
  if (StartsWith(data, size, "BM", 2)) return Bmp(data, size);
  if (size >= 3 && data[0] == 'P' && IsSpace(data[2])) {
    if (data[1] >= '1' && data[1] <= '6') return Pnm(data, size);
    if (data[1] == '7') return Pam(data, size);
    if (data[1] == 'f' || data[1] == 'F') return NotDecoded("PFM", kTempFile);
  }
  if (StartsWith(data, size, "II*\0", 4) || StartsWith(data, size, "MM\0*", 4) ||
      StartsWith(data, size, "II+\0", 4) || StartsWith(data, size, "MM\0+", 4))
    return Tiff(data, size);
  if (StartsWith(data, size, "RIFF", 4) && StartsWith(data, size, "WEBP", 4, 8)) return Webp(data, size);
  if (StartsWith(data, size, "#?RGBE", 6) || StartsWith(data, size, "#?RADIANCE", 10))
    return NotDecoded("Radiance HDR", kTempFile);
  if (StartsWith(data, size, "\x59\xA6\x6A\x95", 4)) return NotDecoded("Sun raster", kTempFile);
  if (StartsWith(data, size, "DICM", 4, 128)) return NotDecoded("DICOM", kTempFile);
  if (StartsWith(data, size, "\xFF\x4F\xFF\x51", 4)) return Jpeg2000(data, size, /*codestream=*/true);
  if (StartsWith(data, size, "\x00\x00\x00\x0CjP  \r\n\x87\n", 12)) return Jpeg2000(data, size, /*codestream=*/false);
  if (StartsWith(data, size, "\x76\x2F\x31\x01", 4)) return NotDecoded("OpenEXR", "OpenCV's decoder for them is off");
  return Status::InvalidArgument(
      "not an image format that is decoded (JPEG, PNG, BMP, PBM/PGM/PPM, PAM, TIFF, WebP, JPEG 2000)");
}

bool WithinPixelLimit(int64_t width, int64_t height) {
  return width >= 0 && height >= 0 && (height == 0 || width <= kMaxImagePixels / height);
}

Status CheckClaimedImageSize(const ClaimedImageSize& s) {
  const std::string claims = std::string(s.format) + " header claims " + std::to_string(s.width) + " x " +
                             std::to_string(s.height) + " pixels";
  if (!WithinPixelLimit(s.width, s.height))
    return Status::InvalidArgument(claims + ", more than the " + std::to_string(kMaxImagePixels) +
                                   " an image may have to be decoded");
  // width x height fits 64 bits here; so does the sample count per pixel.
  const int64_t per_pixel = s.samples * s.sample_bytes;
  if (per_pixel > 0 && s.width * s.height > kMaxImageSampleBytes / per_pixel)
    return Status::InvalidArgument(claims + " of " + std::to_string(s.samples) + " x " +
                                   std::to_string(s.sample_bytes) + " bytes, more than the " +
                                   std::to_string(kMaxImageSampleBytes) + " bytes a decoder may hold for an image");
  return Status::OK();
}

}  // namespace mindrecord
