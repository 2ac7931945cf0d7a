// Multi-column ops: MixUpBatch, CutMixBatch (images + one-hot labels) and the
// detection ops (image + boxes), through ApplyColumns as the runtime calls
// them, against references written here.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunColumns;
using testing::SameBytes;
using testing::SyntheticRgb;

// A batch of n distinct images [n, h, w, c] (or [n, c, h, w]) and one-hot int32 labels [n, n].
std::pair<Tensor, Tensor> MakeBatch(int n, int h, int w, int c) {
  Tensor images = Tensor::Make(TensorType::kUInt8, {n, h, w, c});
  for (int64_t i = 0; i < images.num_elements(); ++i)  // pseudo-random bytes
    images.MutableData()[i] = static_cast<uint8_t>((static_cast<uint64_t>(i + 1) * 2654435761u) >> 13);
  Tensor labels = Tensor::Make(TensorType::kInt32, {n, n});
  for (int i = 0; i < n * n; ++i) labels.mutable_data_as<int32_t>()[i] = i / n == i % n;
  return {images, labels};
}

// Row i of one-hot-mixed labels: (own weight, index of the other class).
std::pair<float, int> Mixed(const Tensor& labels, int i, int n) {
  const float* r = labels.data_as<float>() + i * n;
  int other = i;
  for (int k = 0; k < n; ++k)
    if (k != i && r[k] > 0) other = k;
  return {r[i], other};
}

TEST(OpsBatchTest, MixUpBlendsImagesAndLabelsWithOneLambda) {
  auto op = Op({{"op", "MixUpBatch"}, {"alpha", 1.0}});
  ASSERT_EQ(op->num_inputs(), 2);
  ASSERT_EQ(op->num_outputs(), 2);
  const int n = 6;
  auto [images, labels] = MakeBatch(n, 5, 4, 3);
  double sum = 0, sum2 = 0;
  int runs = 0;
  for (int seed = 0; seed < 600; ++seed) {
    auto out = RunColumns(*op, {images, labels}, seed);
    ASSERT_EQ(out[1].type(), TensorType::kFloat32);
    // Recover the permutation and lambda from the labels (a row mixed with
    // another class holds lambda at its own class).
    std::vector<int> perm(n);
    float lam = -1;
    for (int i = 0; i < n; ++i) {
      auto [own, other] = Mixed(out[1], i, n);
      perm[i] = other;
      if (other != i) lam = own;
    }
    if (lam < 0) continue;  // the identity permutation: lambda is not visible
    ASSERT_EQ(std::set<int>(perm.begin(), perm.end()).size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const float* r = out[1].data_as<float>() + i * n;
      if (perm[i] != i) {
        ASSERT_NEAR(r[i], lam, 1e-5);
        ASSERT_NEAR(r[perm[i]], 1 - lam, 1e-5);
      } else {
        ASSERT_NEAR(r[i], 1.0, 1e-5);
      }
      for (int64_t k = 0; k < 60; ++k) {
        const double want = lam * images.data()[i * 60 + k] + (1 - lam) * images.data()[perm[i] * 60 + k];
        ASSERT_LE(std::abs(out[0].data()[i * 60 + k] - want), 0.5 + 1e-3);
      }
    }
    sum += lam, sum2 += double(lam) * lam, ++runs;
  }
  // Beta(1, 1) is uniform: mean 1/2, variance 1/12.
  const double mean = sum / runs, var = sum2 / runs - mean * mean;
  EXPECT_NEAR(mean, 0.5, 0.04);
  EXPECT_NEAR(var, 1.0 / 12, 0.015);
  std::mt19937_64 rng(0);
  EXPECT_FALSE(op->Apply(images, rng).ok());                                     // one column
  EXPECT_FALSE(op->ApplyColumns({images.Reshaped({6, 60}), labels}, rng).ok());  // not a batch of images
  EXPECT_FALSE(op->ApplyColumns({images, labels.Reshaped({36})}, rng).ok());     // labels not one-hot
  EXPECT_FALSE(MakeOp({{"op", "MixUpBatch"}, {"alpha", 0}}).ok());
}

