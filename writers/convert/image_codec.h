// Image payloads for the converters: reading image files, checking that they
// decode, re-encoding them, and encoding raw pixels (MNIST, CIFAR) as JPEG or
// PNG the way MindSpore's converters do (OpenCV imencode, default quality).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

// The whole file. NotFound when missing, IOError when unreadable or not a
// regular file, Corruption when larger than a row may hold
// (kMaxDecompressedRowBytes, 256 MiB), before anything is read.
Result<std::string> ReadWholeFile(const std::string& path);
// The size of file `path` in bytes, 0 when it cannot be read (a shard
// balancing weight: SplitPlan::item_bytes).
uint64_t FileBytes(const std::string& path);

// Cheap decodability check: JPEG header and end marker (libturbojpeg), PNG
// signature and IHDR; other formats are fully decoded with OpenCV.
// Corruption with the reason when the bytes are not a usable image.
Status CheckImage(std::string_view bytes);

// An image file's bytes stored per `mode`: kDefault/kKeep check and keep
// them; kJpeg/kPng decode and re-encode; kRaw is refused here (see
// SetImageField, which also stores the shape). Thread safety: reentrant.
Result<std::string> EncodeImageFile(std::string bytes, EncodeMode mode);

// Decodes an image file into HWC uint8 RGB pixels (always 3 channels: gray
// is expanded, alpha dropped, EXIF orientation ignored), as the pipeline's
// Decode op does: JPEG through libturbojpeg, other formats (and JPEGs it
// refuses) through OpenCV. Checks the file first (CheckImage), so a truncated
// JPEG is an error. *height / *width receive the size. Thread safety: reentrant.
Result<std::string> DecodeImageFileToRgb(std::string_view bytes, int* height, int* width);

// The schema fields of an image stored per `mode`: `name: bytes`, plus
// `name_shape: int32 [3]` ([height, width, 3]) under kRaw, where `name` holds
// the decoded HWC uint8 RGB pixels.
void AddImageFields(std::vector<Field>& fields, const std::string& name, EncodeMode mode);

// Stores an image file's bytes into `row` per `mode`, matching AddImageFields.
// Thread safety: reentrant.
Status SetImageField(Row& row, const std::string& name, std::string file_bytes, EncodeMode mode);

// Pixels (rows x cols x channels uint8, HWC; channels 1 or 3, RGB order)
// stored per `mode`: kDefault/kKeep/kJpeg -> JPEG, kPng -> PNG, kRaw -> the
// pixels as they are. Thread safety: reentrant.
Result<std::string> EncodePixels(const uint8_t* hwc, int rows, int cols, int channels, EncodeMode mode);

}  // namespace mindrecord::convert
