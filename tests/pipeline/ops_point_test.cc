// The point ops built from JSON specs (AutoContrast … AdjustGamma and their
// random forms): values against references written here from MindSpore's
// kernels, the shapes each takes, the random ops' draws, and the specs'
// checks and round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/color_adjust.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using json = nlohmann::json;
using testing::MatToTensor;
using testing::Op;
using testing::MaxDiff;
using testing::Noisy;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;


// Channel `c` of an HWC tensor as an HW one.
Tensor Plane(const Tensor& t, int c) {
  const int64_t h = t.shape()[0], w = t.shape()[1], n = t.shape()[2];
  Tensor out = Tensor::Make(TensorType::kUInt8, {h, w});
  for (int64_t i = 0; i < h * w; ++i) out.MutableData()[i] = t.data()[i * n + c];
  return out;
}

// out[i] = f(in[i]) for every byte.
template <typename F>
Tensor PerValue(const Tensor& t, F f) {
  Tensor out = Tensor::Make(t.type(), t.shape());
  for (size_t i = 0; i < t.size_bytes(); ++i) out.MutableData()[i] = static_cast<uint8_t>(f(t.data()[i]));
  return out;
}

Result<Tensor> TryPointOp(const json& spec, const Tensor& in, uint64_t seed = 0) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status();
  std::mt19937_64 rng(seed);
  return (*op)->Apply(in, rng);
}

// AutoContrast's reference: drop the ignored levels, cut int(cutoff)% of the
// pixels from the dark end and as many from the bright end, stretch the rest.
Tensor AutoContrastRef(const Tensor& img, int percent, const std::vector<int>& ignore) {
  const int64_t c_n = img.shape().size() == 3 ? img.shape()[2] : 1;
  const int64_t px = img.shape()[0] * img.shape()[1];
  Tensor out = Tensor::Make(img.type(), img.shape());
  for (int64_t c = 0; c < c_n; ++c) {
    std::vector<int64_t> hist(256, 0);
    for (int64_t i = 0; i < px; ++i) hist[img.data()[i * c_n + c]]++;
    for (int v : ignore) hist[v] = 0;
    int64_t total = 0;
    for (int64_t h : hist) total += h;
    const int64_t cut = total * percent / 100;
    for (int side = 0; side < 2; ++side) {
      int64_t left = cut;
      for (int k = 0; k < 256 && left > 0; ++k) {
        int64_t& h = hist[side == 0 ? k : 255 - k];
        const int64_t take = std::min(left, h);
        h -= take;
        left -= take;
      }
    }
    int lo = 0, hi = 255;
    while (lo < hi && hist[lo] == 0) ++lo;
    while (hi >= 0 && hist[hi] == 0) --hi;
    for (int64_t i = 0; i < px; ++i) {
      const int v = img.data()[i * c_n + c];
      int o = v;
      if (hi > lo) o = std::clamp(static_cast<int>(std::floor((v - lo) * 255.0 / (hi - lo))), 0, 255);
      out.MutableData()[i * c_n + c] = static_cast<uint8_t>(o);
    }
  }
  return out;
}

