// AutoAugment and RandAugment: the policy table, op list and magnitudes
// (written here from MindSpore's auto_augment_op.cc / rand_augment_op.cc),
// replayed step by step against the ops.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/auto_augment.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;

struct Step {
  std::string name;
  double prob;
  int bin;
};

// MindSpore's ImageNet policy, as its GetTransforms lists it.
const std::vector<std::pair<Step, Step>> kImageNet = {
    {{"Posterize", 0.4, 8}, {"Rotate", 0.6, 9}},    {{"Solarize", 0.6, 5}, {"AutoContrast", 0.6, -1}},
    {{"Equalize", 0.8, -1}, {"Equalize", 0.6, -1}}, {{"Posterize", 0.6, 7}, {"Posterize", 0.6, 6}},
    {{"Equalize", 0.4, -1}, {"Solarize", 0.2, 4}},  {{"Equalize", 0.4, -1}, {"Rotate", 0.8, 8}},
    {{"Solarize", 0.6, 3}, {"Equalize", 0.6, -1}},  {{"Posterize", 0.8, 5}, {"Equalize", 1.0, -1}},
    {{"Rotate", 0.2, 3}, {"Solarize", 0.6, 8}},     {{"Equalize", 0.6, -1}, {"Posterize", 0.4, 6}},
    {{"Rotate", 0.8, 8}, {"Color", 0.4, 0}},        {{"Rotate", 0.4, 9}, {"Equalize", 0.6, -1}},
    {{"Equalize", 0.0, -1}, {"Equalize", 0.8, -1}}, {{"Invert", 0.6, -1}, {"Equalize", 1.0, -1}},
    {{"Color", 0.6, 4}, {"Contrast", 1.0, 8}},      {{"Rotate", 0.8, 8}, {"Color", 1.0, 2}},
    {{"Color", 0.8, 8}, {"Solarize", 0.8, 7}},      {{"Sharpness", 0.4, 7}, {"Invert", 0.6, -1}},
    {{"ShearX", 0.6, 5}, {"Equalize", 1.0, -1}},    {{"Color", 0.4, 0}, {"Equalize", 0.6, -1}},
    {{"Equalize", 0.4, -1}, {"Solarize", 0.2, 4}},  {{"Solarize", 0.6, 5}, {"AutoContrast", 0.6, -1}},
    {{"Invert", 0.6, -1}, {"Equalize", 1.0, -1}},   {{"Color", 0.6, 4}, {"Contrast", 1.0, 8}},
    {{"Equalize", 0.8, -1}, {"Equalize", 0.6, -1}}};

// The magnitude of bin `i` of `bins` for an image of h x w (MindSpore's
// linspace ranges), and whether the step's sign is random.
// MagnitudeSpaces checks GetMagnitudes against it; the replays then take
// GetMagnitudes' float values (the ops' own), so that a rotation angle
// rounded differently cannot move a nearest-neighbour pixel.
std::pair<double, bool> Magnitude(const std::string& name, int i, int bins, int h, int w, bool rand_augment) {
  const double t = bins == 1 ? 0 : static_cast<double>(i) / (bins - 1);
  if (name == "ShearX" || name == "ShearY") return {0.3 * t, true};
  if (name == "TranslateX") return {150.0 / 331 * w * t, true};
  if (name == "TranslateY") return {150.0 / 331 * h * t, true};
  if (name == "Rotate") return {30 * t, true};
  if (name == "Brightness" || name == "Color" || name == "Contrast" || name == "Sharpness") return {0.9 * t, true};
  if (name == "Posterize") return {std::nearbyint(8 - 4 * t), false};
  if (name == "Solarize") return {(rand_augment ? 255 : 256) * (1 - t), false};
  return {0, false};
}

TEST(OpsPolicyTest, MagnitudeSpaces) {
  for (const char* name : {"ShearX", "TranslateX", "TranslateY", "Rotate", "Color", "Posterize", "Solarize"})
    for (int bins : {10, 31})
      for (bool ra : {false, true}) {
        const auto space = ops::GetMagnitudes(name, bins, 224, 320, ra);
        ASSERT_EQ(space.values.size(), static_cast<size_t>(bins)) << name;
        for (int i = 0; i < bins; ++i)
          EXPECT_NEAR(space.values[i], Magnitude(name, i, bins, 224, 320, ra).first, 1e-3) << name << " " << i;
        EXPECT_EQ(space.signed_, Magnitude(name, 1, bins, 224, 320, ra).second) << name;
      }
  EXPECT_EQ(ops::GetMagnitudes("Equalize", 10, 9, 9, false).values.size(), 1u);
  // MindSpore's ImageNet values quoted in the AutoAugment paper's table: posterize bin 8 -> 4 bits.
  EXPECT_EQ(ops::GetMagnitudes("Posterize", 10, 9, 9, false).values[8], 4.0f);
}

