// RandomColor, RandomLighting and NormalizePad built from JSON specs: values
// against references written here from MindSpore's kernels (random_color_op.cc,
// image_utils.cc RandomLighting / NormalizePad), the draws, the inputs each
// takes, and the specs' checks and round trips.
#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/ops/color_adjust.h"
#include "pipeline/ops/op_util.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using json = nlohmann::json;
using testing::MatToTensor;
using testing::Op;
using testing::Noisy;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;


Result<Tensor> Try(const json& spec, const Tensor& in, uint64_t seed = 0) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status();
  std::mt19937_64 rng(seed);
  return (*op)->Apply(in, rng);
}

void ExpectInvalid(const json& spec, const std::string& what) {
  auto r = MakeOp(spec);
  ASSERT_FALSE(r.ok()) << spec.dump();
  EXPECT_NE(r.status().ToString().find(what), std::string::npos) << r.status().ToString();
}

// OpenCV 4's 8-bit RGB2GRAY: 0.299 R + 0.587 G + 0.114 B in 15-bit fixed point,
// (9798 R + 19235 G + 3735 B + 2^14) >> 15.
uint8_t Gray(const uint8_t* p) {
  return static_cast<uint8_t>((9798 * p[0] + 19235 * p[1] + 3735 * p[2] + 16384) >> 15);
}

// --- RandomColor -------------------------------------------------------------------------------------------------

TEST(OpsPixel, RandomColorBlendsWithGreyAsMindSpore) {
  const Tensor img = MatToTensor(SyntheticRgb(21, 33));
  for (double t : {0.3, 0.75, 1.7, 2.5}) {
    auto op = Op({{"op", "RandomColor"}, {"degrees", {t, t}}});
    const Tensor out = RunOp(*op, img, 4);
    // grey * (1 - t) + x * t in float, rounded to nearest and saturated (OpenCV's addWeighted).
    const float tf = static_cast<float>(t);
    int worst = 0;
    for (int64_t i = 0; i < 21 * 33; ++i) {
      const uint8_t* p = img.data() + 3 * i;
      for (int k = 0; k < 3; ++k) {
        const double v = Gray(p) * (1.0 - tf) + p[k] * static_cast<double>(tf);
        const int want = static_cast<int>(std::min(255.0, std::max(0.0, std::nearbyint(v))));
        worst = std::max(worst, std::abs(want - out.data()[3 * i + k]));
      }
    }
    EXPECT_LE(worst, 1) << t;  // float vs double at a .5 boundary
    EXPECT_TRUE(SameBytes(out, *ops::AdjustSaturation(img, tf, "x"))) << t;
  }
}

TEST(OpsPixel, RandomColorNearOneOrZeroShortCuts) {
  const Tensor img = Noisy(9, 7, 3, 2);
  // |t - 1| < 0.00195: the input as it is.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomColor"}, {"degrees", {1.0019, 1.0019}}}), img), img));
  EXPECT_FALSE(SameBytes(RunOp(*Op({{"op", "RandomColor"}, {"degrees", {1.01, 1.01}}}), img), img));
  // |t| < 0.00195: the grey image in 3 channels, with no part of x blended in.
  const Tensor gray = RunOp(*Op({{"op", "RandomColor"}, {"degrees", {0.0019, 0.0019}}}), img);
  for (int64_t i = 0; i < 9 * 7; ++i)
    for (int k = 0; k < 3; ++k) ASSERT_EQ(gray.data()[3 * i + k], Gray(img.data() + 3 * i)) << i;
}

TEST(OpsPixel, RandomColorDrawsOneUniformFactor) {
  const Tensor img = MatToTensor(SyntheticRgb(16, 16));
  auto op = Op({{"op", "RandomColor"}, {"degrees", {0.2, 1.8}}});
  EXPECT_TRUE(op->is_random());
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    const float t = static_cast<float>(ops::RandUniform(rng, 0.2, 1.8));
    EXPECT_TRUE(SameBytes(RunOp(*op, img, seed), *ops::AdjustSaturation(img, t, "x"))) << seed;
  }
  EXPECT_EQ(RunOp(*Op({{"op", "RandomColor"}}), img).shape(), img.shape());  // default [0.1, 1.9]
}

TEST(OpsPixel, RandomColorChecks) {
  auto op = Op({{"op", "RandomColor"}});
  EXPECT_EQ(op->ToJson(), json::parse(R"({"op":"RandomColor","degrees":[0.1,1.9]})"));
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
  for (const Tensor& bad : {Tensor::Make(TensorType::kUInt8, {4, 4}), Tensor::Make(TensorType::kUInt8, {4, 4, 4}),
                            Tensor::Make(TensorType::kFloat32, {4, 4, 3})}) {
    auto r = Try({{"op", "RandomColor"}}, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find("RandomColor"), std::string::npos);
  }
  ExpectInvalid({{"op", "RandomColor"}, {"degrees", {1.5, 0.5}}}, "RandomColor: parameter 'degrees'");
  ExpectInvalid({{"op", "RandomColor"}, {"degrees", {-0.5, 0.5}}}, "RandomColor: parameter 'degrees'");
  ExpectInvalid({{"op", "RandomColor"}, {"degrees", {0.5, 2e7}}}, "RandomColor: parameter 'degrees'");
  ExpectInvalid({{"op", "RandomColor"}, {"degrees", 0.5}}, "RandomColor: parameter 'degrees'");
  ExpectInvalid({{"op", "RandomColor"}, {"degrees", "x"}}, "RandomColor");
  ExpectInvalid({{"op", "RandomColor"}, {"degree", {0.5, 1}}}, "degree");
}