TEST(OpsPointTest, AutoContrastCutsAndIgnoresAsMindSpore) {
  Tensor img = Noisy(23, 31, 3, 1);
  // Narrow the levels so that the stretch shows.
  img = PerValue(img, [](int v) { return 40 + v / 2; });
  for (double cutoff : {0.0, 5.0, 10.7, 49.0})
    for (const std::vector<int>& ignore : {std::vector<int>{}, std::vector<int>{40, 41, 167}}) {
      Tensor got = RunOp(*Op({{"op", "AutoContrast"}, {"cutoff", cutoff}, {"ignore", ignore}}), img);
      // float arithmetic in the kernel: at most one level off the exact stretch
      EXPECT_LE(MaxDiff(got, AutoContrastRef(img, static_cast<int>(cutoff), ignore)), 1) << cutoff;
    }
  // A fractional cutoff counts in whole percents, as in MindSpore.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AutoContrast"}, {"cutoff", 10.7}}), img),
                        RunOp(*Op({{"op", "AutoContrast"}, {"cutoff", 10}}), img)));
  // HW and HWC with one channel: the channel on its own.
  Tensor want = RunOp(*Op({{"op", "AutoContrast"}, {"cutoff", 5}}), img);
  Tensor hw = RunOp(*Op({{"op", "AutoContrast"}, {"cutoff", 5}}), Plane(img, 1));
  EXPECT_TRUE(SameBytes(hw, Plane(want, 1)));
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AutoContrast"}, {"ignore", 3}}), Plane(img, 2).Reshaped({23, 31, 1})),
                        RunOp(*Op({{"op", "AutoContrast"}, {"ignore", 3}}), Plane(img, 2)).Reshaped({23, 31, 1})));
  EXPECT_FALSE(TryPointOp({{"op", "AutoContrast"}}, Noisy(4, 4, 4, 2)).ok());
  // The default is the policies' kernel.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AutoContrast"}}), img), *ops::AutoContrast(img, "t")));
}

TEST(OpsPointTest, EqualizeInvertPosterizeSolarizeTakeMindSporesShapes) {
  Tensor img = Noisy(17, 19, 3, 3);
  Tensor eq = RunOp(*Op({{"op", "Equalize"}}), img);
  EXPECT_TRUE(SameBytes(eq, *ops::Equalize(img, "t")));
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "Equalize"}}), Plane(img, c)), Plane(eq, c)));
  EXPECT_FALSE(TryPointOp({{"op", "Equalize"}}, Noisy(4, 4, 2, 1)).ok());

  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "Invert"}}), img), PerValue(img, [](int v) { return 255 - v; })));
  EXPECT_FALSE(TryPointOp({{"op", "Invert"}}, Plane(img, 0)).ok());  // MindSpore's Invert takes HWC RGB only

  for (int bits : {0, 1, 5, 8})
    for (const Tensor& in : {img, Plane(img, 0), Noisy(5, 6, 4, 7)}) {
      const int mask = (0xFF << (8 - bits)) & 0xFF;
      EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "Posterize"}, {"bits", bits}}), in),
                            PerValue(in, [&](int v) { return v & mask; })))
          << bits;
    }

  auto solarized = [](const Tensor& t, double lo, double hi) {
    return PerValue(t, [&](int v) { return (lo == hi ? v >= lo : (v >= lo && v <= hi)) ? 255 - v : v; });
  };
  for (const json& th : {json(128), json({100, 100}), json({30, 200}), json({0, 255}), json(127.5), json({0, 0})})
    for (const Tensor& in : {img, Plane(img, 1)}) {
      const double lo = th.is_array() ? th[0].get<double>() : th.get<double>();
      const double hi = th.is_array() ? th[1].get<double>() : lo;
      EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "Solarize"}, {"threshold", th}}), in), solarized(in, lo, hi)))
          << th.dump();
    }
  EXPECT_FALSE(TryPointOp({{"op", "Solarize"}, {"threshold", 10}}, Noisy(4, 4, 4, 1)).ok());
}

