#include <gtest/gtest.h>

#include <set>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/random_resized_crop.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;
using testing::TensorToMat;

// Pixel (y, x, c) of an HWC uint8 tensor.
int Px(const Tensor& t, int y, int x, int c) {
  return t.data()[(static_cast<size_t>(y) * t.shape()[1] + x) * t.shape()[2] + c];
}

TEST(OpsGeometryTest, ResizeSizesAndModes) {
  Tensor img = MatToTensor(SyntheticRgb(60, 90));
  EXPECT_EQ(RunOp(*Op({{"op", "Resize"}, {"size", {30, 40}}}), img).shape(), (std::vector<int64_t>{30, 40, 3}));
  // Shorter side 30 keeps the aspect ratio: 60x90 -> 30x45; 90x60 -> 45x30.
  EXPECT_EQ(RunOp(*Op({{"op", "Resize"}, {"size", 30}}), img).shape(), (std::vector<int64_t>{30, 45, 3}));
  Tensor tall = MatToTensor(SyntheticRgb(90, 60));
  EXPECT_EQ(RunOp(*Op({{"op", "Resize"}, {"size", 30}}), tall).shape(), (std::vector<int64_t>{45, 30, 3}));
  for (const char* mode : {"nearest", "bilinear", "bicubic", "area"}) {
    Tensor out = RunOp(*Op({{"op", "Resize"}, {"size", {20, 30}}, {"interpolation", mode}}), img);
    cv::Mat ref;
    int flag = std::string(mode) == "nearest"    ? cv::INTER_NEAREST
               : std::string(mode) == "bilinear" ? cv::INTER_LINEAR
               : std::string(mode) == "bicubic"  ? cv::INTER_CUBIC
                                                 : cv::INTER_AREA;
    cv::resize(TensorToMat(img), ref, cv::Size(30, 20), 0, 0, flag);
    EXPECT_TRUE(SameBytes(out, MatToTensor(ref))) << mode;
  }
  // Nearest 2x upscale of a 2x2 image replicates pixels.
  Tensor small = Tensor::Make(TensorType::kUInt8, {2, 2, 1});
  for (int i = 0; i < 4; ++i) small.MutableData()[i] = static_cast<uint8_t>(10 * (i + 1));
  Tensor up = RunOp(*Op({{"op", "Resize"}, {"size", {4, 4}}, {"interpolation", "nearest"}}), small);
  EXPECT_EQ(up.data()[0], 10);
  EXPECT_EQ(up.data()[3], 20);
  EXPECT_EQ(up.data()[15], 40);
  // float32 input works too.
  Tensor f = Tensor::Make(TensorType::kFloat32, {8, 8, 3});
  for (int i = 0; i < 192; ++i) f.mutable_data_as<float>()[i] = 1.5f;
  Tensor fo = RunOp(*Op({{"op", "Resize"}, {"size", 4}}), f);
  EXPECT_EQ(fo.type(), TensorType::kFloat32);
  EXPECT_FLOAT_EQ(fo.data_as<float>()[7], 1.5f);
}

TEST(OpsGeometryTest, CenterCropPicksExactWindow) {
  Tensor img = MatToTensor(SyntheticRgb(11, 17));
  Tensor out = RunOp(*Op({{"op", "CenterCrop"}, {"size", {4, 6}}}), img);
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{4, 6, 3}));
  const int top = (11 - 4) / 2, left = (17 - 6) / 2;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(Px(out, y, x, c), Px(img, top + y, left + x, c));
  // Larger than the image: zero border around it.
  Tensor big = RunOp(*Op({{"op", "CenterCrop"}, {"size", 13}}), Tensor(MatToTensor(SyntheticRgb(9, 9))));
  ASSERT_EQ(big.shape(), (std::vector<int64_t>{13, 13, 3}));
  EXPECT_EQ(Px(big, 0, 0, 0), 0);
  EXPECT_EQ(Px(big, 12, 12, 1), 0);
  Tensor src9 = MatToTensor(SyntheticRgb(9, 9));
  EXPECT_EQ(Px(big, 2, 2, 0), Px(src9, 0, 0, 0));
  EXPECT_EQ(Px(big, 10, 10, 1), Px(src9, 8, 8, 1));
}

