// MindSpore's image file and encoding functions (pipeline/ops/image_codec.h,
// image_file.h): round trips through OpenCV's decoder, the channel order,
// MindSpore's checks and messages, and file errors naming the file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "pipeline/ops/image_codec.h"
#include "pipeline/ops/image_file.h"
#include "tests/pipeline/ops_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::SyntheticRgb;
using testing::TempDir;

cv::Mat Decoded(const Tensor& bytes, int flags) {
  cv::Mat buf(1, static_cast<int>(bytes.size_bytes()), CV_8UC1, const_cast<uint8_t*>(bytes.data()));
  return cv::imdecode(buf, flags);
}

bool SameMat(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && a.type() == b.type() && cv::norm(a, b, cv::NORM_INF) == 0;
}

double Psnr(const cv::Mat& a, const cv::Mat& b) { return cv::PSNR(a, b); }

cv::Mat Rgb2Bgr(const cv::Mat& rgb) {
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  return bgr;
}

std::string Message(const Status& s) { return s.message(); }

TEST(OpsImageIoTest, EncodePngRoundTripsExactly) {
  cv::Mat rgb = SyntheticRgb(21, 34);
  for (int level : {0, 6, 9}) {
    auto png = ops::EncodePng(MatToTensor(rgb), level);
    ASSERT_TRUE(png.ok()) << png.status().ToString();
    ASSERT_EQ(png->shape().size(), 1u);
    EXPECT_EQ(png->data()[1], 'P');
    // OpenCV decodes to BGR: the file holds RGB as given.
    EXPECT_TRUE(SameMat(Decoded(*png, cv::IMREAD_UNCHANGED), Rgb2Bgr(rgb))) << level;
  }
  cv::Mat gray;
  cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
  Tensor hw = MatToTensor(gray).Reshaped({21, 34});
  for (const Tensor& t : {hw, MatToTensor(gray)}) {  // HW and HW1
    auto png = ops::EncodePng(t, 6);
    ASSERT_TRUE(png.ok());
    EXPECT_TRUE(SameMat(Decoded(*png, cv::IMREAD_UNCHANGED), gray));
  }
}

TEST(OpsImageIoTest, EncodeJpegIsRgbAndCloseAndFollowsQuality) {
  cv::Mat rgb = SyntheticRgb(64, 80);
  auto q95 = ops::EncodeJpeg(MatToTensor(rgb), 95);
  auto q10 = ops::EncodeJpeg(MatToTensor(rgb), 10);
  ASSERT_TRUE(q95.ok() && q10.ok());
  EXPECT_EQ(q95->data()[0], 0xFF);
  EXPECT_EQ(q95->data()[1], 0xD8);
  EXPECT_GT(Psnr(Decoded(*q95, cv::IMREAD_COLOR), Rgb2Bgr(rgb)), 30.0);  // 33.7 dB: the blue channel wraps at 256
  EXPECT_LT(q10->size_bytes(), q95->size_bytes());
  // The bytes of OpenCV's encoder with MindSpore's parameters.
  std::vector<uchar> want;
  cv::imencode(".JPEG", Rgb2Bgr(rgb), want,
               {cv::IMWRITE_JPEG_QUALITY, 95, cv::IMWRITE_JPEG_PROGRESSIVE, 0, cv::IMWRITE_JPEG_OPTIMIZE, 0,
                cv::IMWRITE_JPEG_RST_INTERVAL, 0});
  ASSERT_EQ(want.size(), q95->size_bytes());
  EXPECT_EQ(0, std::memcmp(want.data(), q95->data(), want.size()));
  // A pure red image stays red (channel order).
  cv::Mat red(16, 16, CV_8UC3, cv::Scalar(255, 0, 0));
  auto r = ops::EncodeJpeg(MatToTensor(red), 90);
  ASSERT_TRUE(r.ok());
  cv::Vec3b px = Decoded(*r, cv::IMREAD_COLOR).at<cv::Vec3b>(8, 8);  // BGR
  EXPECT_GT(px[2], 240);
  EXPECT_LT(px[0], 15);
  // Gray: one component.
  cv::Mat gray(16, 24, CV_8UC1, cv::Scalar(77));
  auto g = ops::EncodeJpeg(MatToTensor(gray).Reshaped({16, 24}), 75);
  ASSERT_TRUE(g.ok());
  cv::Mat back = Decoded(*g, cv::IMREAD_UNCHANGED);
  EXPECT_EQ(back.channels(), 1);
  EXPECT_LE(cv::norm(back, gray, cv::NORM_INF), 1.0);
}

