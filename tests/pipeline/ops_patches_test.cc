// FiveCrop, TenCrop (pipeline/ops/multi_crop.h) and SlicePatches
// (pipeline/ops/slice_patches.h): the crops and patches against OpenCV ROIs
// and numpy-style indexing done here, element types, and rejected parameters.
#include <gtest/gtest.h>

#include <vector>

#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::SameBytes;
using testing::SyntheticRgb;

Result<std::vector<Tensor>> Columns(const nlohmann::json& spec, Tensor in) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status();
  std::mt19937_64 rng(0);
  std::vector<Tensor> cols;
  cols.push_back(std::move(in));
  return op.value()->ApplyColumns(std::move(cols), rng);
}

Tensor Roi(const cv::Mat& m, int top, int left, int h, int w) {
  return MatToTensor(m(cv::Rect(left, top, w, h)).clone());
}

TEST(OpsPatchesTest, FiveCropGivesCornersThenCentre) {
  // 11 x 13 image, 8 x 8 crops: the centre's top is round(3 / 2) = 2 and its
  // left round(5 / 2) = 2 (Python rounds halves to even).
  cv::Mat m = SyntheticRgb(11, 13);
  auto op = Op({{"op", "FiveCrop"}, {"size", 8}});
  EXPECT_EQ(op->num_outputs(), 5);
  auto out = Columns(op->ToJson(), MatToTensor(m));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 5u);
  EXPECT_TRUE(SameBytes((*out)[0], Roi(m, 0, 0, 8, 8)));
  EXPECT_TRUE(SameBytes((*out)[1], Roi(m, 0, 5, 8, 8)));
  EXPECT_TRUE(SameBytes((*out)[2], Roi(m, 3, 0, 8, 8)));
  EXPECT_TRUE(SameBytes((*out)[3], Roi(m, 3, 5, 8, 8)));
  EXPECT_TRUE(SameBytes((*out)[4], Roi(m, 2, 2, 8, 8)));
  // (h, w) sizes; a difference of 7 rounds 3.5 up to 4, of 1 rounds 0.5 down to 0.
  cv::Mat n = SyntheticRgb(10, 9, 2);
  out = Columns({{"op", "FiveCrop"}, {"size", {3, 8}}}, MatToTensor(n));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(SameBytes((*out)[4], Roi(n, 4, 0, 3, 8)));
  EXPECT_TRUE(SameBytes((*out)[3], Roi(n, 7, 1, 3, 8)));
}

TEST(OpsPatchesTest, TenCropAddsTheCropsOfTheFlippedImage) {
  cv::Mat m = SyntheticRgb(12, 15);
  for (bool vertical : {false, true}) {
    auto out = Columns({{"op", "TenCrop"}, {"size", {5, 6}}, {"use_vertical_flip", vertical}}, MatToTensor(m));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 10u);
    auto first = Columns({{"op", "FiveCrop"}, {"size", {5, 6}}}, MatToTensor(m));
    cv::Mat flipped;
    cv::flip(m, flipped, vertical ? 0 : 1);
    auto second = Columns({{"op", "FiveCrop"}, {"size", {5, 6}}}, MatToTensor(flipped));
    for (int i = 0; i < 5; ++i) {
      EXPECT_TRUE(SameBytes((*out)[i], (*first)[i])) << i;
      EXPECT_TRUE(SameBytes((*out)[5 + i], (*second)[i])) << vertical << " " << i;
    }
  }
}

TEST(OpsPatchesTest, CropsTakeAnyNumericTypeAndRefuseTooLargeSizes) {
  Tensor t = Tensor::Make(TensorType::kInt16, {4, 5});
  for (int i = 0; i < 20; ++i) t.mutable_data_as<int16_t>()[i] = static_cast<int16_t>(-1000 * i);
  auto out = Columns({{"op", "FiveCrop"}, {"size", {2, 2}}}, t);
  ASSERT_TRUE(out.ok());
  const int16_t* br = (*out)[3].data_as<int16_t>();
  EXPECT_EQ((*out)[3].shape(), (Shape{2, 2}));
  EXPECT_EQ(br[0], -13000);  // row 2, column 3
  EXPECT_EQ(br[3], -19000);
  auto big = Columns({{"op", "TenCrop"}, {"size", {5, 2}}}, t);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().ToString().find("larger than the image"), std::string::npos);
  EXPECT_FALSE(Columns({{"op", "FiveCrop"}, {"size", 2}}, Tensor::Make(TensorType::kUInt8, {9})).ok());
  EXPECT_FALSE(MakeOp({{"op", "FiveCrop"}, {"size", 16777217}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "FiveCrop"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "TenCrop"}, {"size", 3}, {"use_vertical_flip", 1}}).ok());
  // One column in, so a per-column Apply is refused with a hint.
  std::mt19937_64 rng(0);
  auto one = Op({{"op", "TenCrop"}, {"size", 2}})->Apply(t, rng);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().ToString().find("output_columns"), std::string::npos);
  const nlohmann::json spec = {{"op", "TenCrop"}, {"size", {2, 3}}, {"use_vertical_flip", true}};
  EXPECT_EQ(Op(spec)->ToJson(), spec);
}

