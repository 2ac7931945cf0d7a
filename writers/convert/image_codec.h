// Image payloads for the converters: reading image files, checking that they
// decode, re-encoding them, and encoding raw pixels (MNIST, CIFAR) as JPEG or
// PNG the way MindSpore's converters do (OpenCV imencode, default quality).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

// The whole file. NotFound when missing, IOError when unreadable.
Result<std::string> ReadWholeFile(const std::string& path);

// Cheap decodability check: JPEG header and end marker (libturbojpeg), PNG
// signature and IHDR; other formats are fully decoded with OpenCV.
// Corruption with the reason when the bytes are not a usable image.
Status CheckImage(std::string_view bytes);

// An image file's bytes stored per `mode`: kDefault/kKeep check and keep
// them; kJpeg/kPng decode and re-encode; kRaw is refused (image files carry
// no fixed pixel shape). Thread safety: reentrant.
Result<std::string> EncodeImageFile(std::string bytes, EncodeMode mode);

// Pixels (rows x cols x channels uint8, HWC; channels 1 or 3, RGB order)
// stored per `mode`: kDefault/kKeep/kJpeg -> JPEG, kPng -> PNG, kRaw -> the
// pixels as they are. Thread safety: reentrant.
Result<std::string> EncodePixels(const uint8_t* hwc, int rows, int cols, int channels, EncodeMode mode);

}  // namespace mindrecord::convert