TEST(OpsImageIoTest, EncodeRefusesAsMindSpore) {
  Tensor img = MatToTensor(SyntheticRgb(8, 8));
  EXPECT_EQ(Message(ops::EncodeJpeg(img, 101).status()),
            "EncodeJpeg: Invalid quality 101, should be in range of [1, 100].");
  EXPECT_EQ(Message(ops::EncodeJpeg(img, 0).status()),
            "EncodeJpeg: Invalid quality 0, should be in range of [1, 100].");
  EXPECT_TRUE(ops::EncodeJpeg(img, 1).ok());
  EXPECT_TRUE(ops::EncodeJpeg(img, 100).ok());
  EXPECT_EQ(Message(ops::EncodePng(img, 10).status()),
            "EncodePng: Invalid compression_level 10, should be in range of [0, 9].");
  EXPECT_EQ(Message(ops::EncodePng(img, -1).status()),
            "EncodePng: Invalid compression_level -1, should be in range of [0, 9].");
  EXPECT_EQ(Message(ops::EncodeJpeg(Tensor::Make(TensorType::kFloat32, {4, 4, 3}), 75).status()),
            "EncodeJpeg: The type of the image data should be UINT8, but got float32.");
  EXPECT_EQ(Message(ops::EncodePng(Tensor::Make(TensorType::kUInt8, {10}), 6).status()),
            "EncodePng: The image has invalid dimensions. It should have two or three dimensions, but got 1 "
            "dimensions.");
  EXPECT_EQ(Message(ops::EncodeJpeg(Tensor::Make(TensorType::kUInt8, {2, 2, 2, 3}), 75).status()),
            "EncodeJpeg: The image has invalid dimensions. It should have two or three dimensions, but got 4 "
            "dimensions.");
  EXPECT_EQ(Message(ops::EncodeJpeg(Tensor::Make(TensorType::kUInt8, {4, 4, 2}), 75).status()),
            "EncodeJpeg: The image has invalid channels. It should have 1 or 3 channels, but got 2 channels.");
  EXPECT_NE(Message(ops::EncodePng(Tensor::Make(TensorType::kUInt8, {0, 4, 3}), 6).status()).find("empty"),
            std::string::npos);
}