TEST(OpsPointTest, AdjustmentsAreTheKernelsWithFloatFactors) {
  Tensor img = MatToTensor(SyntheticRgb(21, 29, 4));
  for (double f : {0.0, 0.1, 0.7, 1.0, 2.3}) {
    const double ff = static_cast<float>(f);
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustBrightness"}, {"brightness_factor", f}}), img),
                          *ops::AdjustBrightness(img, ff, "t")));
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustContrast"}, {"contrast_factor", f}}), img),
                          *ops::AdjustContrast(img, ff, "t")));
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustSaturation"}, {"saturation_factor", f}}), img),
                          *ops::AdjustSaturation(img, ff, "t")));
    Tensor sharp = RunOp(*Op({{"op", "AdjustSharpness"}, {"sharpness_factor", f}}), img);
    EXPECT_TRUE(SameBytes(sharp, *ops::Sharpness(img, ff, "t")));
    // HW: the channel on its own
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustSharpness"}, {"sharpness_factor", f}}), Plane(img, 2)),
                          Plane(sharp, 2)));
  }
  for (double h : {-0.5, -0.2, 0.0, 0.3, 0.5})
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustHue"}, {"hue_factor", h}}), img),
                          *ops::AdjustHue(img, static_cast<float>(h), "t")));
  for (const char* name : {"AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustHue"}) {
    std::string key = std::string(name).substr(6);
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    EXPECT_FALSE(TryPointOp({{"op", name}, {key + "_factor", 0.2}}, Plane(img, 0)).ok()) << name;
  }
}

TEST(OpsPointTest, AdjustGammaMatchesItsFormula) {
  Tensor img = Noisy(9, 11, 3, 5);
  for (double gamma : {0.0, 0.4, 1.0, 2.2})
    for (double gain : {1.0, 0.5, 1.7, -1.0}) {
      Tensor got = RunOp(*Op({{"op", "AdjustGamma"}, {"gamma", gamma}, {"gain", gain}}), img);
      Tensor want = PerValue(img, [&](int v) {
        const double y = std::floor(std::min(std::pow(v / 255.0, gamma) * 255.999 * gain, 255.0));
        return std::max(y, 0.0);
      });
      EXPECT_LE(MaxDiff(got, want), 1) << gamma << " " << gain;  // float vs double at a floor
    }
  // HW, [N, H, W, C] and float input (float64 gives float32).
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "AdjustGamma"}, {"gamma", 0.5}}), Plane(img, 0)),
                        Plane(RunOp(*Op({{"op", "AdjustGamma"}, {"gamma", 0.5}}), img), 0)));
  EXPECT_TRUE(TryPointOp({{"op", "AdjustGamma"}, {"gamma", 0.5}}, img.Reshaped({1, 9, 11, 3})).ok());
  EXPECT_FALSE(TryPointOp({{"op", "AdjustGamma"}, {"gamma", 0.5}}, Noisy(3, 3, 2, 1)).ok());
  Tensor f64 = Tensor::Make(TensorType::kFloat64, {2, 3});
  const double xs[6] = {0.0, 0.25, 0.5, 0.9, 1.0, -0.5};
  for (int i = 0; i < 6; ++i) f64.mutable_data_as<double>()[i] = xs[i];
  Tensor out = RunOp(*Op({{"op", "AdjustGamma"}, {"gamma", 2.0}, {"gain", 1.5}}), f64);
  ASSERT_EQ(out.type(), TensorType::kFloat32);
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(out.data_as<float>()[i], std::clamp(std::pow(xs[i] * 1.5, 2.0), 0.0, 1.0), 1e-6) << i;
}