TEST(OpsPolicyTest, AutoAugmentImageNetReplaysThePolicy) {
  Tensor img = MatToTensor(SyntheticRgb(32, 40, 4));
  auto op = Op({{"op", "AutoAugment"}});
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->ToJson()["policy"], "imagenet");
  EXPECT_EQ(op->ToJson()["interpolation"], "nearest");
  std::set<int> subs;
  for (int seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    const int id = static_cast<int>(ops::RandInt(rng, 0, 24));
    const double probs[2] = {ops::RandUniform(rng, 0, 1), ops::RandUniform(rng, 0, 1)};
    const int64_t signs[2] = {ops::RandInt(rng, 0, 1), ops::RandInt(rng, 0, 1)};
    subs.insert(id);
    Tensor want = img;
    const Step steps[2] = {kImageNet[id].first, kImageNet[id].second};
    for (int i = 0; i < 2; ++i) {
      if (probs[i] > steps[i].prob) continue;
      const bool is_signed = Magnitude(steps[i].name, 1, 10, 32, 40, false).second;
      const auto space = ops::GetMagnitudes(steps[i].name, 10, 32, 40, false);
      double m = steps[i].bin < 0 || space.values.size() == 1 ? 0.0 : space.values[steps[i].bin];
      if (is_signed && signs[i] == 0) m = -m;
      want = *ops::ApplyAugment(want, steps[i].name, m, ops::Interpolation::kNearest, {}, "t");
    }
    ASSERT_TRUE(SameBytes(RunOp(*op, img, seed), want)) << "seed " << seed << " sub-policy " << id;
  }
  EXPECT_EQ(subs.size(), 25u);
  for (const char* policy : {"cifar10", "svhn"}) {
    auto p = Op({{"op", "AutoAugment"}, {"policy", policy}, {"interpolation", "bilinear"}, {"fill_value", {1, 2, 3}}});
    std::set<std::string> outs;
    for (int seed = 0; seed < 30; ++seed) {
      Tensor out = RunOp(*p, img, seed);
      ASSERT_EQ(out.shape(), img.shape());
      outs.insert(std::string(reinterpret_cast<const char*>(out.data()), out.size_bytes()));
    }
    EXPECT_GT(outs.size(), 10u) << policy;
    EXPECT_EQ(Op(p->ToJson())->ToJson(), p->ToJson());
  }
  EXPECT_FALSE(MakeOp({{"op", "AutoAugment"}, {"policy", "coco"}}).ok());
  std::mt19937_64 rng(0);
  EXPECT_FALSE(op->Apply(Tensor::Make(TensorType::kUInt8, {8, 8, 1}), rng).ok());
}

TEST(OpsPolicyTest, RandAugmentReplaysItsOpList) {
  const char* kOps[] = {"AutoContrast", "Brightness", "Color",    "Contrast", "Equalize",   "Identity",  "Posterize",
                        "Rotate",       "Sharpness",  "ShearX",   "ShearY",   "Solarize",   "TranslateX", "TranslateY"};
  Tensor img = MatToTensor(SyntheticRgb(30, 36, 6));
  for (int bins : {31, 10}) {
    const int magnitude = bins == 31 ? 9 : 7;
    auto op = Op({{"op", "RandAugment"}, {"num_ops", 3}, {"magnitude", magnitude}, {"num_magnitude_bins", bins}});
    std::map<std::string, int> used;
    for (int seed = 0; seed < 200; ++seed) {
      std::mt19937_64 rng(seed);
      Tensor want = img;
      for (int k = 0; k < 3; ++k) {
        const std::string name = kOps[ops::RandInt(rng, 0, 13)];
        const bool negate = ops::RandInt(rng, 0, 1) == 1;
        const bool is_signed = Magnitude(name, 1, bins, 30, 36, true).second;
        const auto space = ops::GetMagnitudes(name, bins, 30, 36, true);
        double m = space.values.size() == 1 ? 0.0 : space.values[magnitude];
        if (is_signed && negate) m = -m;
        used[name]++;
        want = *ops::ApplyAugment(want, name, m, ops::Interpolation::kNearest, {}, "t");
      }
      ASSERT_TRUE(SameBytes(RunOp(*op, img, seed), want)) << "seed " << seed;
    }
    EXPECT_EQ(used.size(), 14u);
  }
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandAugment"}, {"num_ops", 0}}), img, 1), img));
  EXPECT_EQ(Op({{"op", "RandAugment"}})->ToJson(),
            nlohmann::json({{"op", "RandAugment"}, {"num_ops", 2}, {"magnitude", 9}, {"num_magnitude_bins", 31},
                            {"interpolation", "nearest"}, {"fill_value", 0}}));
  EXPECT_FALSE(MakeOp({{"op", "RandAugment"}, {"magnitude", 31}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandAugment"}, {"num_magnitude_bins", 1}, {"magnitude", 0}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandAugment"}, {"num_ops", -1}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandAugment"}, {"fill_value", 256}}).ok());
}

}  // namespace
}  // namespace mindrecord
