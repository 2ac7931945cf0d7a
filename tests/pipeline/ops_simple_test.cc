// JSON specs of the fixed-parameter vision ops (pipeline/ops/simple_vision.h):
// results, ToJson round trips, and rejected parameters.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;
using testing::TensorToMat;

bool Rejected(const nlohmann::json& spec) { return !MakeOp(spec).ok(); }

Status ApplySimpleStatus(const nlohmann::json& spec, Tensor in) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status();
  std::mt19937_64 rng(0);
  return op.value()->Apply(std::move(in), rng).status();
}

TEST(OpsSimpleTest, FixedFlipsMirror) {
  cv::Mat m = SyntheticRgb(9, 13);
  cv::Mat h, v;
  cv::flip(m, h, 1);
  cv::flip(m, v, 0);
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "HorizontalFlip"}}), MatToTensor(m)), MatToTensor(h)));
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "VerticalFlip"}}), MatToTensor(m)), MatToTensor(v)));
  EXPECT_TRUE(Rejected({{"op", "HorizontalFlip"}, {"p", 0.5}}));
  EXPECT_EQ(Op({{"op", "VerticalFlip"}})->ToJson(), (nlohmann::json{{"op", "VerticalFlip"}}));
}

// A dataset row may hold any shape: no channels, or pixels wider than
// OpenCV's 512-byte channel limit (found by the op_spec fuzz target: the
// first threw out of cv::Mat's constructor).
TEST(OpsSimpleTest, FlipsAnyPixelWidth) {
  Tensor empty = Tensor::Make(TensorType::kUInt8, {12, 16, 0});
  std::mt19937_64 rng(0);
  auto out = MakeOp({{"op", "HorizontalFlip"}}).value()->Apply(empty, rng);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->shape(), empty.shape());
  const int h = 3, w = 5, c = 70;  // 70 float64 = 560 bytes a pixel
  Tensor wide = Tensor::Make(TensorType::kFloat64, {h, w, c});
  double* v = wide.mutable_data_as<double>();
  for (int i = 0; i < h * w * c; ++i) v[i] = i;
  for (const char* name : {"HorizontalFlip", "VerticalFlip"}) {
    Tensor got = RunOp(*Op({{"op", name}}), wide);
    const double* g = got.data_as<double>();
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < c; ++k) {
          const int sy = std::string(name) == "VerticalFlip" ? h - 1 - y : y;
          const int sx = std::string(name) == "HorizontalFlip" ? w - 1 - x : x;
          ASSERT_EQ(g[(y * w + x) * c + k], v[(sy * w + sx) * c + k]) << name;
        }
  }
}

TEST(OpsSimpleTest, CropIsTheWindowAndChecksBounds) {
  cv::Mat m = SyntheticRgb(20, 30);
  nlohmann::json spec = {{"op", "Crop"}, {"coordinates", {3, 5}}, {"size", {10, 25}}};
  Tensor out = RunOp(*Op(spec), MatToTensor(m));
  EXPECT_TRUE(SameBytes(out, MatToTensor(m(cv::Rect(5, 3, 25, 10)).clone())));
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  EXPECT_FALSE(ApplySimpleStatus({{"op", "Crop"}, {"coordinates", {3, 6}}, {"size", {10, 25}}}, MatToTensor(m)).ok());
  EXPECT_FALSE(ApplySimpleStatus({{"op", "Crop"}, {"coordinates", {11, 0}}, {"size", 10}}, MatToTensor(m)).ok());
  // Near-INT32_MAX coordinates: a clean error, no overflow.
  EXPECT_FALSE(
      ApplySimpleStatus({{"op", "Crop"}, {"coordinates", {2147483647, 2147483647}}, {"size", 5}}, MatToTensor(m)).ok());
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {-1, 0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {1e300, 0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {2147483648.0, 0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {0.5, 0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {18446744073709551615ull, 0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {0}}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"size", 5}}));
  EXPECT_TRUE(Rejected({{"op", "Crop"}, {"coordinates", {0, 0}}}));
}