TEST(OpsBatchTest, CutMixPastesABoxAndWeighsLabelsByArea) {
  for (const char* format : {"NHWC", "NCHW"}) {
    const bool nchw = std::string(format) == "NCHW";
    auto op = Op({{"op", "CutMixBatch"}, {"image_batch_format", format}});
    const int n = 5, h = 12, w = 16;
    auto [images, labels] = nchw ? MakeBatch(n, 3, h, w) : MakeBatch(n, h, w, 3);
    auto at = [&](const Tensor& t, int i, int y, int x, int c) {
      return t.data()[nchw ? ((i * 3 + c) * h + y) * w + x : ((i * h + y) * w + x) * 3 + c];
    };
    for (int seed = 0; seed < 100; ++seed) {
      auto out = RunColumns(*op, {images, labels}, seed);
      for (int i = 0; i < n; ++i) {
        auto [own, other] = Mixed(out[1], i, n);
        // The pixels that changed form one box, copied from image `other`.
        int y0 = h, y1 = -1, x0 = w, x1 = -1, changed = 0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            if (at(out[0], i, y, x, 0) != at(images, i, y, x, 0) || at(out[0], i, y, x, 1) != at(images, i, y, x, 1) ||
                at(out[0], i, y, x, 2) != at(images, i, y, x, 2)) {
              ++changed, y0 = std::min(y0, y), y1 = std::max(y1, y), x0 = std::min(x0, x), x1 = std::max(x1, x);
            }
        if (other == i) {
          ASSERT_EQ(changed, 0);
          continue;
        }
        ASSERT_GT(changed, 0);
        for (int y = y0; y <= y1; ++y)
          for (int x = x0; x <= x1; ++x)
            for (int c = 0; c < 3; ++c) ASSERT_EQ(at(out[0], i, y, x, c), at(images, other, y, x, c));
        const double area = double(y1 - y0 + 1) * (x1 - x0 + 1);
        ASSERT_NEAR(own, 1 - area / (h * w), 1e-5) << format << " seed " << seed;
        ASSERT_LT(x1 - x0 + 1, w);  // MindSpore's box never spans the whole image
      }
    }
    // prob 0: nothing changes (labels become float32).
    auto none = RunColumns(*Op({{"op", "CutMixBatch"}, {"image_batch_format", format}, {"prob", 0.0}}), {images, labels}, 1);
    EXPECT_TRUE(SameBytes(none[0], images));
  }
  EXPECT_FALSE(MakeOp({{"op", "CutMixBatch"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "CutMixBatch"}, {"image_batch_format", "HWC"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "CutMixBatch"}, {"image_batch_format", "NHWC"}, {"prob", 2}}).ok());
}

Tensor Boxes(std::vector<std::vector<float>> rows) {
  const int64_t k = static_cast<int64_t>(rows[0].size());
  Tensor t = Tensor::Make(TensorType::kFloat32, {static_cast<int64_t>(rows.size()), k});
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < k; ++j) t.mutable_data_as<float>()[i * k + j] = rows[i][j];
  return t;
}

std::vector<float> BoxRow(const Tensor& t, int i) {
  const int64_t k = t.shape()[1];
  return std::vector<float>(t.data_as<float>() + i * k, t.data_as<float>() + (i + 1) * k);
}

TEST(OpsBBoxTest, FlipsMoveBoxesWithTheImage) {
  Tensor img = MatToTensor(SyntheticRgb(20, 30));
  Tensor boxes = Boxes({{2, 3, 10, 5, 7}, {0, 0, 30, 20, 1}});
  auto h = RunColumns(*Op({{"op", "RandomHorizontalFlipWithBBox"}, {"p", 1.0}}), {img, boxes}, 0);
  EXPECT_EQ(BoxRow(h[1], 0), (std::vector<float>{18, 3, 10, 5, 7}));  // x' = W - x - w, extra column kept
  EXPECT_EQ(BoxRow(h[1], 1), (std::vector<float>{0, 0, 30, 20, 1}));
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x) ASSERT_EQ(h[0].data()[(y * 30 + x) * 3], img.data()[(y * 30 + 29 - x) * 3]);
  auto v = RunColumns(*Op({{"op", "RandomVerticalFlipWithBBox"}, {"p", 1.0}}), {img, boxes}, 0);
  EXPECT_EQ(BoxRow(v[1], 0), (std::vector<float>{2, 12, 10, 5, 7}));  // y' = H - y - h
  auto none = RunColumns(*Op({{"op", "RandomVerticalFlipWithBBox"}, {"p", 0.0}}), {img, boxes}, 0);
  EXPECT_TRUE(SameBytes(none[0], img));
  EXPECT_TRUE(SameBytes(none[1], boxes));
  // Boxes outside the image, negative, or of the wrong shape are refused, naming the box.
  std::mt19937_64 rng(0);
  auto op = Op({{"op", "RandomHorizontalFlipWithBBox"}});
  auto bad = op->ApplyColumns({img, Boxes({{25, 0, 10, 5}})}, rng);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("RandomHorizontalFlipWithBBox: box 0"), std::string::npos);
  EXPECT_FALSE(op->ApplyColumns({img, Boxes({{-1, 0, 10, 5}})}, rng).ok());
  EXPECT_FALSE(op->ApplyColumns({img, Boxes({{1, 0, 10}})}, rng).ok());
  EXPECT_FALSE(op->Apply(img, rng).ok());
}

