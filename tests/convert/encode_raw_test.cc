// --encode raw for image-file sources: pixels decoded to HWC uint8 RGB, with
// image_shape = [height, width, 3], compared with an independent OpenCV decode.
#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

// The file decoded by OpenCV as 3-channel RGB, HWC bytes.
std::string OpenCvRgb(const std::string& file_bytes, std::vector<int32_t>* shape) {
  cv::Mat bgr = cv::imdecode(cv::Mat(1, static_cast<int>(file_bytes.size()), CV_8UC1, const_cast<char*>(file_bytes.data())),
                             cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  EXPECT_FALSE(bgr.empty());
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  *shape = {rgb.rows, rgb.cols, 3};
  return std::string(reinterpret_cast<const char*>(rgb.data), rgb.total() * 3);
}

void ExpectRawImage(const Row& row, const std::string& file_bytes, const std::string& what) {
  std::vector<int32_t> shape;
  std::string want = OpenCvRgb(file_bytes, &shape);
  EXPECT_EQ(row.Get("image_shape").ArrayAs<int32_t>(), shape) << what;
  EXPECT_EQ(row.Get("image").bytes().size(), want.size()) << what;
  EXPECT_TRUE(row.Get("image").bytes() == want) << what << ": pixels differ from OpenCV's decode";
}

std::string EncodeWith(const cv::Mat& img, const char* ext) {
  std::vector<uchar> out;
  EXPECT_TRUE(cv::imencode(ext, img, out));
  return std::string(out.begin(), out.end());
}

TEST(EncodeRawTest, ImageFolderJpegGrayAndAlphaPng) {
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "src", 2, 3, 24, 16, 4);
  // A grayscale PNG and an RGBA PNG: stored as 3 channels (gray expanded, alpha dropped).
  cv::Mat gray(5, 7, CV_8UC1);
  cv::randu(gray, 0, 255);
  cv::Mat bgra(6, 4, CV_8UC4);
  cv::randu(bgra, 0, 255);
  fixtures::WriteFile(dir / "src/class_01/z_gray.png", EncodeWith(gray, ".png"));
  fixtures::WriteFile(dir / "src/class_01/z_rgba.png", EncodeWith(bgra, ".png"));
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  auto r = Convert("imagefolder", dir / "src", dir / "raw.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Schema schema = ReadSchema(dir / "raw.mindrecord");
  ASSERT_NE(schema.Find("image_shape"), nullptr);
  EXPECT_EQ(schema.Find("image_shape")->type, DataType::kInt32);
  EXPECT_EQ(schema.Find("image_shape")->shape, (std::vector<int64_t>{3}));
  auto rows = ReadAll(dir / "raw.mindrecord");
  ASSERT_EQ(rows.size(), files.size() + 2);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string name = rows[i].Get("file_name").bytes();
    const std::string bytes = Slurp(dir / ("src/" + name));
    ExpectRawImage(rows[i], bytes, name);
    EXPECT_NE(rows[i].Get("image").bytes(), bytes);
  }
  // class_01: 3 JPEGs, then z_gray.png, z_rgba.png.
  const Row& g = rows[6];
  ASSERT_EQ(g.Get("file_name").bytes(), "class_01/z_gray.png");
  EXPECT_EQ(g.Get("image_shape").ArrayAs<int32_t>(), (std::vector<int32_t>{5, 7, 3}));
  const std::string& px = g.Get("image").bytes();
  for (int p = 0; p < 35; ++p) {
    ASSERT_EQ(static_cast<uint8_t>(px[3 * p]), gray.data[p]) << "pixel " << p;
    ASSERT_EQ(px[3 * p], px[3 * p + 2]);
  }
  EXPECT_EQ(rows[7].Get("image_shape").ArrayAs<int32_t>(), (std::vector<int32_t>{6, 4, 3}));
}

TEST(EncodeRawTest, TruncatedJpegFailsOrIsSkipped) {
  TempDir dir;
  fixtures::WriteImageFolder(dir / "src", 1, 2, 16, 16, 1);
  std::string jpeg = fixtures::MakeJpeg(32, 32, 9);
  fixtures::WriteFile(dir / "src/class_00/cut.jpg", jpeg.substr(0, jpeg.size() / 2));
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  auto r = Convert("imagefolder", dir / "src", dir / "raw.mindrecord", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cut.jpg"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().ToString();
  o.on_error = OnError::kSkip;
  r = Convert("imagefolder", dir / "src", dir / "raw.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(ReadAll(dir / "raw.mindrecord").size(), 2u);
}

TEST(EncodeRawTest, VocAndCocoStoreShapes) {
  TempDir dir;
  auto voc = fixtures::WriteVoc(dir / "voc", 4, 2);
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  for (std::string task : {"detection", "segmentation"}) {
    o.task = task;
    auto r = Convert("voc", dir / "voc", dir / ("voc_" + task + ".mindrecord"), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto rows = ReadAll(dir / ("voc_" + task + ".mindrecord"));
    ASSERT_EQ(rows.size(), voc.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ExpectRawImage(rows[i], voc[i].jpeg, task + " " + voc[i].id);
      const std::vector<int32_t> shape = rows[i].Get("image_shape").ArrayAs<int32_t>();
      EXPECT_EQ(shape, (std::vector<int32_t>{voc[i].height, voc[i].width, 3}));
      if (task == "segmentation") EXPECT_EQ(rows[i].Get("mask").bytes(), voc[i].mask_png);  // the PNG, not decoded
    }
  }
  auto coco = fixtures::WriteCoco(dir / "coco", 5, 3);
  o.task = "";
  o.annotations = dir / "coco/annotations.json";
  auto r = Convert("coco", dir / "coco/images", dir / "coco.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "coco.mindrecord");
  ASSERT_EQ(rows.size(), coco.jpegs.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ExpectRawImage(rows[i], coco.jpegs[i], "coco " + std::to_string(i));
    EXPECT_EQ(rows[i].Get("image_shape").ArrayAs<int32_t>(), (std::vector<int32_t>{30, 40, 3}));
  }
}

// Real photos (baseline and progressive JPEGs of the ImageNet map sample).
TEST(EncodeRawTest, CompatImageNetPhotos) {
  MR_REQUIRE_COMPAT(compat);
  TempDir dir;
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  o.page_size = 8 << 20;  // decoded photos are MBs
  const std::string src = compat + "/sources/imagenet_map";
  auto r = Convert("imagenet", src, dir / "in.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto rows = ReadAll(dir / "in.mindrecord");
  ASSERT_EQ(rows.size(), 10u);
  for (const Row& row : rows) {
    const std::string name = row.Get("file_name").bytes();
    ExpectRawImage(row, Slurp(src + "/images/" + name), name);
  }
}

TEST(EncodeRawTest, RefusedForTableSources) {
  TempDir dir;
  fixtures::WriteTfRecord(dir / "x.tfrecord", 3, 1);
  ConvertOptions o = SmallOptions();
  o.encode = EncodeMode::kRaw;
  auto r = Convert("tfrecord", dir / "x.tfrecord", dir / "t.mindrecord", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("--encode raw"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace mindrecord::convert