// --- RandomLighting ----------------------------------------------------------------------------------------------

// AlexNet's ImageNet PCA (eigenvalues and eigenvectors, as MindSpore's table
// holds them), in double.
const double kEigval[3] = {55.46, 4.794, 1.148};
const double kEigvec[3][3] = {{-0.5675, 0.7192, 0.4009}, {-0.5808, -0.0045, -0.8140}, {-0.5836, -0.6948, 0.4203}};

TEST(OpsPixel, RandomLightingAddsThePcaShift) {
  const Tensor img = Noisy(13, 11, 3, 5);
  for (double alpha : {0.05, 0.5, 3.0}) {
    auto op = Op({{"op", "RandomLighting"}, {"alpha", alpha}});
    EXPECT_TRUE(op->is_random());
    for (uint64_t seed = 0; seed < 5; ++seed) {
      std::mt19937_64 rng(seed);
      double a[3];
      for (double& x : a) x = alpha * ops::RandNormal(rng);
      const Tensor out = RunOp(*op, img, seed);
      ASSERT_EQ(out.shape(), img.shape());
      int worst = 0;
      for (int64_t i = 0; i < 13 * 11; ++i)
        for (int k = 0; k < 3; ++k) {
          double shift = 0;
          for (int j = 0; j < 3; ++j) shift += kEigvec[k][j] * kEigval[j] * a[j];
          const double v = std::nearbyint(img.data()[3 * i + k] + shift);
          worst = std::max(worst, std::abs(static_cast<int>(std::min(255.0, std::max(0.0, v))) -
                                           out.data()[3 * i + k]));
        }
      EXPECT_LE(worst, 1) << alpha << " " << seed;  // float vs double at a .5 boundary
    }
  }
}

TEST(OpsPixel, RandomLightingLimits) {
  const Tensor img = Noisy(8, 8, 3, 6);
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomLighting"}, {"alpha", 0}}), img, 3), img));
  // A huge alpha saturates every value (no float-to-int overflow).
  const Tensor sat = RunOp(*Op({{"op", "RandomLighting"}, {"alpha", 16777216}}), img, 3);
  for (size_t i = 0; i < sat.size_bytes(); ++i) ASSERT_TRUE(sat.data()[i] == 0 || sat.data()[i] == 255);
  auto op = Op({{"op", "RandomLighting"}});
  EXPECT_EQ(op->ToJson(), json::parse(R"({"op":"RandomLighting","alpha":0.05})"));
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
  for (const Tensor& bad : {Tensor::Make(TensorType::kUInt8, {4, 4}), Tensor::Make(TensorType::kUInt8, {4, 4, 1}),
                            Tensor::Make(TensorType::kFloat32, {4, 4, 3})}) {
    auto r = Try({{"op", "RandomLighting"}}, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find("RandomLighting"), std::string::npos);
  }
  ExpectInvalid({{"op", "RandomLighting"}, {"alpha", -0.1}}, "RandomLighting: parameter 'alpha'");
  ExpectInvalid({{"op", "RandomLighting"}, {"alpha", 2e7}}, "RandomLighting: parameter 'alpha'");
  ExpectInvalid({{"op", "RandomLighting"}, {"alpha", "x"}}, "RandomLighting");
  ExpectInvalid({{"op", "RandomLighting"}, {"prob", 0.5}}, "prob");
}

// --- NormalizePad ------------------------------------------------------------------------------------------------

TEST(OpsPixel, NormalizePadHwc) {
  const Tensor img = Noisy(5, 6, 3, 7);
  const double mean[3] = {121.0, 115.0, 100.0}, stdv[3] = {70.0, 68.0, 71.0};
  const Tensor out = RunOp(*Op({{"op", "NormalizePad"}, {"mean", {121.0, 115.0, 100.0}}, {"std", {70.0, 68.0, 71.0}}}),
                           img);
  ASSERT_EQ(out.type(), TensorType::kFloat32);
  ASSERT_EQ(out.shape(), (Shape{5, 6, 4}));
  const float* o = out.data_as<float>();
  for (int64_t i = 0; i < 30; ++i) {
    for (int k = 0; k < 3; ++k)
      ASSERT_NEAR(o[4 * i + k], (img.data()[3 * i + k] - mean[k]) / stdv[k], 1e-5) << i << " " << k;
    ASSERT_EQ(o[4 * i + 3], 0.0f) << i;
  }
  // HW: one channel and the zero one; one mean serves every channel.
  Tensor hw = Tensor::Make(TensorType::kFloat32, {3, 4});
  for (int i = 0; i < 12; ++i) hw.mutable_data_as<float>()[i] = 10.0f * i;
  const Tensor out2 = RunOp(*Op({{"op", "NormalizePad"}, {"mean", {5.0}}, {"std", {2.0}}}), hw);
  ASSERT_EQ(out2.shape(), (Shape{3, 4, 2}));
  for (int i = 0; i < 12; ++i) {
    EXPECT_FLOAT_EQ(out2.data_as<float>()[2 * i], (10.0f * i - 5.0f) / 2.0f);
    EXPECT_EQ(out2.data_as<float>()[2 * i + 1], 0.0f);
  }
  const Tensor out3 = RunOp(*Op({{"op", "NormalizePad"}, {"mean", {5.0}}, {"std", {2.0}}}), img);
  ASSERT_EQ(out3.shape(), (Shape{5, 6, 4}));
  EXPECT_FLOAT_EQ(out3.data_as<float>()[2], (img.data()[2] - 5.0f) / 2.0f);
}

