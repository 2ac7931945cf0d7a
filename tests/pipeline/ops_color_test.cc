// Colour ops (RandomColorAdjust and its adjustments, Rescale, ConvertColor,
// Grayscale) and the policy primitives (Posterize, Solarize, AutoContrast,
// Equalize, Invert, Sharpness), each against a reference written here from
// the kernel's formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/color_adjust.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::MaxDiff;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;

uint8_t Sat(double v) { return static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0)); }

// Luma with OpenCV's documented weights.
double Luma(const uint8_t* p) { return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]; }

// Reference: applies f(pixel pointer, out pointer) to every pixel.
template <typename F>
Tensor Map(const Tensor& img, F f) {
  Tensor out = Tensor::Make(img.type(), img.shape());
  const int64_t px = img.shape()[0] * img.shape()[1];
  for (int64_t i = 0; i < px; ++i) f(img.data() + 3 * i, out.MutableData() + 3 * i);
  return out;
}

TEST(OpsColorTest, AdjustmentsMatchTheirFormulas) {
  Tensor img = MatToTensor(SyntheticRgb(31, 47, 3));
  for (double f : {0.0, 0.5, 1.3}) {
    Tensor want = Map(img, [&](const uint8_t* p, uint8_t* o) {
      for (int c = 0; c < 3; ++c) o[c] = Sat(p[c] * f);
    });
    EXPECT_LE(MaxDiff(*ops::AdjustBrightness(img, f, "t"), want), 1) << f;
    double sum = 0;
    for (int64_t i = 0; i < 31 * 47; ++i) sum += Luma(img.data() + 3 * i);
    const int mean = static_cast<int>(sum / (31 * 47) + 0.5);
    want = Map(img, [&](const uint8_t* p, uint8_t* o) {
      for (int c = 0; c < 3; ++c) o[c] = Sat(mean * (1 - f) + p[c] * f);
    });
    EXPECT_LE(MaxDiff(*ops::AdjustContrast(img, f, "t"), want), 1) << f;
    want = Map(img, [&](const uint8_t* p, uint8_t* o) {
      const double g = std::nearbyint(Luma(p));
      for (int c = 0; c < 3; ++c) o[c] = Sat(g * (1 - f) + p[c] * f);
    });
    EXPECT_LE(MaxDiff(*ops::AdjustSaturation(img, f, "t"), want), 1) << f;
  }
  // Hue 0 is the identity up to the 8-bit HSV round trip (hue in 256 steps,
  // saturation and value in bytes: up to a few levels off, less than 1 on
  // average); hue 0.5 of a pure red gives cyan.
  Tensor h0 = *ops::AdjustHue(img, 0.0, "t");
  EXPECT_LE(MaxDiff(h0, img), 10);
  EXPECT_LT(testing::MeanAbsDiff(h0, img), 1.0);
  Tensor red = Tensor::Make(TensorType::kUInt8, {2, 2, 3});
  for (int i = 0; i < 4; ++i) red.MutableData()[3 * i] = 255, red.MutableData()[3 * i + 1] = 0, red.MutableData()[3 * i + 2] = 0;
  Tensor cyan = *ops::AdjustHue(red, 0.5, "t");
  EXPECT_LE(cyan.data()[0], 6);
  EXPECT_GE(cyan.data()[1], 249);
  EXPECT_GE(cyan.data()[2], 249);
  EXPECT_FALSE(ops::AdjustHue(img, 0.6, "t").ok());
  EXPECT_FALSE(ops::AdjustBrightness(Tensor::Make(TensorType::kUInt8, {4, 4, 1}), 1.0, "t").ok());
}

