// MindSpore 2.x's image file and encoding functions of
// mindspore.dataset.vision (encode_jpeg, encode_png, read_image, write_jpeg,
// write_png), with its checks, messages ("EncodeJpeg: Invalid quality 101,
// should be in range of [1, 100].") and OpenCV parameters, so the bytes are
// the ones MindSpore writes with the same OpenCV build.
// Thread safety: the functions are reentrant (OpenCV's codecs keep no shared
// state across calls).
#pragma once

#include <cstdint>
#include <string>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

// MindSpore's ImageReadMode; values frozen (they are the Python enum's).
enum class ImageReadMode : uint8_t {
  kUnchanged = 0,  // as stored: gray stays 1 channel, colour becomes RGB (alpha dropped), 16-bit stays 16-bit
  kGrayscale = 1,  // one 8-bit channel
  kColor = 2,      // three 8-bit channels, RGB
};

inline constexpr int kMinJpegQuality = 1, kMaxJpegQuality = 100;
inline constexpr int kMinPngCompression = 0, kMaxPngCompression = 9;

// The encoded bytes (1-D uint8) of an HW, HW1 or HW3 (RGB) uint8 image:
// baseline JPEG at `quality` in [1, 100] (no optimized Huffman tables, no
// restart markers, 4:2:0 for colour: OpenCV's imencode with MindSpore's
// parameters), or PNG at `compression_level` in [0, 9] with zlib's RLE
// strategy. InvalidArgument "EncodeJpeg: ..." / "EncodePng: ..." otherwise.
Result<Tensor> EncodeJpeg(const Tensor& image, int quality);
Result<Tensor> EncodePng(const Tensor& image, int compression_level);

// As EncodeJpeg / EncodePng, then WriteWholeFile (image_file.h): the file is
// created or truncated; errors say "WriteJpeg: " / "WritePng: " and name it.
Status WriteJpeg(const std::string& filename, const Tensor& image, int quality,
                 FileSystem* fs = FileSystem::Default());
Status WritePng(const std::string& filename, const Tensor& image, int compression_level,
                FileSystem* fs = FileSystem::Default());

// A decoded image file: an HWC array of `sample_bytes`-wide samples (1:
// uint8; 2: uint16 in host order, what 16-bit PNG / TIFF / JPEG 2000 files
// give in kUnchanged). Tensor has no uint16 type, so `bytes` holds the
// samples as a 1-D uint8 tensor of height * width * channels * sample_bytes.
struct DecodedImageFile {
  int64_t height = 0, width = 0, channels = 0;
  int sample_bytes = 1;
  Tensor bytes;
};

// Decodes encoded image bytes as MindSpore's read_image does with cv::imread
// (JPEG, PNG, BMP, TIFF, WebP, PNM, JPEG 2000): kGrayscale and kColor apply
// the EXIF orientation, kUnchanged does not; a colour result is RGB, and
// alpha is dropped. The header is read first and an image over the pixel
// limits (mindrecord/limits.h) or of a format whose header is not read
// (mindrecord/image_size.h) is refused before decoding. `what` names the
// file in errors ("ReadImage: Failed to read file <what>: ...").
Result<DecodedImageFile> DecodeImageBytes(const uint8_t* data, size_t size, ImageReadMode mode,
                                          const std::string& what);

// ReadWholeFile (image_file.h, "ReadImage: Invalid file path, ..." for a
// missing or irregular file), then DecodeImageBytes.
Result<DecodedImageFile> ReadImage(const std::string& filename, ImageReadMode mode,
                                   FileSystem* fs = FileSystem::Default());

}  // namespace mindrecord::ops