TEST(OpsSimpleTest, ResizedCropIsCropThenResize) {
  cv::Mat m = SyntheticRgb(20, 30);
  nlohmann::json spec = {{"op", "ResizedCrop"}, {"top", 2}, {"left", 4}, {"height", 12}, {"width", 16},
                         {"size", {6, 8}},      {"interpolation", "bilinear"}};
  Tensor out = RunOp(*Op(spec), MatToTensor(m));
  cv::Mat want;
  cv::resize(m(cv::Rect(4, 2, 16, 12)), want, cv::Size(8, 6), 0, 0, cv::INTER_LINEAR);
  EXPECT_LE(testing::MeanAbsDiff(out, MatToTensor(want)), 0.5);
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  // An int size, MindSpore's rule: the image (20x30) is wider than tall, so the
  // height becomes 6 and the width keeps the window's ratio, rounded: 12x16 -> 6x8.
  spec["size"] = 6;
  EXPECT_EQ(RunOp(*Op(spec), MatToTensor(m)).shape(), (std::vector<int64_t>{6, 8, 3}));
  // A tall window in a wide image: the height is still the side given
  // (12x5 -> 7 x round(5/12*7) = 7x3), not the window's shorter side.
  nlohmann::json tall = {{"op", "ResizedCrop"}, {"top", 0}, {"left", 0}, {"height", 12}, {"width", 5}, {"size", 7}};
  EXPECT_EQ(RunOp(*Op(tall), MatToTensor(m)).shape(), (std::vector<int64_t>{7, 3, 3}));
  // A tall image: the width is the side given (round(12/16*7) = 5.25 -> 5).
  tall = {{"op", "ResizedCrop"}, {"top", 0}, {"left", 0}, {"height", 12}, {"width", 16}, {"size", 7}};
  EXPECT_EQ(RunOp(*Op(tall), MatToTensor(SyntheticRgb(30, 20))).shape(), (std::vector<int64_t>{5, 7, 3}));
  // A side that rounds to nothing is an error, not an empty image.
  tall = {{"op", "ResizedCrop"}, {"top", 0}, {"left", 0}, {"height", 20}, {"width", 1}, {"size", 1}};
  EXPECT_FALSE(ApplySimpleStatus(tall, MatToTensor(m)).ok());
  spec["top"] = 9;
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  EXPECT_TRUE(Rejected({{"op", "ResizedCrop"}, {"top", 0}, {"left", 0}, {"height", 0}, {"width", 1}, {"size", 2}}));
  EXPECT_TRUE(Rejected({{"op", "ResizedCrop"}, {"top", 0}, {"left", 0}, {"height", 1}, {"width", 1}}));
  EXPECT_TRUE(Rejected(
      {{"op", "ResizedCrop"}, {"top", 1e19}, {"left", 0}, {"height", 1}, {"width", 1}, {"size", 2}}));
  EXPECT_TRUE(Rejected({{"op", "ResizedCrop"},
                        {"top", 0},
                        {"left", 0},
                        {"height", 1},
                        {"width", 1},
                        {"size", 2},
                        {"interpolation", "lanczos"}}));
}

TEST(OpsSimpleTest, RandomGrayscaleKeepsThreeChannels) {
  cv::Mat m = SyntheticRgb(8, 8);
  Tensor out = RunOp(*Op({{"op", "RandomGrayscale"}, {"prob", 1.0}}), MatToTensor(m));
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{8, 8, 3}));
  cv::Mat gray;
  cv::cvtColor(m, gray, cv::COLOR_RGB2GRAY);
  for (int i = 0; i < 64; ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(out.data()[i * 3 + c], gray.data[i]);
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomGrayscale"}, {"prob", 0.0}}), MatToTensor(m)), MatToTensor(m)));
  EXPECT_EQ(Op({{"op", "RandomGrayscale"}})->ToJson(), (nlohmann::json{{"op", "RandomGrayscale"}, {"prob", 0.1}}));
  EXPECT_TRUE(Rejected({{"op", "RandomGrayscale"}, {"prob", -0.1}}));
  EXPECT_TRUE(Rejected({{"op", "RandomGrayscale"}, {"p", 0.5}}));
}

TEST(OpsSimpleTest, EraseFillsTheClippedWindow) {
  cv::Mat m = SyntheticRgb(10, 12);
  // A box running past the bottom-right edge is clipped (as MindSpore)...
  nlohmann::json spec = {{"op", "Erase"}, {"top", 6},  {"left", 8}, {"height", 10}, {"width", 12},
                         {"value", {1.0, 2.0, 3.0}}, {"inplace", false}};
  Tensor out = RunOp(*Op(spec), MatToTensor(m));
  cv::Mat want = m.clone();
  want(cv::Rect(8, 6, 4, 4)).setTo(cv::Scalar(1, 2, 3));
  EXPECT_TRUE(SameBytes(out, MatToTensor(want)));
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  // ...but a box larger than the image is an error, as MindSpore's.
  spec["height"] = 11;
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  spec["height"] = 2147483647;
  spec["width"] = 2147483647;
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  EXPECT_FALSE(ApplySimpleStatus(spec, Tensor::Make(TensorType::kUInt8, {4, 4})).ok());  // HWC required
  EXPECT_TRUE(Rejected({{"op", "Erase"}, {"top", 0}, {"left", 0}, {"height", 1}, {"width", 1}, {"value", 256}}));
  EXPECT_TRUE(
      Rejected({{"op", "Erase"}, {"top", 0}, {"left", 0}, {"height", 1}, {"width", 1}, {"value", {1.0, 2.0}}}));
  EXPECT_TRUE(Rejected({{"op", "Erase"}, {"top", 0}, {"left", -1}, {"height", 1}, {"width", 1}}));
  EXPECT_TRUE(Rejected({{"op", "Erase"}, {"top", 0}, {"left", 0}, {"height", 1}, {"width", 1}, {"inplace", 1}}));
}