TEST(OpsColorTest, RandomColorAdjustDrawsWithinRanges) {
  Tensor img = MatToTensor(SyntheticRgb(24, 24, 5));
  // Brightness alone: the output is x * f for one f in the range.
  auto op = Op({{"op", "RandomColorAdjust"}, {"brightness", {0.5, 1.5}}});
  ASSERT_NE(op, nullptr);
  double lo = 9, hi = 0;
  for (int seed = 0; seed < 300; ++seed) {
    Tensor out = RunOp(*op, img, seed);
    // Recover f from pixel (0, 8), red 88: no saturation up to f = 1.5.
    ASSERT_EQ(img.data()[3 * 8], 88);
    const double f = static_cast<double>(out.data()[3 * 8]) / img.data()[3 * 8];
    lo = std::min(lo, f);
    hi = std::max(hi, f);
    EXPECT_TRUE(SameBytes(RunOp(*op, img, seed), out));  // deterministic per seed
  }
  EXPECT_GT(lo, 0.45);
  EXPECT_LT(lo, 0.6);
  EXPECT_GT(hi, 1.4);
  EXPECT_LT(hi, 1.55);
  // The identity ranges change nothing and draw nothing beyond the order.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomColorAdjust"}}), img, 3), img));
  // One number v means [max(0, 1 - v), 1 + v]; hue v means [-v, v].
  auto j = Op({{"op", "RandomColorAdjust"}, {"contrast", 0.4}, {"hue", 0.1}})->ToJson();
  EXPECT_EQ(j["contrast"], nlohmann::json({0.6, 1.4}));
  EXPECT_EQ(j["hue"], nlohmann::json({-0.1, 0.1}));
  EXPECT_EQ(j["brightness"], nlohmann::json({1.0, 1.0}));
  for (const nlohmann::json& bad : {nlohmann::json{{"hue", 0.7}}, nlohmann::json{{"brightness", -1}},
                                    nlohmann::json{{"saturation", {2, 1}}}, nlohmann::json{{"hue", {-0.6, 0}}},
                                    nlohmann::json{{"gamma", 1}}}) {
    nlohmann::json spec = bad;
    spec["op"] = "RandomColorAdjust";
    EXPECT_FALSE(MakeOp(spec).ok()) << spec.dump();
  }
  // All four active: same seed, same output; the order varies with the seed.
  auto all = Op({{"op", "RandomColorAdjust"}, {"brightness", 0.4}, {"contrast", 0.4}, {"saturation", 0.4},
                 {"hue", 0.2}});
  std::map<std::string, int> distinct;
  for (int seed = 0; seed < 20; ++seed) {
    Tensor out = RunOp(*all, img, seed);
    EXPECT_TRUE(SameBytes(RunOp(*all, img, seed), out));
    distinct[std::string(reinterpret_cast<const char*>(out.data()), out.size_bytes())]++;
  }
  EXPECT_EQ(distinct.size(), 20u);
}

TEST(OpsColorTest, RescaleConvertColorGrayscale) {
  Tensor img = MatToTensor(SyntheticRgb(9, 13, 2));
  Tensor r = RunOp(*Op({{"op", "Rescale"}, {"rescale", 1.0 / 255}, {"shift", -0.5}}), img);
  ASSERT_EQ(r.type(), TensorType::kFloat32);
  for (size_t i = 0; i < img.size_bytes(); ++i)
    ASSERT_NEAR(r.data_as<float>()[i], img.data()[i] / 255.0 - 0.5, 1e-6);
  EXPECT_FALSE(MakeOp({{"op", "Rescale"}, {"rescale", 2.0}}).ok());  // shift is required (as MindSpore)

  Tensor bgr = RunOp(*Op({{"op", "ConvertColor"}, {"convert_mode", "COLOR_RGB2BGR"}}), img);
  Tensor rgba = RunOp(*Op({{"op", "ConvertColor"}, {"convert_mode", "COLOR_RGB2RGBA"}}), img);
  Tensor gray = RunOp(*Op({{"op", "ConvertColor"}, {"convert_mode", "COLOR_RGB2GRAY"}}), img);
  ASSERT_EQ(rgba.shape(), (std::vector<int64_t>{9, 13, 4}));
  ASSERT_EQ(gray.shape(), (std::vector<int64_t>{9, 13}));
  for (int64_t i = 0; i < 9 * 13; ++i) {
    const uint8_t* p = img.data() + 3 * i;
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(bgr.data()[3 * i + c], p[2 - c]);
      ASSERT_EQ(rgba.data()[4 * i + c], p[c]);
    }
    ASSERT_EQ(rgba.data()[4 * i + 3], 255);
    ASSERT_LE(std::abs(int(gray.data()[i]) - int(std::nearbyint(Luma(p)))), 1);
  }
  Tensor back = RunOp(*Op({{"op", "ConvertColor"}, {"convert_mode", "COLOR_GRAY2RGB"}}), gray);
  ASSERT_EQ(back.shape(), (std::vector<int64_t>{9, 13, 3}));
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op({{"op", "ConvertColor"}, {"convert_mode", "COLOR_RGBA2RGB"}})->Apply(img, rng).ok());  // 3 ch
  EXPECT_FALSE(MakeOp({{"op", "ConvertColor"}, {"convert_mode", "COLOR_RGB2HSV"}}).ok());

  Tensor g1 = RunOp(*Op({{"op", "Grayscale"}}), img);
  EXPECT_TRUE(SameBytes(g1, gray));
  Tensor g3 = RunOp(*Op({{"op", "Grayscale"}, {"num_output_channels", 3}}), img);
  ASSERT_EQ(g3.shape(), (std::vector<int64_t>{9, 13, 3}));
  for (int64_t i = 0; i < 9 * 13; ++i)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(g3.data()[3 * i + c], gray.data()[i]);
  EXPECT_FALSE(MakeOp({{"op", "Grayscale"}, {"num_output_channels", 2}}).ok());
}

