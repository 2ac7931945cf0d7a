#include "writers/convert/image_codec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "mindrecord/image_size.h"
#include "mindrecord/opencv_codecs.h"
#include "mindrecord/limits.h"

namespace mindrecord::convert {
namespace {

bool IsJpeg(std::string_view b) { return b.size() >= 3 && b.substr(0, 3) == std::string_view("\xFF\xD8\xFF", 3); }
bool IsPng(std::string_view b) { return b.size() >= 8 && b.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8); }

// One header reader per converter thread (a tjhandle is not safe to share;
// creating one per image costs more than reading the header). Replaced after
// a failed read: libturbojpeg leaves such a handle mid-stream, and the next
// header read with it fails too.
struct HeaderReader {
  tjhandle h = tjInitDecompress();
  ~HeaderReader() {
    if (h) tjDestroy(h);
  }
};
thread_local HeaderReader t_header_reader;

Status CheckJpeg(std::string_view b) {
  tjhandle h = t_header_reader.h;
  if (!h) return Status::Internal("libturbojpeg: cannot create a decompressor");
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  int rc = tjDecompressHeader3(h, reinterpret_cast<const unsigned char*>(b.data()), static_cast<unsigned long>(b.size()),
                               &w, &hgt, &subsamp, &colorspace);
  if (rc != 0) {
    std::string why = tjGetErrorStr2(h);
    tjDestroy(h);
    t_header_reader.h = tjInitDecompress();
    return Status::Corruption("undecodable JPEG: " + why);
  }
  if (w <= 0 || hgt <= 0) return Status::Corruption("JPEG with an empty image");
  // A truncated JPEG still has a good header; its end-of-image marker is gone.
  // Some writers append padding after EOI, so look at the last few bytes.
  std::string_view tail = b.substr(b.size() > 64 ? b.size() - 64 : 0);
  if (tail.find("\xFF\xD9") == std::string_view::npos) return Status::Corruption("truncated JPEG (no end-of-image marker)");
  return Status::OK();
}

Status CheckPng(std::string_view b) {
  // Signature, then the IHDR chunk (length 13) with non-zero dimensions.
  if (b.size() < 33 || b.substr(12, 4) != "IHDR") return Status::Corruption("truncated PNG (no IHDR chunk)");
  auto be32 = [&](size_t off) {
    const auto* p = reinterpret_cast<const uint8_t*>(b.data()) + off;
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  };
  if (be32(16) == 0 || be32(20) == 0) return Status::Corruption("PNG with an empty image");
  if (b.substr(b.size() >= 12 ? b.size() - 12 : 0).find("IEND") == std::string_view::npos)
    return Status::Corruption("truncated PNG (no IEND chunk)");
  return Status::OK();
}

// Before a decode: only an image whose header gives its size reaches a
// decoder, and none claiming more than the limits (a 633-byte JPEG claiming
// 20000 x 20000 was decoded into 1.2 GB).
Status CheckPixels(std::string_view b) {
  auto claimed = ReadClaimedImageSize(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  if (!claimed.ok()) return Status::Corruption("undecodable image: " + claimed.status().message());
  Status st = CheckClaimedImageSize(*claimed);
  if (st.ok()) return st;
  // JPEG and PNG files are checked without a decode when kept as they are.
  return Status::Corruption(st.message() +
                            (IsJpeg(b) || IsPng(b) ? " (keep its bytes as they are with --encode keep)" : ""));
}

Result<cv::Mat> Decode(std::string_view bytes) {
  MR_RETURN_IF_ERROR(CheckPixels(bytes));
  cv::Mat buf(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<char*>(bytes.data()));
  cv::Mat img;
  try {
    img = ImDecode(buf, cv::IMREAD_UNCHANGED);
  } catch (const cv::Exception& e) {
    return Status::Corruption(std::string("undecodable image: ") + e.what());
  }
  if (img.empty()) return Status::Corruption("undecodable image (unknown format or corrupt data)");
  return img;
}

// libturbojpeg into RGB; empty result (not an error) when it refuses the data.
std::string DecodeJpegRgb(std::string_view b, int* height, int* width) {
  tjhandle h = tjInitDecompress();
  if (!h) return {};
  std::string out;
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(b.data());
  const auto size = static_cast<unsigned long>(b.size());
  if (tjDecompressHeader3(h, data, size, &w, &hgt, &subsamp, &colorspace) == 0 && w > 0 && hgt > 0) {
    out.resize(static_cast<size_t>(w) * hgt * 3);
    int rc = tjDecompress2(h, data, size, reinterpret_cast<unsigned char*>(out.data()), w, w * 3, hgt, TJPF_RGB, 0);
    if (rc != 0 && tjGetErrorCode(h) == TJERR_FATAL) out.clear();
    *height = hgt;
    *width = w;
  }
  tjDestroy(h);
  return out;
}

Result<std::string> Encode(const cv::Mat& img, const char* ext) {
  std::vector<uchar> out;
  try {
    if (!ImEncode(ext, img, out)) return Status::Internal(std::string("OpenCV could not encode ") + ext);
  } catch (const cv::Exception& e) {
    return Status::Internal(std::string("OpenCV could not encode ") + ext + ": " + e.what());
  }
  return std::string(out.begin(), out.end());
}

}  // namespace

uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below); a regular file's reads do not change.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound("no such file");
    return Status::IOError(std::string("cannot open: ") + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IOError("not a regular file");
  }
  // A file larger than a row can hold is refused before its buffer is made:
  // a sparse file claims any size for no disk space (8 GB read took 8.4 GB).
  auto too_large = [](const std::string& what) {
    return Status::Corruption(what + ", larger than a row may hold (" + std::to_string(kMaxDecompressedRowBytes >> 20) +
                              " MiB)");
  };
  if (static_cast<uint64_t>(st.st_size) > kMaxDecompressedRowBytes) {
    ::close(fd);
    return too_large(std::to_string(st.st_size) + " bytes");
  }
  // Read the size fstat reports, then whatever follows if the file grew.
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  char extra[4096];
  for (;;) {
    const bool tail = done >= data.size();
    ssize_t got = tail ? ::read(fd, extra, sizeof(extra)) : ::read(fd, data.data() + done, data.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::IOError(std::string("read failed: ") + std::strerror(err));
    }
    if (got == 0) break;
    if (tail) {
      data.resize(done);
      data.append(extra, static_cast<size_t>(got));
    }
    done += static_cast<size_t>(got);
    if (done > kMaxDecompressedRowBytes) {
      ::close(fd);
      return too_large("grew to more than " + std::to_string(done) + " bytes while read");
    }
  }
  ::close(fd);
  data.resize(done);
  return data;
}