nlohmann::json SliceSpec(int nh, int nw, const char* mode, int fill) {
  return {{"op", "SlicePatches"}, {"num_height", nh}, {"num_width", nw}, {"slice_mode", mode}, {"fill_value", fill}};
}

TEST(OpsPatchesTest, SlicePatchesPadsOrDrops) {
  cv::Mat m = SyntheticRgb(10, 7);
  // Pad: 10 / 3 -> 4 rows per patch (2 rows of fill at the bottom), 7 / 2 -> 4 columns (1 of fill).
  cv::Mat padded;
  cv::copyMakeBorder(m, padded, 0, 2, 0, 1, cv::BORDER_CONSTANT, cv::Scalar::all(9));
  auto op = Op(SliceSpec(3, 2, "pad", 9));
  EXPECT_EQ(op->num_outputs(), 6);
  auto out = Columns(op->ToJson(), MatToTensor(m));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 6u);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_TRUE(SameBytes((*out)[i * 2 + j], Roi(padded, i * 4, j * 4, 4, 4))) << i << j;
  // Drop: 3 x 3 patches, the last row and column dropped.
  out = Columns(SliceSpec(3, 2, "drop", 9), MatToTensor(m));
  ASSERT_TRUE(out.ok());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_TRUE(SameBytes((*out)[i * 2 + j], Roi(m, i * 3, j * 3, 3, 3))) << i << j;
  // A size that divides: no padding in either mode.
  out = Columns(SliceSpec(2, 7, "pad", 9), MatToTensor(m));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(SameBytes((*out)[13], Roi(m, 5, 6, 5, 1)));
  EXPECT_EQ(Op(SliceSpec(3, 2, "drop", 9))->ToJson(), SliceSpec(3, 2, "drop", 9));
}

TEST(OpsPatchesTest, SlicePatchesFillsEveryElementType) {
  // int16 and float64 padding gets the value itself (not a byte pattern).
  Tensor s = Tensor::Make(TensorType::kInt16, {3, 2});
  for (int i = 0; i < 6; ++i) s.mutable_data_as<int16_t>()[i] = static_cast<int16_t>(300 + i);
  auto out = Columns(SliceSpec(2, 1, "pad", 200), s);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[1].data_as<int16_t>()[0], 304);
  EXPECT_EQ((*out)[1].data_as<int16_t>()[2], 200);
  Tensor d = Tensor::Make(TensorType::kFloat64, {1, 3, 1});
  for (int i = 0; i < 3; ++i) d.mutable_data_as<double>()[i] = 0.5 * i;
  out = Columns(SliceSpec(1, 2, "pad", 7), d);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[1].shape(), (Shape{1, 2, 1}));
  EXPECT_EQ((*out)[1].data_as<double>()[0], 1.0);
  EXPECT_EQ((*out)[1].data_as<double>()[1], 7.0);
  // int8 saturates as OpenCV's Scalar fill does.
  Tensor c = Tensor::Make(TensorType::kInt8, {1, 3});
  for (int i = 0; i < 3; ++i) c.mutable_data_as<int8_t>()[i] = static_cast<int8_t>(i - 3);
  out = Columns(SliceSpec(1, 2, "pad", 255), c);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[1].data_as<int8_t>()[0], -1);
  EXPECT_EQ((*out)[1].data_as<int8_t>()[1], 127);
}

TEST(OpsPatchesTest, SlicePatchesRulesAndErrors) {
  // 1 x 1: the input itself, any rank >= 2 (MindSpore checks nothing more).
  Tensor r4 = Tensor::Make(TensorType::kUInt8, {2, 2, 2, 2});
  auto same = Columns(SliceSpec(1, 1, "pad", 0), r4);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)[0].data(), r4.data());
  std::mt19937_64 rng(0);
  EXPECT_TRUE(Op(SliceSpec(1, 1, "pad", 0))->Apply(r4, rng).ok());
  EXPECT_FALSE(Op(SliceSpec(2, 1, "pad", 0))->Apply(r4, rng).ok());
  EXPECT_FALSE(Columns(SliceSpec(1, 1, "pad", 0), Tensor::Make(TensorType::kUInt8, {5})).ok());
  EXPECT_FALSE(Columns(SliceSpec(2, 2, "pad", 0), r4).ok());  // rank 4 cannot be sliced
  auto tall = Columns(SliceSpec(4, 1, "pad", 0), Tensor::Make(TensorType::kUInt8, {3, 5}));
  ASSERT_FALSE(tall.ok());
  EXPECT_NE(tall.status().ToString().find("do not fit"), std::string::npos);
  EXPECT_FALSE(MakeOp(SliceSpec(0, 1, "pad", 0)).ok());
  EXPECT_FALSE(MakeOp(SliceSpec(1, 1, "pad", 256)).ok());
  EXPECT_FALSE(MakeOp(SliceSpec(1, 1, "wrap", 0)).ok());
  EXPECT_FALSE(MakeOp(SliceSpec(2048, 1024, "pad", 0)).ok());  // 2^21 output columns
  EXPECT_TRUE(MakeOp({{"op", "SlicePatches"}}).ok());
}

}  // namespace
}  // namespace mindrecord