TEST(OpsImageIoTest, FilesRoundTripAndErrorsNameTheFile) {
  TempDir dir;
  const std::string path = dir.Join("a.bin");
  Tensor data = Tensor::Make(TensorType::kUInt8, {5});
  for (int i = 0; i < 5; ++i) data.MutableData()[i] = static_cast<uint8_t>(250 + i);
  ASSERT_TRUE(ops::WriteFile(path, data).ok());
  auto back = ops::ReadWholeFile(path);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->shape(), Shape({5}));
  EXPECT_EQ(0, std::memcmp(back->data(), data.data(), 5));
  // Truncated when rewritten; an empty tensor of any rank writes an empty file.
  ASSERT_TRUE(ops::WriteFile(path, Tensor::Make(TensorType::kUInt8, {0, 3})).ok());
  EXPECT_EQ(ops::ReadWholeFile(path)->shape(), Shape({0}));

  auto missing = ops::ReadWholeFile(dir.Join("none"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Message(missing.status()), "ReadFile: Invalid file path, " + dir.Join("none") + " does not exist.");
  EXPECT_EQ(Message(ops::ReadWholeFile(dir.path()).status()),
            "ReadFile: Invalid file path, " + dir.path() + " is not a regular file.");
  EXPECT_EQ(Message(ops::WriteFile(dir.path(), data)),
            "WriteFile: Invalid file path, " + dir.path() + " is not a regular file.");
  EXPECT_EQ(Message(ops::WriteFile(path, Tensor::Make(TensorType::kUInt8, {2, 2}))),
            "WriteFile: The data has invalid dimensions. It should have only one dimension, but got 2 dimensions.");
  EXPECT_EQ(Message(ops::WriteFile(path, Tensor::Make(TensorType::kInt32, {2}))),
            "WriteFile: The type of the elements of data should be UINT8, but got int32.");
  Status no_dir = ops::WriteFile(dir.Join("no/such/dir"), data);
  EXPECT_FALSE(no_dir.ok());
  EXPECT_NE(Message(no_dir).find(dir.Join("no/such/dir")), std::string::npos) << Message(no_dir);
  // A failing disk: the error names the file.
  FaultInjectingFileSystem faulty(FileSystem::Default());
  faulty.FailWritesAfterBytes(2);
  Status full = ops::WriteFile(path, data, &faulty);
  EXPECT_FALSE(full.ok());
  EXPECT_NE(Message(full).find("WriteFile: Failed to write the file " + path), std::string::npos) << Message(full);
  // ...and leaves the file as it was (empty, above), with nothing beside it.
  EXPECT_EQ(ops::ReadWholeFile(path)->shape(), Shape({0}));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(OpsImageIoTest, WriteJpegPngWriteTheEncodedBytes) {
  TempDir dir;
  Tensor img = MatToTensor(SyntheticRgb(12, 17));
  ASSERT_TRUE(ops::WritePng(dir.Join("x.png"), img, 3).ok());
  auto file = ops::ReadWholeFile(dir.Join("x.png"));
  auto enc = ops::EncodePng(img, 3);
  ASSERT_TRUE(file.ok() && enc.ok());
  ASSERT_EQ(file->size_bytes(), enc->size_bytes());
  EXPECT_EQ(0, std::memcmp(file->data(), enc->data(), enc->size_bytes()));
  ASSERT_TRUE(ops::WriteJpeg(dir.Join("x.jpg"), img, 80).ok());
  auto jfile = ops::ReadWholeFile(dir.Join("x.jpg"));
  auto jenc = ops::EncodeJpeg(img, 80);
  ASSERT_EQ(jfile->size_bytes(), jenc->size_bytes());
  EXPECT_EQ(0, std::memcmp(jfile->data(), jenc->data(), jenc->size_bytes()));
  EXPECT_EQ(Message(ops::WriteJpeg(dir.Join("y.jpg"), img, 0)),
            "WriteJpeg: Invalid quality 0, should be in range of [1, 100].");
  EXPECT_EQ(Message(ops::WritePng(dir.Join("y.png"), Tensor::Make(TensorType::kInt16, {2, 2}), 6)),
            "WritePng: The type of the elements of image should be UINT8, but got int16.");
  struct stat st;
  EXPECT_NE(stat(dir.Join("y.jpg").c_str(), &st), 0);  // nothing written on a refused call
}

Tensor WriteMat(const std::string& path, const cv::Mat& m) {
  EXPECT_TRUE(cv::imwrite(path, m));
  return ops::ReadWholeFile(path).value();
}

cv::Mat AsMat(const ops::DecodedImageFile& d) {
  const int depth = d.sample_bytes == 2 ? CV_16U : CV_8U;
  return cv::Mat(static_cast<int>(d.height), static_cast<int>(d.width),
                 CV_MAKETYPE(depth, static_cast<int>(d.channels)), const_cast<uint8_t*>(d.bytes.data()));
}

TEST(OpsImageIoTest, ReadImageModesAsMindSpore) {
  TempDir dir;
  cv::Mat rgb = SyntheticRgb(10, 14);
  cv::Mat bgra;
  cv::cvtColor(Rgb2Bgr(rgb), bgra, cv::COLOR_BGR2BGRA);
  bgra.forEach<cv::Vec4b>([](cv::Vec4b& p, const int* pos) { p[3] = static_cast<uint8_t>(pos[1] * 10); });
  WriteMat(dir.Join("rgba.png"), bgra);
  // UNCHANGED: RGB, the alpha dropped (MindSpore's BGRA2RGB).
  auto u = ops::ReadImage(dir.Join("rgba.png"), ops::ImageReadMode::kUnchanged);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->channels, 3);
  EXPECT_TRUE(SameMat(AsMat(*u), rgb));
  auto c = ops::ReadImage(dir.Join("rgba.png"), ops::ImageReadMode::kColor);
  EXPECT_TRUE(SameMat(AsMat(*c), rgb));
  auto g = ops::ReadImage(dir.Join("rgba.png"), ops::ImageReadMode::kGrayscale);
  EXPECT_EQ(g->channels, 1);

  cv::Mat gray;
  cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
  WriteMat(dir.Join("g.png"), gray);
  auto gu = ops::ReadImage(dir.Join("g.png"), ops::ImageReadMode::kUnchanged);
  EXPECT_EQ(gu->channels, 1);
  EXPECT_TRUE(SameMat(AsMat(*gu), gray));
  auto gc = ops::ReadImage(dir.Join("g.png"), ops::ImageReadMode::kColor);
  cv::Mat gray3;
  cv::cvtColor(gray, gray3, cv::COLOR_GRAY2RGB);
  EXPECT_TRUE(SameMat(AsMat(*gc), gray3));

  cv::Mat deep(5, 6, CV_16UC1);
  for (int i = 0; i < 30; ++i) deep.at<uint16_t>(i / 6, i % 6) = static_cast<uint16_t>(i * 2000 + 7);
  WriteMat(dir.Join("d.png"), deep);
  auto du = ops::ReadImage(dir.Join("d.png"), ops::ImageReadMode::kUnchanged);
  ASSERT_TRUE(du.ok());
  EXPECT_EQ(du->sample_bytes, 2);
  EXPECT_TRUE(SameMat(AsMat(*du), deep));
  EXPECT_EQ(ops::ReadImage(dir.Join("d.png"), ops::ImageReadMode::kGrayscale)->sample_bytes, 1);
}