TEST(OpsSimpleTest, PadToSizeCentresOrOffsets) {
  cv::Mat m = SyntheticRgb(4, 6);
  nlohmann::json spec = {{"op", "PadToSize"}, {"size", {7, 9}}, {"offset", nullptr}, {"fill_value", 5},
                         {"padding_mode", "constant"}};
  Tensor out = RunOp(*Op(spec), MatToTensor(m));
  cv::Mat want;
  cv::copyMakeBorder(m, want, 1, 2, 1, 2, cv::BORDER_CONSTANT, cv::Scalar(5, 5, 5));
  EXPECT_TRUE(SameBytes(out, MatToTensor(want)));
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  spec["offset"] = {3, 0};
  cv::copyMakeBorder(m, want, 3, 0, 0, 3, cv::BORDER_CONSTANT, cv::Scalar(5, 5, 5));
  EXPECT_TRUE(SameBytes(RunOp(*Op(spec), MatToTensor(m)), MatToTensor(want)));
  spec["offset"] = 4;  // 4 + 4 > 7
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  spec["offset"] = 2147483647;
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  spec["offset"] = nullptr;
  spec["size"] = {3, 9};
  EXPECT_FALSE(ApplySimpleStatus(spec, MatToTensor(m)).ok());
  EXPECT_TRUE(Rejected({{"op", "PadToSize"}, {"size", 5}, {"offset", -1}}));
  EXPECT_TRUE(Rejected({{"op", "PadToSize"}, {"size", 5}, {"offset", 1e300}}));
  EXPECT_TRUE(Rejected({{"op", "PadToSize"}, {"size", 5}, {"offset", {1, 2, 3}}}));
  EXPECT_TRUE(Rejected({{"op", "PadToSize"}, {"size", 5}, {"padding_mode", "wrap"}}));
}

TEST(OpsSimpleTest, RandomResizeDrawsAMode) {
  cv::Mat m = SyntheticRgb(12, 16);
  auto op = Op({{"op", "RandomResize"}, {"size", {5, 7}}});
  std::set<std::string> seen;
  for (uint64_t s = 0; s < 40; ++s) {
    Tensor out = RunOp(*op, MatToTensor(m), s);
    ASSERT_EQ(out.shape(), (std::vector<int64_t>{5, 7, 3}));
    seen.insert(std::string(reinterpret_cast<const char*>(out.data()), out.size_bytes()));
  }
  EXPECT_GE(seen.size(), 3u);  // several modes are drawn (area and bilinear may coincide)
  EXPECT_TRUE(Rejected({{"op", "RandomResize"}}));
  EXPECT_TRUE(Rejected({{"op", "RandomResize"}, {"size", 5}, {"interpolation", "nearest"}}));
}

TEST(OpsSimpleTest, ToPilPassesImagesOnAndRefusesOthers) {
  cv::Mat m = SyntheticRgb(4, 5);
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "ToPIL"}}), MatToTensor(m)), MatToTensor(m)));
  EXPECT_EQ(RunOp(*Op({{"op", "ToPIL"}}), Tensor::Make(TensorType::kFloat32, {3, 2})).shape(), (Shape{3, 2}));
  for (const Tensor& bad : {Tensor::FromString(TensorType::kBytes, "\xff\xd8"), Tensor::Make(TensorType::kUInt8, {2, 2, 5}),
                            Tensor::Make(TensorType::kUInt8, {1, 2, 2, 3}), Tensor::Make(TensorType::kUInt8, {4})})
    EXPECT_FALSE(ApplySimpleStatus({{"op", "ToPIL"}}, bad).ok()) << bad.DebugString();
  EXPECT_TRUE(Rejected({{"op", "ToPIL"}, {"mode", "RGB"}}));
}

}  // namespace
}  // namespace mindrecord
