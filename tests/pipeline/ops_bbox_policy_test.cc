// RandomResizedCropWithBBox, RandomResizeWithBBox, TrivialAugmentWide and
// MixUp through ApplyColumns / Apply as the runtime calls them, against
// references written here from MindSpore's kernels
// (random_crop_and_resize_with_bbox_op.cc, bounding_box.cc,
// random_resize_with_bbox_op.cc, trivial_augment_wide_op.cc,
// py_transforms_util.mix_up_single) and OpenCV.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/random_resized_crop.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunColumns;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;
using testing::TensorToMat;

Tensor PolicyBoxes(const std::vector<std::vector<float>>& rows) {
  const int64_t k = rows.empty() ? 4 : static_cast<int64_t>(rows[0].size());
  Tensor t = Tensor::Make(TensorType::kFloat32, {static_cast<int64_t>(rows.size()), k});
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < k; ++j) t.mutable_data_as<float>()[i * k + j] = rows[i][j];
  return t;
}

std::vector<std::vector<float>> Rows(const Tensor& t) {
  std::vector<std::vector<float>> out;
  const int64_t n = t.shape()[0], k = t.shape()[1];
  for (int64_t i = 0; i < n; ++i) out.emplace_back(t.data_as<float>() + i * k, t.data_as<float>() + (i + 1) * k);
  return out;
}

TEST(OpsBBoxRandomTest, RandomResizedCropWithBBoxCutsAndScalesBoxes) {
  const int h = 40, w = 50;
  Tensor img = MatToTensor(SyntheticRgb(h, w));
  const std::vector<std::vector<float>> boxes = {{5, 5, 10, 10, 1}, {30, 20, 15, 15, 2}, {0, 0, 50, 40, 3}};
  const nlohmann::json spec = {{"op", "RandomResizedCropWithBBox"}, {"size", {16, 24}}, {"scale", {0.1, 0.6}}};
  auto op = Op(spec);
  auto p = ops::RandomResizedCropParams::FromJson(spec, "test");
  ASSERT_TRUE(p.ok());
  size_t dropped = 0;
  for (int seed = 0; seed < 100; ++seed) {
    auto out = RunColumns(*op, {img, PolicyBoxes(boxes)}, seed);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{16, 24, 3}));
    // The window is RandomResizedCrop's for the same seed (its own sampler).
    std::mt19937_64 rng(seed);
    const ops::CropRect r = ops::SampleRandomResizedCrop(h, w, *p, rng);
    // Image: OpenCV's bilinear resize of the window.
    cv::Mat want;
    cv::resize(TensorToMat(img)(cv::Rect(r.left, r.top, r.w, r.h)), want, cv::Size(24, 16), 0, 0, cv::INTER_LINEAR);
    ASSERT_TRUE(SameBytes(out[0], MatToTensor(want))) << "seed " << seed;
    // And the same pixels as RandomResizedCrop with that seed.
    auto rrc = Op({{"op", "RandomResizedCrop"}, {"size", {16, 24}}, {"scale", {0.1, 0.6}}});
    ASSERT_TRUE(SameBytes(out[0], RunOp(*rrc, img, seed)));
    // Boxes (MindSpore's UpdateBBoxesForCrop then UpdateBBoxesForResize):
    // dropped when they do not touch the window, clipped, moved, scaled.
    const float x0 = r.left, y0 = r.top, x1 = r.left + r.w, y1 = r.top + r.h;
    const float sx = 24.0f / r.w, sy = 16.0f / r.h;
    std::vector<std::vector<float>> expect;
    for (const auto& b : boxes) {
      if (b[0] > x1 || b[1] > y1 || b[0] + b[2] < x0 || b[1] + b[3] < y0) continue;
      const float nx0 = std::max(b[0], x0) - x0, ny0 = std::max(b[1], y0) - y0;
      const float nx1 = std::min(b[0] + b[2], x1) - x0, ny1 = std::min(b[1] + b[3], y1) - y0;
      expect.push_back({nx0 * sx, ny0 * sy, (nx1 - nx0) * sx, (ny1 - ny0) * sy, b[4]});
    }
    dropped += boxes.size() - expect.size();
    ASSERT_EQ(out[1].type(), TensorType::kFloat32);
    const auto got = Rows(out[1]);
    ASSERT_EQ(got.size(), expect.size()) << "seed " << seed;
    for (size_t i = 0; i < got.size(); ++i)
      for (size_t j = 0; j < 5; ++j) ASSERT_NEAR(got[i][j], expect[i][j], 1e-4) << "seed " << seed;
  }
  EXPECT_GT(dropped, 0u);  // some windows miss a box
  // No boxes at all: an empty [0, 4] result.
  auto empty = RunColumns(*op, {img, PolicyBoxes({})}, 1);
  EXPECT_EQ(empty[1].shape(), (std::vector<int64_t>{0, 4}));
  // Bad boxes and parameters are refused, naming the op.
  std::mt19937_64 rng(0);
  auto bad = op->ApplyColumns({img, PolicyBoxes({{45, 0, 10, 5}})}, rng);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("RandomResizedCropWithBBox"), std::string::npos);
  EXPECT_FALSE(op->Apply(img, rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizedCropWithBBox"}, {"size", 0}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizedCropWithBBox"}, {"size", 8}, {"scale", {0.5, 0.1}}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizedCropWithBBox"}, {"size", 8}, {"attempts", 0}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizedCropWithBBox"}, {"size", 8}, {"max_attempts", 3}}).ok());
  EXPECT_TRUE(MakeOp({{"op", "RandomResizedCropWithBBox"}, {"size", 8}, {"scale", {0.0, 0.5}}}).ok());
}

