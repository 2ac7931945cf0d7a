#include "pipeline/ops/image_codec.h"

#include <climits>
#include <cstring>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "mindrecord/image_size.h"
#include "mindrecord/opencv_codecs.h"
#include "pipeline/ops/cv_util.h"
#include "pipeline/ops/image_file.h"

namespace mindrecord::ops {

namespace {

// MindSpore's checks of an image to encode, in its order and words: uint8,
// rank 2 or 3, 1 or 3 channels; then `param` (quality / compression_level)
// in [lo, hi]. `op` is "EncodeJpeg", "WriteJpeg", ...
Result<ImageDims> CheckEncodable(const Tensor& image, const std::string& op, const char* param, int value, int lo,
                                 int hi) {
  if (image.type() != TensorType::kUInt8) {
    // MindSpore's Write* functions say "the elements of image", Encode* "the image data".
    const bool write = op.rfind("Write", 0) == 0;
    return Status::InvalidArgument(op + ": The type of " + (write ? "the elements of image" : "the image data") +
                                   " should be UINT8, but got " + TensorTypeName(image.type()) + ".");
  }
  const Shape& s = image.shape();
  if (s.size() < 2 || s.size() > 3)
    return Status::InvalidArgument(op + ": The image has invalid dimensions. It should have two or three dimensions, "
                                   "but got " + std::to_string(s.size()) + " dimensions.");
  ImageDims d;
  d.has_channel_dim = s.size() == 3;
  const int64_t c = d.has_channel_dim ? s[2] : 1;
  if (c != 1 && c != 3)
    return Status::InvalidArgument(op + ": The image has invalid channels. It should have 1 or 3 channels, but got " +
                                   std::to_string(c) + " channels.");
  if (value < lo || value > hi)
    return Status::InvalidArgument(op + ": Invalid " + param + " " + std::to_string(value) +
                                   ", should be in range of [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   "].");
  if (s[0] == 0 || s[1] == 0)
    return Status::InvalidArgument(op + ": The image is empty (shape " + ShapeString(s) + "), nothing to encode.");
  if (s[0] > INT_MAX || s[1] > INT_MAX)  // cv::Mat sizes are int
    return Status::InvalidArgument(op + ": The image is too large to encode (shape " + ShapeString(s) + ").");
  d.h = static_cast<int>(s[0]);
  d.w = static_cast<int>(s[1]);
  d.c = static_cast<int>(c);
  return d;
}

// imencode of the image (RGB turned into OpenCV's BGR first) with `params`.
Result<Tensor> Encode(const Tensor& image, const ImageDims& d, const char* ext, const std::vector<int>& params,
                      const std::string& op) {
  std::vector<uchar> buf;
  bool ok = false;
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat m = AsMat(image, d);
    if (d.c == 3) {
      cv::Mat bgr;
      cv::cvtColor(m, bgr, cv::COLOR_RGB2BGR);
      ok = ImEncode(ext, bgr, buf, params);
    } else {
      ok = ImEncode(ext, m, buf, params);
    }
  }));
  if (!ok) return Status::InvalidArgument(op + ": Failed to encode image.");
  Tensor out = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(buf.size())});
  if (!buf.empty()) std::memcpy(out.MutableData(), buf.data(), buf.size());
  return out;
}

Result<Tensor> EncodeJpegAs(const Tensor& image, int quality, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckEncodable(image, op, "quality", quality, kMinJpegQuality, kMaxJpegQuality));
  // MindSpore's parameters: baseline, standard Huffman tables, no restart markers.
  return Encode(image, d, ".JPEG",
                {cv::IMWRITE_JPEG_QUALITY, quality, cv::IMWRITE_JPEG_PROGRESSIVE, 0, cv::IMWRITE_JPEG_OPTIMIZE, 0,
                 cv::IMWRITE_JPEG_RST_INTERVAL, 0},
                op);
}

