// Images in rows, for `mindrecord export` and its contact sheet: what kind of
// image a bytes value holds (by its first bytes), decoding (through the
// pipeline's Decode op, with its size limits), and PNG encoding.
#pragma once

#include <string>
#include <string_view>

#include <opencv2/core.hpp>

#include "mindrecord/value.h"
#include "mindrecord/status.h"

namespace mindrecord::cli {

// "jpg", "png", "gif", "bmp", "webp" or "tif" for the file signatures of
// those formats; nullptr for anything else.
const char* SniffImage(std::string_view bytes);

// The image in column `column` of `row` as BGR uint8 pixels: encoded bytes
// decoded by the Decode op, or raw HWC pixels (convert --encode raw) shaped
// by the `<column>_shape` int32 [3] column when the row has it.
Result<cv::Mat> RowImage(const Row& row, const std::string& column);

// Whether `column` holds raw pixels that RowImage can shape (a bytes value
// without an image signature next to a `<column>_shape` [h, w, c] value).
bool HasRawPixels(const Row& row, const std::string& column);

Result<std::string> EncodePng(const cv::Mat& bgr);

}  // namespace mindrecord::cli
