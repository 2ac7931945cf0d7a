#include "cli/images.h"

#include <cstring>
#include <random>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "mindrecord/opencv_codecs.h"
#include "pipeline/ops/op.h"
#include "pipeline/tensor.h"

namespace mindrecord::cli {

namespace {
bool StartsWith(std::string_view b, std::string_view sig) { return b.substr(0, sig.size()) == sig; }

// The [h, w, c] of `<column>_shape` when it is an int32/int64 array of 3
// positive values, else false.
bool RawShape(const Row& row, const std::string& column, int dims[3]) {
  const Value* s = row.Find(column + "_shape");
  if (s == nullptr || s->kind() != Value::Kind::kArray || s->shape().size() != 1 || s->shape()[0] != 3) return false;
  for (int i = 0; i < 3; ++i) {
    int64_t v = 0;
    if (s->array_dtype() == DataType::kInt32) {
      int32_t x;
      std::memcpy(&x, s->bytes().data() + 4 * i, 4);
      v = x;
    } else if (s->array_dtype() == DataType::kInt64) {
      std::memcpy(&v, s->bytes().data() + 8 * i, 8);
    } else {
      return false;
    }
    if (v <= 0 || v > 65535) return false;
    dims[i] = static_cast<int>(v);
  }
  return dims[2] == 1 || dims[2] == 3 || dims[2] == 4;
}
}  // namespace

const char* SniffImage(std::string_view b) {
  if (StartsWith(b, "\xFF\xD8\xFF")) return "jpg";
  if (StartsWith(b, "\x89PNG\r\n\x1A\n")) return "png";
  if (StartsWith(b, "GIF87a") || StartsWith(b, "GIF89a")) return "gif";
  if (StartsWith(b, "BM") && b.size() > 14) return "bmp";
  if (StartsWith(b, "RIFF") && b.size() > 12 && b.substr(8, 4) == "WEBP") return "webp";
  if (StartsWith(b, std::string_view("II*\0", 4)) || StartsWith(b, std::string_view("MM\0*", 4))) return "tif";
  return nullptr;
}

bool HasRawPixels(const Row& row, const std::string& column) {
  const Value* v = row.Find(column);
  int dims[3];
  return v != nullptr && v->kind() == Value::Kind::kBytes && SniffImage(v->bytes()) == nullptr &&
         RawShape(row, column, dims) && v->bytes().size() == static_cast<size_t>(dims[0]) * dims[1] * dims[2];
}

Result<cv::Mat> RowImage(const Row& row, const std::string& column) {
  const Value* v = row.Find(column);
  if (v == nullptr || v->kind() != Value::Kind::kBytes) {
    return Status::InvalidArgument("column '" + column + "' does not hold bytes");
  }
  int dims[3];
  if (HasRawPixels(row, column) && RawShape(row, column, dims)) {
    cv::Mat px(dims[0], dims[1], CV_8UC(dims[2]), const_cast<char*>(v->bytes().data()));
    cv::Mat bgr;
    if (dims[2] == 1) cv::cvtColor(px, bgr, cv::COLOR_GRAY2BGR);
    if (dims[2] == 3) cv::cvtColor(px, bgr, cv::COLOR_RGB2BGR);
    if (dims[2] == 4) cv::cvtColor(px, bgr, cv::COLOR_RGBA2BGR);
    return bgr;
  }
  // The pipeline's Decode: libturbojpeg / OpenCV, refusing headers that claim
  // more pixels than its limit before allocating them.
  static const auto decode = MakeOp({{"op", "Decode"}});
  if (!decode.ok()) return decode.status();
  std::mt19937_64 rng(0);
  MR_ASSIGN_OR_RETURN(Tensor rgb, (*decode)->Apply(Tensor::FromString(TensorType::kBytes, v->bytes()), rng));
  const auto& shape = rgb.shape();
  if (shape.size() != 3 || shape[2] != 3) return Status::Internal("Decode gave " + rgb.DebugString());
  cv::Mat px(static_cast<int>(shape[0]), static_cast<int>(shape[1]), CV_8UC3, const_cast<uint8_t*>(rgb.data()));
  cv::Mat bgr;
  cv::cvtColor(px, bgr, cv::COLOR_RGB2BGR);
  return bgr;
}

Result<std::string> EncodePng(const cv::Mat& bgr) {
  std::vector<uint8_t> out;
  try {
    if (!ImEncode(".png", bgr, out)) return Status::Internal("PNG encoding failed");
  } catch (const cv::Exception& e) {
    return Status::Internal(std::string("PNG encoding failed: ") + e.what());
  }
  return std::string(out.begin(), out.end());
}

}  // namespace mindrecord::cli