TEST(OpsGeometryTest, RandomCropWindowAndPadding) {
  Tensor img = MatToTensor(SyntheticRgb(20, 30));
  auto op = Op({{"op", "RandomCrop"}, {"size", {8, 8}}});
  ASSERT_TRUE(op->is_random());
  std::set<std::pair<int, int>> seen;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Tensor out = RunOp(*op, img, seed);
    ASSERT_EQ(out.shape(), (std::vector<int64_t>{8, 8, 3}));
    // Find the window: the synthetic image's channel 0 encodes x, channel 1 y.
    bool found = false;
    for (int top = 0; top <= 12 && !found; ++top)
      for (int left = 0; left <= 22 && !found; ++left) {
        bool eq = true;
        for (int y = 0; y < 8 && eq; ++y)
          for (int x = 0; x < 8 && eq; ++x)
            for (int c = 0; c < 3 && eq; ++c) eq = Px(out, y, x, c) == Px(img, top + y, left + x, c);
        if (eq) found = true, seen.insert({top, left});
      }
    EXPECT_TRUE(found) << "seed " << seed;
    EXPECT_TRUE(SameBytes(out, RunOp(*op, img, seed)));  // reproducible
  }
  EXPECT_GT(seen.size(), 20u);
  // Padding 4 with fill 7 on a 6x6 image cropped to 14x14: the whole padded image.
  Tensor six = MatToTensor(SyntheticRgb(6, 6));
  Tensor padded = RunOp(*Op({{"op", "RandomCrop"}, {"size", 14}, {"padding", 4}, {"fill", 7}}), six);
  ASSERT_EQ(padded.shape(), (std::vector<int64_t>{14, 14, 3}));
  EXPECT_EQ(Px(padded, 0, 0, 0), 7);
  EXPECT_EQ(Px(padded, 4, 4, 2), Px(six, 0, 0, 2));
  // Edge mode replicates the border pixel.
  Tensor edge = RunOp(*Op({{"op", "RandomCrop"}, {"size", 8}, {"padding", 1}, {"padding_mode", "edge"}}), six);
  EXPECT_EQ(Px(edge, 0, 0, 1), Px(six, 0, 0, 1));
  // Too small without pad_if_needed; fine with it.
  std::mt19937_64 rng(1);
  auto r = Op({{"op", "RandomCrop"}, {"size", 10}})->Apply(six, rng);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("RandomCrop"), std::string::npos);
  EXPECT_EQ(RunOp(*Op({{"op", "RandomCrop"}, {"size", 10}, {"pad_if_needed", true}}), six).shape(),
            (std::vector<int64_t>{10, 10, 3}));
}

TEST(OpsGeometryTest, RandomResizedCropReproducibleAndVaried) {
  Tensor img = MatToTensor(SyntheticRgb(200, 300));
  auto op = Op({{"op", "RandomResizedCrop"}, {"size", {32, 48}}});
  ASSERT_TRUE(op->is_random());
  Tensor a = RunOp(*op, img, 42), b = RunOp(*op, img, 42);
  ASSERT_EQ(a.shape(), (std::vector<int64_t>{32, 48, 3}));
  EXPECT_TRUE(SameBytes(a, b));
  int different = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) different += !SameBytes(a, RunOp(*op, img, 1000 + seed));
  EXPECT_GE(different, 9);
}

TEST(OpsGeometryTest, RandomResizedCropWindowStatistics) {
  ops::RandomResizedCropParams p;
  p.size = {224, 224, true};
  std::mt19937_64 rng(7);
  double area_sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    ops::CropRect r = ops::SampleRandomResizedCrop(375, 500, p, rng);
    ASSERT_GT(r.w, 0);
    ASSERT_GT(r.h, 0);
    ASSERT_GE(r.top, 0);
    ASSERT_GE(r.left, 0);
    ASSERT_LE(r.top + r.h, 375);
    ASSERT_LE(r.left + r.w, 500);
    const double ratio = static_cast<double>(r.w) / r.h;
    EXPECT_GT(ratio, 0.70);
    EXPECT_LT(ratio, 1.40);
    area_sum += static_cast<double>(r.w) * r.h / (375.0 * 500.0);
  }
  // Accepted draws are U(0.08, 1) minus those too large: mean a bit under 0.54.
  EXPECT_GT(area_sum / n, 0.40);
  EXPECT_LT(area_sum / n, 0.56);
  // A 10:1 strip can never fit the ratio range: central fallback, ratio clamped to 4/3.
  p.scale_lo = 0.99;
  ops::CropRect r = ops::SampleRandomResizedCrop(30, 300, p, rng);
  EXPECT_EQ(r.h, 30);
  EXPECT_EQ(r.w, 40);
  EXPECT_EQ(r.left, 130);
  EXPECT_EQ(r.top, 0);
}

TEST(OpsGeometryTest, FlipTwiceIsIdentity) {
  Tensor img = MatToTensor(SyntheticRgb(13, 21));
  auto always = Op({{"op", "RandomHorizontalFlip"}, {"p", 1.0}});
  Tensor once = RunOp(*always, img);
  EXPECT_FALSE(SameBytes(once, img));
  for (int y = 0; y < 13; ++y)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(Px(once, y, 0, c), Px(img, y, 20, c));
  EXPECT_TRUE(SameBytes(RunOp(*always, once), img));
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomHorizontalFlip"}, {"p", 0.0}}), img), img));
  // p = 0.5: roughly half flip, each reproducible by seed.
  auto half = Op({{"op", "RandomHorizontalFlip"}});
  int flips = 0;
  for (uint64_t s = 0; s < 200; ++s) flips += SameBytes(RunOp(*half, img, s), once);
  EXPECT_GT(flips, 70);
  EXPECT_LT(flips, 130);
  // float32, 1 channel and 2-D work.
  Tensor f = Tensor::Make(TensorType::kFloat32, {2, 3});
  for (int i = 0; i < 6; ++i) f.mutable_data_as<float>()[i] = static_cast<float>(i);
  Tensor ff = RunOp(*always, f);
  EXPECT_EQ(ff.data_as<float>()[0], 2.f);
  EXPECT_EQ(ff.data_as<float>()[5], 3.f);
}

}  // namespace
}  // namespace mindrecord