TEST(OpsPixel, NormalizePadChw) {
  Tensor img = Tensor::Make(TensorType::kFloat32, {3, 4, 5});
  for (int i = 0; i < 60; ++i) img.mutable_data_as<float>()[i] = static_cast<float>((i * 37) % 256);
  const double mean[3] = {1.0, 2.0, 3.0}, stdv[3] = {4.0, 5.0, 6.0};
  const Tensor out = RunOp(
      *Op({{"op", "NormalizePad"}, {"mean", {1.0, 2.0, 3.0}}, {"std", {4.0, 5.0, 6.0}}, {"is_hwc", false}}), img);
  ASSERT_EQ(out.shape(), (Shape{4, 4, 5}));
  const float* o = out.data_as<float>();
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p < 20; ++p) {
      const float want = k < 3 ? static_cast<float>((img.data_as<float>()[k * 20 + p] - mean[k]) / stdv[k]) : 0.0f;
      ASSERT_NEAR(o[k * 20 + p], want, 1e-5) << k << " " << p;
    }
  // A uint8 CHW image with more channels than an HWC image may have; one mean for all.
  const Tensor u8 = Noisy(6, 2, 3, 8);  // read as [6, 2, 3]: 6 channels of 2 x 3
  const Tensor out2 = RunOp(*Op({{"op", "NormalizePad"}, {"mean", {10.0}}, {"std", {3.0}}, {"is_hwc", false}}), u8);
  ASSERT_EQ(out2.shape(), (Shape{7, 2, 3}));
  for (int i = 0; i < 36; ++i) ASSERT_NEAR(out2.data_as<float>()[i], (u8.data()[i] - 10.0) / 3.0, 1e-5);
  for (int i = 36; i < 42; ++i) ASSERT_EQ(out2.data_as<float>()[i], 0.0f);
}

TEST(OpsPixel, NormalizePadChecks) {
  const json spec = {{"op", "NormalizePad"}, {"mean", {1.0, 2.0, 3.0}}, {"std", {4.0, 5.0, 6.0}}};
  auto op = Op(spec);
  EXPECT_EQ(op->ToJson(),
            json::parse(R"({"op":"NormalizePad","mean":[1.0,2.0,3.0],"std":[4.0,5.0,6.0],"dtype":"float32",
                            "is_hwc":true})"));
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
  auto with = [&](const char* key, json v) {
    json s = spec;
    s[key] = v;
    return s;
  };
  ExpectInvalid(with("dtype", "float16"), "NormalizePad: dtype 'float16' is not supported");
  ExpectInvalid(with("dtype", "int8"), "NormalizePad: parameter 'dtype'");
  ExpectInvalid(with("mean", {1.0, 2.0}), "same length");
  ExpectInvalid(with("mean", {1.0, 2.0, 300.0}), "NormalizePad: parameter 'mean'");
  ExpectInvalid(with("std", {1.0, 0.0, 3.0}), "NormalizePad: parameter 'std'");
  ExpectInvalid(with("std", {1.0, 256.0, 3.0}), "NormalizePad: parameter 'std'");
  ExpectInvalid(with("is_hwc", "yes"), "is_hwc");
  ExpectInvalid(with("pad", 1), "pad");
  ExpectInvalid({{"op", "NormalizePad"}, {"mean", {1.0}}}, "required");
  const Tensor img4 = Noisy(3, 3, 4, 1);
  auto r = Try(spec, img4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("NormalizePad: 3 mean/std values for an image with 4 channels"),
            std::string::npos)
      << r.status().ToString();
  r = Try(with("is_hwc", false), Tensor::Make(TensorType::kUInt8, {4, 4}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("NormalizePad: with is_hwc=False"), std::string::npos);
  r = Try(spec, Tensor::Make(TensorType::kInt32, {4, 4, 3}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("NormalizePad"), std::string::npos);
  r = Try(with("is_hwc", false), img4);  // 3 channels of 3 x 4 wanted, 3 given: fine
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

}  // namespace
}  // namespace mindrecord