Status CheckImage(std::string_view bytes) {
  if (bytes.empty()) return Status::Corruption("empty image file");
  if (IsJpeg(bytes)) return CheckJpeg(bytes);
  if (IsPng(bytes)) return CheckPng(bytes);
  return Decode(bytes).status();
}

Result<std::string> EncodeImageFile(std::string bytes, EncodeMode mode) {
  switch (mode) {
    case EncodeMode::kDefault:
    case EncodeMode::kKeep:
      MR_RETURN_IF_ERROR(CheckImage(bytes));
      return bytes;
    case EncodeMode::kJpeg:
    case EncodeMode::kPng: {
      MR_ASSIGN_OR_RETURN(cv::Mat img, Decode(bytes));
      if (mode == EncodeMode::kJpeg && img.depth() != CV_8U) img.convertTo(img, CV_8U, 1.0 / 256);
      if (mode == EncodeMode::kJpeg && img.channels() == 4) cv::cvtColor(img, img, cv::COLOR_BGRA2BGR);
      return Encode(img, mode == EncodeMode::kJpeg ? ".jpg" : ".png");
    }
    case EncodeMode::kRaw:
      break;
  }
  return Status::Internal("EncodeImageFile: kRaw goes through SetImageField");
}

Result<std::string> DecodeImageFileToRgb(std::string_view bytes, int* height, int* width) {
  MR_RETURN_IF_ERROR(CheckImage(bytes));
  MR_RETURN_IF_ERROR(CheckPixels(bytes));
  if (IsJpeg(bytes)) {
    std::string rgb = DecodeJpegRgb(bytes, height, width);
    if (!rgb.empty()) return rgb;
  }
  // Other formats, and JPEGs libturbojpeg refuses (e.g. CMYK quirks).
  cv::Mat buf(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<char*>(bytes.data()));
  cv::Mat bgr;
  try {
    bgr = ImDecode(buf, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& e) {
    return Status::Corruption(std::string("undecodable image: ") + e.what());
  }
  if (bgr.empty()) return Status::Corruption("undecodable image (unknown format or corrupt data)");
  std::string out(static_cast<size_t>(bgr.rows) * bgr.cols * 3, '\0');
  cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, out.data());
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  *height = bgr.rows;
  *width = bgr.cols;
  return out;
}

void AddImageFields(std::vector<Field>& fields, const std::string& name, EncodeMode mode) {
  fields.push_back({name, DataType::kBytes, false, {}});
  if (mode == EncodeMode::kRaw) fields.push_back({name + "_shape", DataType::kInt32, true, {3}});
}

Status SetImageField(Row& row, const std::string& name, std::string file_bytes, EncodeMode mode) {
  if (mode != EncodeMode::kRaw) {
    MR_ASSIGN_OR_RETURN(std::string image, EncodeImageFile(std::move(file_bytes), mode));
    row.Set(name, Value::Bytes(std::move(image)));
    return Status::OK();
  }
  int height = 0, width = 0;
  MR_ASSIGN_OR_RETURN(std::string pixels, DecodeImageFileToRgb(file_bytes, &height, &width));
  row.Set(name, Value::Bytes(std::move(pixels)));
  row.Set(name + "_shape", Value::ArrayOf<int32_t>(DataType::kInt32, {height, width, 3}));
  return Status::OK();
}

Result<std::string> EncodePixels(const uint8_t* hwc, int rows, int cols, int channels, EncodeMode mode) {
  if (channels != 1 && channels != 3) return Status::Internal("EncodePixels: channels must be 1 or 3");
  if (mode == EncodeMode::kRaw) {
    return std::string(reinterpret_cast<const char*>(hwc), static_cast<size_t>(rows) * cols * channels);
  }
  cv::Mat img(rows, cols, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t*>(hwc));
  cv::Mat bgr;
  if (channels == 3) {
    cv::cvtColor(img, bgr, cv::COLOR_RGB2BGR);  // OpenCV encodes BGR
  } else {
    bgr = img;
  }
  return Encode(bgr, mode == EncodeMode::kPng ? ".png" : ".jpg");
}

}  // namespace mindrecord::convert