TEST(OpsColorTest, PolicyPrimitivesMatchTheirFormulas) {
  Tensor img = MatToTensor(SyntheticRgb(20, 28, 7));
  Tensor want = Map(img, [](const uint8_t* p, uint8_t* o) {
    for (int c = 0; c < 3; ++c) o[c] = p[c] & 0xE0;
  });
  EXPECT_TRUE(SameBytes(*ops::Posterize(img, 3, "t"), want));
  EXPECT_TRUE(SameBytes(*ops::Posterize(img, 8, "t"), img));
  want = Map(img, [](const uint8_t* p, uint8_t* o) {
    for (int c = 0; c < 3; ++c) o[c] = p[c] >= 128 ? 255 - p[c] : p[c];
  });
  EXPECT_TRUE(SameBytes(*ops::Solarize(img, 128, "t"), want));
  EXPECT_TRUE(SameBytes(*ops::Solarize(img, 256, "t"), img));
  want = Map(img, [](const uint8_t* p, uint8_t* o) {
    for (int c = 0; c < 3; ++c) o[c] = 255 - p[c];
  });
  EXPECT_TRUE(SameBytes(*ops::Invert(img, "t"), want));

  // AutoContrast: per channel [lo, hi] -> [0, 255].
  Tensor ac = *ops::AutoContrast(img, "t");
  for (int c = 0; c < 3; ++c) {
    int lo = 255, hi = 0;
    for (int64_t i = 0; i < 20 * 28; ++i) lo = std::min(lo, int(img.data()[3 * i + c])), hi = std::max(hi, int(img.data()[3 * i + c]));
    for (int64_t i = 0; i < 20 * 28; ++i) {
      const int v = img.data()[3 * i + c];
      const int expect = hi > lo ? std::clamp(int(float(v) * (255.0f / (hi - lo)) - lo * (255.0f / (hi - lo))), 0, 255) : v;
      ASSERT_LE(std::abs(int(ac.data()[3 * i + c]) - expect), 1) << c << " " << i;
    }
  }

  // Equalize: OpenCV's algorithm (its documentation): lut = round(255 *
  // (cdf - cdf(first used level)) / (pixels - count of that level)).
  Tensor eq = *ops::Equalize(img, "t");
  for (int c = 0; c < 3; ++c) {
    int hist[256] = {0};
    const int n = 20 * 28;
    for (int i = 0; i < n; ++i) hist[img.data()[3 * i + c]]++;
    int first = 0;
    while (hist[first] == 0) ++first;
    uint8_t lut[256] = {0};
    double sum = 0;
    for (int v = first + 1; v < 256; ++v) sum += hist[v], lut[v] = Sat(sum * 255.0 / (n - hist[first]));
    for (int i = 0; i < n; ++i) ASSERT_LE(std::abs(int(eq.data()[3 * i + c]) - lut[img.data()[3 * i + c]]), 1);
  }

  // Sharpness: blend with the 3x3 [1 1 1; 1 5 1; 1 1 1] / 13 smoothing,
  // border pixels unsmoothed.
  for (double f : {0.0, 0.5, 1.8}) {
    Tensor s = *ops::Sharpness(img, f, "t");
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 28; ++x)
        for (int c = 0; c < 3; ++c) {
          auto px = [&](int yy, int xx) { return double(img.data()[(yy * 28 + xx) * 3 + c]); };
          double smooth = px(y, x);
          if (y > 0 && y < 19 && x > 0 && x < 27) {
            double acc = 0;
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx) acc += px(y + dy, x + dx) * (dy == 0 && dx == 0 ? 5 : 1);
            smooth = std::nearbyint(acc / 13);
          }
          ASSERT_LE(std::abs(int(s.data()[(y * 28 + x) * 3 + c]) - int(Sat(px(y, x) * f + smooth * (1 - f)))), 1)
              << f << " " << y << " " << x;
        }
  }
  EXPECT_TRUE(SameBytes(*ops::ApplyAugment(img, "Identity", 3, ops::Interpolation::kNearest, {}, "t"), img));
  EXPECT_FALSE(ops::ApplyAugment(img, "Blur", 3, ops::Interpolation::kNearest, {}, "t").ok());
}

}  // namespace
}  // namespace mindrecord