TEST(OpsBBoxRandomTest, RandomResizeWithBBoxDrawsTheInterpolation) {
  Tensor img = MatToTensor(SyntheticRgb(20, 40));
  auto op = Op({{"op", "RandomResizeWithBBox"}, {"size", {10, 16}}});
  auto plain = Op({{"op", "RandomResize"}, {"size", {10, 16}}});
  std::set<std::string> seen;
  std::map<std::string, std::string> by_mode;
  for (const char* m : {"bilinear", "nearest", "bicubic", "area"}) {
    auto r = Op({{"op", "Resize"}, {"size", {10, 16}}, {"interpolation", m}});
    Tensor t = RunOp(*r, img);
    by_mode[std::string(reinterpret_cast<const char*>(t.data()), t.size_bytes())] = m;
  }
  ASSERT_EQ(by_mode.size(), 4u);
  for (int seed = 0; seed < 40; ++seed) {
    auto out = RunColumns(*op, {img, PolicyBoxes({{4, 2, 20, 10, 9}})}, seed);
    ASSERT_TRUE(SameBytes(out[0], RunOp(*plain, img, seed)));  // RandomResize's draw
    auto it = by_mode.find(std::string(reinterpret_cast<const char*>(out[0].data()), out[0].size_bytes()));
    ASSERT_NE(it, by_mode.end());
    seen.insert(it->second);
    EXPECT_EQ(Rows(out[1])[0], (std::vector<float>{1.6f, 1, 8, 5, 9}));  // x, w * 16/40; y, h * 10/20
  }
  EXPECT_EQ(seen.size(), 4u);
  auto shorter = RunColumns(*Op({{"op", "RandomResizeWithBBox"}, {"size", 10}}), {img, PolicyBoxes({{4, 2, 20, 10}})}, 0);
  EXPECT_EQ(shorter[0].shape(), (std::vector<int64_t>{10, 20, 3}));
  EXPECT_EQ(Rows(shorter[1])[0], (std::vector<float>{2, 1, 10, 5}));
  std::mt19937_64 rng(0);
  EXPECT_FALSE(op->ApplyColumns({img, PolicyBoxes({{30, 0, 20, 5}})}, rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizeWithBBox"}, {"size", -3}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomResizeWithBBox"}, {"size", 3}, {"interpolation", "nearest"}}).ok());
}