TEST(OpsImageIoTest, ReadImageRefusesBadFilesNamingThem) {
  TempDir dir;
  const std::string bad = dir.Join("bad.jpg");
  Tensor junk = Tensor::Make(TensorType::kUInt8, {64});
  std::memset(junk.MutableData(), 'x', 64);
  ASSERT_TRUE(ops::WriteFile(bad, junk).ok());
  auto r = ops::ReadImage(bad, ops::ImageReadMode::kColor);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(Message(r.status()).rfind("ReadImage: Failed to read file " + bad, 0), 0u) << Message(r.status());
  ASSERT_TRUE(ops::WriteFile(bad, Tensor::Make(TensorType::kUInt8, {0})).ok());
  EXPECT_NE(Message(ops::ReadImage(bad, ops::ImageReadMode::kColor).status()).find("empty"), std::string::npos);
  // A truncated PNG: header read, decode fails.
  auto png = ops::EncodePng(MatToTensor(SyntheticRgb(30, 30)), 6);
  Tensor cut = png->Region(0, TensorType::kUInt8, {png->num_elements() / 2});
  ASSERT_TRUE(ops::WriteFile(bad, cut).ok());
  auto t = ops::ReadImage(bad, ops::ImageReadMode::kUnchanged);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(Message(t.status()).find(bad), std::string::npos);
  EXPECT_EQ(ops::ReadImage(dir.Join("none.png"), ops::ImageReadMode::kColor).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Message(ops::ReadImage(dir.path(), ops::ImageReadMode::kColor).status()),
            "ReadImage: Invalid file path, " + dir.path() + " is not a regular file.");
}

}  // namespace
}  // namespace mindrecord