TEST(OpsPointTest, RandomOpsAtTheirLimitsAreTheDeterministicOnes) {
  Tensor img = Noisy(13, 15, 3, 9);
  const std::vector<std::pair<json, json>> same = {
      {{{"op", "RandomAutoContrast"}, {"cutoff", 3}, {"ignore", json::array({7})}, {"prob", 1.0}},
       {{"op", "AutoContrast"}, {"cutoff", 3}, {"ignore", json::array({7})}}},
      {{{"op", "RandomEqualize"}, {"prob", 1.0}}, {{"op", "Equalize"}}},
      {{{"op", "RandomInvert"}, {"prob", 1.0}}, {{"op", "Invert"}}},
      {{{"op", "RandomAdjustSharpness"}, {"degree", 1.6}, {"prob", 1.0}},
       {{"op", "AdjustSharpness"}, {"sharpness_factor", 1.6}}},
      {{{"op", "RandomPosterize"}, {"bits", {3, 3}}}, {{"op", "Posterize"}, {"bits", 3}}},
      {{{"op", "RandomPosterize"}, {"bits", 2}}, {{"op", "Posterize"}, {"bits", 2}}},
      {{{"op", "RandomPosterize"}}, {{"op", "Posterize"}, {"bits", 8}}},
      {{{"op", "RandomSolarize"}, {"threshold", {90, 90}}}, {{"op", "Solarize"}, {"threshold", 90}}},
      {{{"op", "RandomSharpness"}, {"degrees", {0.3, 0.3}}}, {{"op", "AdjustSharpness"}, {"sharpness_factor", 0.3}}},
  };
  for (const auto& [random, fixed] : same)
    for (uint64_t seed : {0u, 1u, 2u}) EXPECT_TRUE(SameBytes(RunOp(*Op(random), img, seed), RunOp(*Op(fixed), img)))
        << random.dump();
  for (const char* name : {"RandomAutoContrast", "RandomEqualize", "RandomInvert"})
    EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", name}, {"prob", 0.0}}), img, 3), img)) << name;
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomAdjustSharpness"}, {"degree", 0.0}, {"prob", 0.0}}), img), img));
  // Inputs are checked whatever the draw, as MindSpore's ops check them.
  EXPECT_FALSE(TryPointOp({{"op", "RandomInvert"}, {"prob", 0.0}}, Plane(img, 0)).ok());
  EXPECT_FALSE(TryPointOp({{"op", "RandomAutoContrast"}, {"prob", 0.0}}, Plane(img, 0).Reshaped({13, 15, 1})).ok());
  EXPECT_TRUE(TryPointOp({{"op", "RandomAutoContrast"}, {"prob", 1.0}}, Plane(img, 0)).ok());
  EXPECT_FALSE(TryPointOp({{"op", "RandomEqualize"}, {"prob", 0.0}}, Noisy(3, 3, 2, 1)).ok());
}

TEST(OpsPointTest, RandomOpsDrawTheirParameters) {
  Tensor img = Noisy(13, 15, 3, 11);
  // RandomPosterize: bits ~ U{2..5}, each seen.
  std::set<int> bits;
  auto post = Op({{"op", "RandomPosterize"}, {"bits", {2, 5}}});
  for (uint64_t seed = 0; seed < 60; ++seed) {
    Tensor out = RunOp(*post, img, seed);
    EXPECT_TRUE(SameBytes(RunOp(*post, img, seed), out));
    int found = -1;
    for (int b = 2; b <= 5; ++b)
      if (SameBytes(out, *ops::Posterize(img, b, "t"))) found = b;
    ASSERT_GE(found, 2) << seed;
    bits.insert(found);
  }
  EXPECT_EQ(bits.size(), 4u);
  // RandomSolarize: the levels in a subrange [a, b] of [40, 60] inverted; all
  // levels >= a when the two draws are equal. Every level is in `big`.
  Tensor big = Noisy(64, 64, 3, 12);
  auto sol = Op({{"op", "RandomSolarize"}, {"threshold", {40, 60}}});
  std::set<std::pair<int, int>> ranges;
  for (uint64_t seed = 0; seed < 80; ++seed) {
    Tensor out = RunOp(*sol, big, seed);
    int a = 256, b = -1;
    for (size_t i = 0; i < big.size_bytes(); ++i)
      if (out.data()[i] != big.data()[i]) {
        a = std::min<int>(a, big.data()[i]);
        b = std::max<int>(b, big.data()[i]);
      }
    ASSERT_TRUE(40 <= a && a <= 60) << seed << " " << a;
    if (b == 255) {
      EXPECT_TRUE(SameBytes(out, *ops::Solarize(big, a, a, "t"))) << seed;
    } else {
      ASSERT_TRUE(a < b && b <= 60) << seed << " " << a << " " << b;
      EXPECT_TRUE(SameBytes(out, *ops::Solarize(big, a, b, "t"))) << seed;
    }
    ranges.insert({a, b});
  }
  EXPECT_GT(ranges.size(), 30u);
  // RandomSharpness: a factor in [0.5, 1.5): between the two ends pixel-wise.
  auto sharp = Op({{"op", "RandomSharpness"}, {"degrees", {0.5, 1.5}}});
  Tensor lo = *ops::Sharpness(img, 0.5, "t"), hi = *ops::Sharpness(img, 1.5, "t");
  std::set<std::string> outs;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Tensor out = RunOp(*sharp, img, seed);
    for (size_t i = 0; i < img.size_bytes(); ++i) {
      const int a = std::min(lo.data()[i], hi.data()[i]), b = std::max(lo.data()[i], hi.data()[i]);
      ASSERT_TRUE(out.data()[i] >= a - 1 && out.data()[i] <= b + 1) << seed << " " << i;
    }
    outs.insert(std::string(reinterpret_cast<const char*>(out.data()), out.size_bytes()));
  }
  EXPECT_GT(outs.size(), 15u);
  // The coin ops apply with probability prob.
  int hits = 0;
  auto inv = Op({{"op", "RandomInvert"}, {"prob", 0.3}});
  for (uint64_t seed = 0; seed < 2000; ++seed) hits += !SameBytes(RunOp(*inv, img, seed), img);
  EXPECT_NEAR(hits / 2000.0, 0.3, 5 * std::sqrt(0.3 * 0.7 / 2000));
}