// MindSpore's TrivialAugmentWide space (trivial_augment_wide_op.cc GetSpace),
// bin i of `bins`, in float as its Linspace computes it:
// {magnitude, signed}; steps without a range give {0, false}.
std::pair<double, bool> WideMagnitude(const std::string& name, int i, int bins) {
  auto lin = [&](float start, float end) {
    return start + static_cast<float>(i) * ((end - start) / static_cast<float>(bins - 1));
  };
  if (name == "ShearX" || name == "ShearY" || name == "Brightness" || name == "Color" || name == "Contrast" ||
      name == "Sharpness")
    return {lin(0.0f, 0.99f), true};
  if (name == "TranslateX" || name == "TranslateY") return {lin(0.0f, 32.0f), true};
  if (name == "Rotate") return {lin(0.0f, 135.0f), true};
  if (name == "Posterize") {  // 8 - 6 i / (bins - 1), rounded half to even
    const float last = static_cast<float>(bins - 1);
    return {std::nearbyint(static_cast<float>(i) * (last / last) * (-6.0f / last) + 8.0f), false};
  }
  if (name == "Solarize") return {lin(255.0f, 0.0f), false};
  return {0, false};
}

TEST(OpsPolicyTest, TrivialAugmentWideReplaysOneDrawnStep) {
  // std::map order of MindSpore's space: the op list.
  const std::vector<std::string> names = {"AutoContrast", "Brightness", "Color",      "Contrast",  "Equalize",
                                          "Identity",     "Posterize",  "Rotate",     "Sharpness", "ShearX",
                                          "ShearY",       "Solarize",   "TranslateX", "TranslateY"};
  Tensor img = MatToTensor(SyntheticRgb(24, 32));
  const ops::FillValue fill{};
  for (int bins : {31, 5}) {
    auto op = Op({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", bins}});
    std::set<std::string> used;
    std::set<int> bins_used;
    for (int seed = 0; seed < 300; ++seed) {
      std::mt19937_64 rng(seed);
      const std::string name = names[ops::RandInt(rng, 0, 13)];
      auto [m, is_signed] = WideMagnitude(name, 0, bins);
      const bool ranged = name != "AutoContrast" && name != "Equalize" && name != "Identity";
      if (ranged) {
        const int bin = static_cast<int>(ops::RandInt(rng, 0, bins - 1));
        bins_used.insert(bin);
        m = WideMagnitude(name, bin, bins).first;
      }
      if (ops::RandInt(rng, 0, 1) == 1 && is_signed) m = -m;
      used.insert(name);
      auto want = ops::ApplyAugment(img, name, m, ops::Interpolation::kNearest, fill, "test");
      ASSERT_TRUE(want.ok());
      Tensor got = RunOp(*op, img, seed);
      ASSERT_TRUE(SameBytes(got, *want)) << name << " seed " << seed << " bins " << bins;
    }
    EXPECT_EQ(used.size(), 14u);
    EXPECT_EQ(bins_used.size(), static_cast<size_t>(bins));
  }
  // Posterize's range ends at 2 bits and Solarize's at threshold 0 (bin
  // bins - 1): with 2 bins, a posterize draw keeps 8 or 2 bits.
  Tensor gray = Tensor::Make(TensorType::kUInt8, {4, 4, 3});
  std::memset(gray.MutableData(), 0xFF, gray.size_bytes());
  auto two = Op({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 2}});
  std::set<int> values;
  for (int seed = 0; seed < 400; ++seed) values.insert(RunOp(*two, gray, seed).data()[0]);
  EXPECT_TRUE(values.count(0xC0));  // posterize to 2 bits
  EXPECT_TRUE(values.count(0));     // solarize from 0 (or invert-like steps)
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op({{"op", "TrivialAugmentWide"}})->Apply(Tensor::Make(TensorType::kUInt8, {4, 4, 1}), rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 1}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 2.5}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 1e30}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "TrivialAugmentWide"}, {"magnitude", 3}}).ok());
  EXPECT_TRUE(MakeOp({{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 16777216}}).ok());
}