TEST(OpsBBoxTest, ResizeScalesBoxes) {
  Tensor img = MatToTensor(SyntheticRgb(20, 40));
  auto out = RunColumns(*Op({{"op", "ResizeWithBBox"}, {"size", {10, 10}}}), {img, Boxes({{4, 2, 20, 10}})}, 0);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{10, 10, 3}));
  EXPECT_EQ(BoxRow(out[1], 0), (std::vector<float>{1, 1, 5, 5}));
  auto shorter = RunColumns(*Op({{"op", "ResizeWithBBox"}, {"size", 10}}), {img, Boxes({{4, 2, 20, 10}})}, 0);
  EXPECT_EQ(shorter[0].shape(), (std::vector<int64_t>{10, 20, 3}));
  EXPECT_EQ(BoxRow(shorter[1], 0), (std::vector<float>{2, 1, 10, 5}));
}

TEST(OpsBBoxTest, RandomCropKeepsClipsAndDropsBoxes) {
  // Pixel (y, x) holds y in channel 0 and x in channel 1: the crop's top-left tells the window.
  Tensor img = Tensor::Make(TensorType::kUInt8, {40, 50, 3});
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 50; ++x) img.MutableData()[(y * 50 + x) * 3] = y, img.MutableData()[(y * 50 + x) * 3 + 1] = x;
  Tensor boxes = Boxes({{5, 5, 10, 10, 1}, {30, 20, 15, 15, 2}, {0, 0, 50, 40, 3}});
  auto op = Op({{"op", "RandomCropWithBBox"}, {"size", {20, 25}}});
  std::set<std::pair<int, int>> windows;
  for (int seed = 0; seed < 200; ++seed) {
    auto out = RunColumns(*op, {img, boxes}, seed);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{20, 25, 3}));
    const int top = out[0].data()[0], left = out[0].data()[1];
    windows.insert({top, left});
    // Reference: boxes that touch [left, left + 25] x [top, top + 20], clipped and moved.
    std::vector<std::vector<float>> want;
    for (int i = 0; i < 3; ++i) {
      auto b = BoxRow(boxes, i);
      const float bx1 = b[0] + b[2], by1 = b[1] + b[3];
      if (b[0] > left + 25 || b[1] > top + 20 || bx1 < left || by1 < top) continue;
      const float x0 = std::max(b[0], float(left)) - left, y0 = std::max(b[1], float(top)) - top;
      const float x1 = std::min(bx1, float(left + 25)) - left, y1 = std::min(by1, float(top + 20)) - top;
      want.push_back({x0, y0, x1 - x0, y1 - y0, b[4]});
    }
    ASSERT_EQ(out[1].shape()[0], static_cast<int64_t>(want.size())) << seed;
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(BoxRow(out[1], static_cast<int>(i)), want[i]) << seed;
  }
  EXPECT_GT(windows.size(), 100u);
  // Padding moves the boxes; pad_if_needed pads a small image up to the crop.
  auto padded = RunColumns(*Op({{"op", "RandomCropWithBBox"}, {"size", {46, 56}}, {"padding", 3}}), {img, boxes}, 0);
  EXPECT_EQ(BoxRow(padded[1], 0), (std::vector<float>{8, 8, 10, 10, 1}));
  auto grown = RunColumns(*Op({{"op", "RandomCropWithBBox"}, {"size", {44, 50}}, {"pad_if_needed", true}}), {img, boxes}, 0);
  EXPECT_EQ(grown[0].shape(), (std::vector<int64_t>{44, 50, 3}));
  std::mt19937_64 rng(0);
  auto too_big = Op({{"op", "RandomCropWithBBox"}, {"size", 60}})->ApplyColumns({img, boxes}, rng);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("RandomCropWithBBox: crop 60x60 is larger than the (padded) image"),
            std::string::npos) << too_big.status().ToString();
  // MindSpore names the fill parameter "fill_value" here ("fill" in RandomCrop);
  // the spec round-trips with it.
  const nlohmann::json spec = {{"op", "RandomCropWithBBox"}, {"size", {44, 50}}, {"padding", {1, 2}},
                               {"pad_if_needed", true}, {"fill_value", {1, 2, 3}}, {"padding_mode", "edge"}};
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  EXPECT_FALSE(MakeOp({{"op", "RandomCropWithBBox"}, {"size", 4}, {"fill", 1}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomCrop"}, {"size", 4}, {"fill_value", 1}}).ok());
  const nlohmann::json crop = {{"op", "RandomCrop"}, {"size", 4}, {"pad_if_needed", false}, {"fill", 5},
                               {"padding_mode", "constant"}};
  EXPECT_EQ(Op(crop)->ToJson(), crop);
}

TEST(OpsBBoxTest, BoundingBoxAugmentTransformsBoxRegions) {
  Tensor img = MatToTensor(SyntheticRgb(30, 40, 2));
  Tensor boxes = Boxes({{3, 4, 10, 6}, {20, 10, 15, 12}});
  auto op = Op({{"op", "BoundingBoxAugment"}, {"transform", {{"op", "RandomVerticalFlip"}, {"p", 1.0}}}, {"ratio", 1.0}});
  auto out = RunColumns(*op, {img, boxes}, 0);
  EXPECT_TRUE(SameBytes(out[1], boxes));
  // Reference: each box's region flipped top-bottom in place.
  Tensor want = img;
  uint8_t* p = want.MutableData();
  for (auto b : {std::vector<int>{3, 4, 10, 6}, std::vector<int>{20, 10, 15, 12}})
    for (int y = 0; y < b[3] / 2; ++y)
      for (int x = 0; x < b[2] * 3; ++x)
        std::swap(p[((b[1] + y) * 40 + b[0]) * 3 + x], p[((b[1] + b[3] - 1 - y) * 40 + b[0]) * 3 + x]);
  EXPECT_TRUE(SameBytes(out[0], want));
  // ratio 0: unchanged; ratio 0.5: each box with probability 1/2.
  EXPECT_TRUE(SameBytes(RunColumns(*Op({{"op", "BoundingBoxAugment"}, {"transform", {{"op", "RandomVerticalFlip"}, {"p", 1.0}}},
                                  {"ratio", 0.0}}),
                              {img, boxes}, 0)[0],
                        img));
  // A transform that changes the size is resized back into the box.
  auto grow = Op({{"op", "BoundingBoxAugment"}, {"transform", {{"op", "Resize"}, {"size", {3, 3}}}}, {"ratio", 1.0}});
  EXPECT_EQ(RunColumns(*grow, {img, boxes}, 0)[0].shape(), img.shape());
  EXPECT_FALSE(MakeOp({{"op", "BoundingBoxAugment"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "BoundingBoxAugment"}, {"transform", {{"op", "MixUpBatch"}}}}).ok());
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST(OpsBBoxTest, ComposeChainsImageAndBoxOps) {
  // Compose of two 2 -> 2 ops; RandomApply over one; mixing counts is refused.
  const nlohmann::json hflip = {{"op", "RandomHorizontalFlipWithBBox"}, {"p", 1.0}};
  const nlohmann::json vflip = {{"op", "RandomVerticalFlipWithBBox"}, {"p", 1.0}};
  auto both = Op({{"op", "Compose"}, {"transforms", {hflip, vflip}}});
  ASSERT_EQ(both->num_inputs(), 2);
  Tensor img = MatToTensor(SyntheticRgb(10, 12));
  auto out = RunColumns(*both, {img, Boxes({{1, 2, 3, 4}})}, 0);
  EXPECT_EQ(BoxRow(out[1], 0), (std::vector<float>{8, 4, 3, 4}));
  auto maybe = Op({{"op", "RandomApply"}, {"transforms", {hflip}}, {"prob", 1.0}});
  EXPECT_EQ(BoxRow(RunColumns(*maybe, {img, Boxes({{1, 2, 3, 4}})}, 0)[1], 0), (std::vector<float>{8, 2, 3, 4}));
  auto mixed = MakeOp({{"op", "Compose"}, {"transforms", {hflip, {{"op", "Resize"}, {"size", 4}}}}});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("gives 2 columns but the next transform, Resize, takes 1 column"),
            std::string::npos)
      << mixed.status().message();
  EXPECT_FALSE(MakeOp({{"op", "RandomChoice"}, {"transforms", {hflip, {{"op", "Resize"}, {"size", 4}}}}}).ok());
}

}  // namespace
}  // namespace mindrecord