TEST(OpsPointTest, SpecsRoundTripAndBadOnesAreRefused) {
  const std::vector<json> specs = {
      {{"op", "AutoContrast"}},
      {{"op", "AutoContrast"}, {"cutoff", 2.5}, {"ignore", 9}},
      {{"op", "Equalize"}},
      {{"op", "Invert"}},
      {{"op", "Posterize"}, {"bits", 4}},
      {{"op", "Solarize"}, {"threshold", 100}},
      {{"op", "AdjustSharpness"}, {"sharpness_factor", 2}},
      {{"op", "AdjustBrightness"}, {"brightness_factor", 0.5}},
      {{"op", "AdjustContrast"}, {"contrast_factor", 1.5}},
      {{"op", "AdjustSaturation"}, {"saturation_factor", 0}},
      {{"op", "AdjustHue"}, {"hue_factor", -0.25}},
      {{"op", "AdjustGamma"}, {"gamma", 2}},
      {{"op", "RandomAutoContrast"}},
      {{"op", "RandomEqualize"}, {"prob", 0.2}},
      {{"op", "RandomInvert"}},
      {{"op", "RandomAdjustSharpness"}, {"degree", 0.1}},
      {{"op", "RandomPosterize"}, {"bits", {1, 8}}},
      {{"op", "RandomSolarize"}},
      {{"op", "RandomSharpness"}},
  };
  for (const json& spec : specs) {
    auto op = Op(spec);
    ASSERT_NE(op, nullptr) << spec.dump();
    const json j = op->ToJson();
    EXPECT_EQ(Op(j)->ToJson(), j) << j.dump();
    EXPECT_EQ(op->is_random(), spec["op"].get<std::string>().rfind("Random", 0) == 0) << spec.dump();
  }
  EXPECT_EQ(Op({{"op", "AutoContrast"}, {"ignore", 9}})->ToJson(),
            json({{"op", "AutoContrast"}, {"cutoff", 0.0}, {"ignore", json::array({9})}}));
  EXPECT_EQ(Op({{"op", "Solarize"}, {"threshold", 100}})->ToJson()["threshold"], json({100.0, 100.0}));
  EXPECT_EQ(Op({{"op", "AdjustGamma"}, {"gamma", 2}})->ToJson()["gain"], json(1.0));
  EXPECT_EQ(Op({{"op", "RandomSolarize"}})->ToJson()["threshold"], json({0, 255}));
  EXPECT_EQ(Op({{"op", "RandomSharpness"}})->ToJson()["degrees"], json({0.1, 1.9}));
  EXPECT_EQ(Op({{"op", "RandomPosterize"}})->ToJson()["bits"], json({8, 8}));
  EXPECT_EQ(Op({{"op", "RandomAdjustSharpness"}, {"degree", 1}})->ToJson()["prob"], json(0.5));

  const std::vector<json> bad = {
      {{"op", "AutoContrast"}, {"cutoff", 50}},
      {{"op", "AutoContrast"}, {"cutoff", -1}},
      {{"op", "AutoContrast"}, {"ignore", {1, 256}}},
      {{"op", "AutoContrast"}, {"ignore", json::array({1.5})}},
      {{"op", "Equalize"}, {"prob", 1}},
      {{"op", "Posterize"}},
      {{"op", "Posterize"}, {"bits", 9}},
      {{"op", "Posterize"}, {"bits", 2.5}},
      {{"op", "Posterize"}, {"bits", 1e30}},
      {{"op", "Posterize"}, {"bits", 18446744073709551615ull}},
      {{"op", "Posterize"}, {"bits", "3"}},
      {{"op", "Solarize"}},
      {{"op", "Solarize"}, {"threshold", {200, 100}}},
      {{"op", "Solarize"}, {"threshold", 256}},
      {{"op", "Solarize"}, {"threshold", {1, 2, 3}}},
      {{"op", "AdjustSharpness"}},
      {{"op", "AdjustBrightness"}, {"brightness_factor", -0.1}},
      {{"op", "AdjustContrast"}, {"contrast_factor", 1e8}},
      {{"op", "AdjustSaturation"}, {"factor", 1}},
      {{"op", "AdjustHue"}, {"hue_factor", 0.6}},
      {{"op", "AdjustGamma"}, {"gamma", -1}},
      {{"op", "AdjustGamma"}, {"gamma", 1}, {"gain", 1e9}},
      {{"op", "RandomAutoContrast"}, {"cutoff", 60}},
      {{"op", "RandomEqualize"}, {"prob", 1.5}},
      {{"op", "RandomInvert"}, {"p", 0.5}},
      {{"op", "RandomAdjustSharpness"}},
      {{"op", "RandomAdjustSharpness"}, {"degree", -1}},
      {{"op", "RandomPosterize"}, {"bits", {0, 8}}},
      {{"op", "RandomPosterize"}, {"bits", {6, 4}}},
      {{"op", "RandomPosterize"}, {"bits", {4.5, 6}}},
      {{"op", "RandomSolarize"}, {"threshold", 10}},
      {{"op", "RandomSolarize"}, {"threshold", {10, 300}}},
      {{"op", "RandomSolarize"}, {"threshold", {10.5, 30}}},
      {{"op", "RandomSharpness"}, {"degrees", {1.0, 0.5}}},
      {{"op", "RandomSharpness"}, {"degrees", {-0.5, 0.5}}},
      {{"op", "RandomSharpness"}, {"degrees", 0.5}},
  };
  for (const json& spec : bad) EXPECT_FALSE(MakeOp(spec).ok()) << spec.dump();
  // One rule for integer parameters: an integral number such as 3.0 is 3.
  EXPECT_EQ(Op({{"op", "Posterize"}, {"bits", 3.0}})->ToJson()["bits"], json(3));
  // Errors name the op given and the parameter.
  for (const auto& [spec, words] : std::vector<std::pair<json, std::string>>{
           {{{"op", "RandomAutoContrast"}, {"cutoff", 60}}, "RandomAutoContrast: parameter 'cutoff'"},
           {{{"op", "AdjustHue"}, {"hue_factor", 1}}, "AdjustHue: parameter 'hue_factor'"},
           {{{"op", "RandomSolarize"}, {"threshold", {9, 1}}}, "RandomSolarize: parameter 'threshold'"}}) {
    auto r = MakeOp(spec);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find(words), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace mindrecord