Result<Tensor> EncodePngAs(const Tensor& image, int level, const std::string& op) {
  MR_ASSIGN_OR_RETURN(ImageDims d,
                      CheckEncodable(image, op, "compression_level", level, kMinPngCompression, kMaxPngCompression));
  return Encode(image, d, ".PNG",
                {cv::IMWRITE_PNG_COMPRESSION, level, cv::IMWRITE_PNG_STRATEGY, cv::IMWRITE_PNG_STRATEGY_RLE}, op);
}

int CvReadFlag(ImageReadMode mode) {
  switch (mode) {
    case ImageReadMode::kGrayscale: return cv::IMREAD_GRAYSCALE;
    case ImageReadMode::kColor: return cv::IMREAD_COLOR;
    case ImageReadMode::kUnchanged: break;
  }
  return cv::IMREAD_UNCHANGED;
}

}  // namespace

Result<Tensor> EncodeJpeg(const Tensor& image, int quality) { return EncodeJpegAs(image, quality, "EncodeJpeg"); }

Result<Tensor> EncodePng(const Tensor& image, int compression_level) {
  return EncodePngAs(image, compression_level, "EncodePng");
}

Status WriteJpeg(const std::string& filename, const Tensor& image, int quality, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(Tensor bytes, EncodeJpegAs(image, quality, "WriteJpeg"));
  return WriteWholeFile(filename, bytes.data(), bytes.size_bytes(), "WriteJpeg", fs);
}

Status WritePng(const std::string& filename, const Tensor& image, int compression_level, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(Tensor bytes, EncodePngAs(image, compression_level, "WritePng"));
  return WriteWholeFile(filename, bytes.data(), bytes.size_bytes(), "WritePng", fs);
}

Result<DecodedImageFile> DecodeImageBytes(const uint8_t* data, size_t size, ImageReadMode mode,
                                          const std::string& what) {
  const std::string fail = "ReadImage: Failed to read file " + what;
  if (size == 0) return Status::InvalidArgument(fail + ": the file is empty");
  if (size > static_cast<size_t>(INT_MAX)) return Status::InvalidArgument(fail + ": the file is too large");
  // The header first: only an image whose size is known and within the
  // limits reaches a decoder.
  auto claimed = ReadClaimedImageSize(data, size);
  if (!claimed.ok()) return claimed.status().WithContext(fail);
  MR_RETURN_IF_ERROR(CheckClaimedImageSize(*claimed).WithContext(fail));

  DecodedImageFile out;
  MR_RETURN_IF_ERROR(CatchCv(fail, [&] {
    cv::Mat buf(1, static_cast<int>(size), CV_8UC1, const_cast<uint8_t*>(data));
    cv::Mat img = ImDecode(buf, CvReadFlag(mode));
    if (img.empty()) return;
    // As MindSpore: colour (any mode) becomes RGB, dropping alpha; gray stays one channel.
    if (mode == ImageReadMode::kColor || img.channels() > 1) {
      cv::Mat rgb;
      cv::cvtColor(img, rgb, cv::COLOR_BGRA2RGB);
      img = rgb;
    }
    if (img.depth() != CV_8U && img.depth() != CV_16U) return;  // refused below
    if (!img.isContinuous()) img = img.clone();
    out.height = img.rows;
    out.width = img.cols;
    out.channels = img.channels();
    out.sample_bytes = static_cast<int>(img.elemSize1());
    const size_t n = img.total() * img.elemSize();
    out.bytes = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(n)});
    std::memcpy(out.bytes.MutableData(), img.data, n);
  }));
  if (!out.bytes.defined())
    return Status::InvalidArgument(fail + ": cannot decode the " + claimed->format +
                                   " image (corrupt, truncated, or samples other than 8 or 16 bits)");
  return out;
}

Result<DecodedImageFile> ReadImage(const std::string& filename, ImageReadMode mode, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(Tensor bytes, ReadWholeFile(filename, "ReadImage", fs));
  return DecodeImageBytes(bytes.data(), bytes.size_bytes(), mode, filename);
}

}  // namespace mindrecord::ops