TEST(OpsBatchTest, MixUpMixesEachImageWithTheNextOne) {
  auto op = Op({{"op", "MixUp"}, {"batch_size", 4}, {"alpha", 0.5}});
  ASSERT_EQ(op->num_inputs(), 2);
  const int n = 4, e = 2 * 3 * 3;
  Tensor images = Tensor::Make(TensorType::kUInt8, {n, 2, 3, 3});
  for (int i = 0; i < n * e; ++i) images.MutableData()[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  Tensor labels = Tensor::Make(TensorType::kInt32, {n, 3});
  for (int i = 0; i < n * 3; ++i) labels.mutable_data_as<int32_t>()[i] = i / 3 % 3 == i % 3;
  double sum = 0;
  int count = 0;
  for (int seed = 0; seed < 300; ++seed) {
    auto out = RunColumns(*op, {images, labels}, seed);
    ASSERT_EQ(out[0].type(), TensorType::kFloat64);
    ASSERT_EQ(out[1].type(), TensorType::kFloat64);
    ASSERT_EQ(out[0].shape(), images.shape());
    ASSERT_EQ(out[1].shape(), labels.shape());
    // mix_up_single: lam = beta(alpha, alpha, n); x[i] * lam[i] + x[i + 1 mod n] * (1 - lam[i]).
    std::mt19937_64 rng(seed);
    for (int i = 0; i < n; ++i) {
      const double lam = ops::RandBeta(rng, 0.5, 0.5);
      const int j = (i + 1) % n;
      for (int k = 0; k < e; ++k)
        ASSERT_NEAR(out[0].data_as<double>()[i * e + k],
                    lam * images.data()[i * e + k] + (1 - lam) * images.data()[j * e + k], 1e-9);
      for (int k = 0; k < 3; ++k)
        ASSERT_NEAR(out[1].data_as<double>()[i * 3 + k],
                    lam * labels.data_as<int32_t>()[i * 3 + k] + (1 - lam) * labels.data_as<int32_t>()[j * 3 + k],
                    1e-12);
      sum += lam, ++count;
    }
  }
  EXPECT_NEAR(sum / count, 0.5, 0.03);  // Beta(a, a) has mean 1/2
  std::mt19937_64 rng(0);
  EXPECT_FALSE(op->Apply(images, rng).ok());
  auto wrong_n = op->ApplyColumns({images.Reshaped({2, 4, 3, 3}), labels}, rng);
  ASSERT_FALSE(wrong_n.ok());
  EXPECT_NE(wrong_n.status().message().find("MixUp: images"), std::string::npos);
  EXPECT_FALSE(op->ApplyColumns({images.Reshaped({4, 6, 3}), labels}, rng).ok());  // rank 3
  EXPECT_FALSE(op->ApplyColumns({images, labels.Reshaped({12})}, rng).ok());       // labels not [n, K]
  EXPECT_FALSE(MakeOp({{"op", "MixUp"}, {"batch_size", 4}, {"alpha", 0}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "MixUp"}, {"batch_size", 0}, {"alpha", 1}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "MixUp"}, {"batch_size", 4}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "MixUp"}, {"batch_size", 4}, {"alpha", 1}, {"is_single", false}}).ok());
}

TEST(OpsPlanTest, NewOpsRoundTripThroughJson) {
  for (const nlohmann::json& spec :
       {nlohmann::json{{"op", "RandomResizedCropWithBBox"}, {"size", {8, 6}}, {"scale", {0.0, 0.5}},
                       {"ratio", {0.5, 2.0}}, {"interpolation", "nearest"}, {"attempts", 3}},
        nlohmann::json{{"op", "RandomResizeWithBBox"}, {"size", 7}},
        nlohmann::json{{"op", "TrivialAugmentWide"}, {"num_magnitude_bins", 9}, {"interpolation", "bilinear"},
                       {"fill_value", {1, 2, 3}}},
        nlohmann::json{{"op", "MixUp"}, {"batch_size", 3}, {"alpha", 0.25}}}) {
    auto op = Op(spec);
    ASSERT_NE(op, nullptr);
    auto again = MakeOp(op->ToJson());
    ASSERT_TRUE(again.ok()) << op->ToJson().dump();
    EXPECT_EQ((*again)->ToJson(), op->ToJson());
    EXPECT_TRUE(op->is_random());
  }
}

}  // namespace
}  // namespace mindrecord
