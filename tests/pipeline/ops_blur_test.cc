// GaussianBlur against a separable Gaussian convolution written here
// (reflect-101 border), and its spec rules (MindSpore's sigma defaults).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::Op;
using testing::RunOp;
using testing::SameBytes;

// Normalized exp(-(i - r)^2 / (2 sigma^2)), i in [0, k).
std::vector<double> Kernel(int k, double sigma) {
  std::vector<double> w(k);
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += w[i] = std::exp(-std::pow(i - k / 2, 2) / (2 * sigma * sigma));
  for (double& v : w) v /= sum;
  return w;
}

int Reflect101(int i, int n) {
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
  return i;
}

// The blur of channel c of an h x w x ch float image, kernel kx wide, ky high.
std::vector<double> Blur(const std::vector<float>& img, int h, int w, int ch, int kx, int ky, double sx, double sy) {
  const auto wx = Kernel(kx, sx), wy = Kernel(ky, sy);
  std::vector<double> rows(img.size()), out(img.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < ch; ++c) {
        double s = 0;
        for (int i = 0; i < kx; ++i) s += wx[i] * img[(y * w + Reflect101(x + i - kx / 2, w)) * ch + c];
        rows[(y * w + x) * ch + c] = s;
      }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < ch; ++c) {
        double s = 0;
        for (int i = 0; i < ky; ++i) s += wy[i] * rows[(Reflect101(y + i - ky / 2, h) * w + x) * ch + c];
        out[(y * w + x) * ch + c] = s;
      }
  return out;
}

TEST(OpsBlurTest, MatchesSeparableGaussian) {
  const int h = 11, w = 14, ch = 3;
  std::mt19937 gen(3);
  Tensor f = Tensor::Make(TensorType::kFloat32, {h, w, ch});
  Tensor u = Tensor::Make(TensorType::kUInt8, {h, w, ch});
  std::vector<float> values(h * w * ch);
  for (size_t i = 0; i < values.size(); ++i) {
    u.MutableData()[i] = static_cast<uint8_t>(gen() % 256);
    values[i] = u.data()[i];
    f.mutable_data_as<float>()[i] = values[i];
  }
  struct Case {
    nlohmann::json kernel, sigma;
    int kx, ky;
    double sx, sy;
  };
  const double d3 = 0.15 * 3 + 0.35, d5 = 0.15 * 5 + 0.35;
  for (const Case& c : {Case{3, nullptr, 3, 3, d3, d3}, Case{5, 1.7, 5, 5, 1.7, 1.7},
                        Case{{3, 5}, {0.9, 2.0}, 3, 5, 0.9, 2.0}, Case{{5, 3}, {0, 0.6}, 5, 3, d5, 0.6},
                        // One sigma (or none) serves both axes, derived from the width (MindSpore's rule).
                        Case{{3, 7}, nullptr, 3, 7, d3, d3}, Case{{7, 1}, 0, 7, 1, 0.15 * 7 + 0.35, 0.15 * 7 + 0.35}}) {
    auto op = Op({{"op", "GaussianBlur"}, {"kernel_size", c.kernel}, {"sigma", c.sigma}});
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->ToJson()["kernel_size"], nlohmann::json({c.kx, c.ky}));
    EXPECT_NEAR(op->ToJson()["sigma"][0].get<double>(), c.sx, 1e-6);
    EXPECT_NEAR(op->ToJson()["sigma"][1].get<double>(), c.sy, 1e-6);
    EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
    const auto want = Blur(values, h, w, ch, c.kx, c.ky, c.sx, c.sy);
    Tensor fo = RunOp(*op, f), uo = RunOp(*op, u);
    ASSERT_EQ(fo.shape(), f.shape());
    ASSERT_EQ(uo.type(), TensorType::kUInt8);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(fo.data_as<float>()[i], want[i], 1e-3) << c.kernel.dump() << " at " << i;
      // uint8: OpenCV rounds the kernel to 8-bit fixed point (a bit-exact blur), so up to 1.5 levels.
      ASSERT_NEAR(uo.data()[i], want[i], 1.5) << c.kernel.dump() << " at " << i;
    }
  }
  // A 1 x 1 kernel changes nothing; HW images keep their shape.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "GaussianBlur"}, {"kernel_size", 1}}), u), u));
  Tensor gray = Tensor::Make(TensorType::kUInt8, {6, 5});
  for (int i = 0; i < 30; ++i) gray.MutableData()[i] = static_cast<uint8_t>(i * 8);
  EXPECT_EQ(RunOp(*Op({{"op", "GaussianBlur"}, {"kernel_size", 3}}), gray).shape(), gray.shape());
}

TEST(OpsBlurTest, BadSpecsAndInputsNameTheParameter) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"kernel_size", 4}, {"kernel_size", 0}, {"kernel_size", -3}, {"kernel_size", 2.5}, {"kernel_size", 1e30}, {"kernel_size", {3, 4}},
           {"kernel_size", {3, 3, 3}}, {"sigma", -1}, {"sigma", {1, -1}}, {"sigma", {1, 2, 3}}, {"sigma", "1"}}) {
    nlohmann::json bad = {{"op", "GaussianBlur"}, {"kernel_size", 3}};
    bad[key] = value;
    auto made = MakeOp(bad);
    ASSERT_FALSE(made.ok()) << bad.dump();
    EXPECT_NE(made.status().message().find("GaussianBlur: parameter '" + key + "'"), std::string::npos)
        << made.status().message();
  }
  EXPECT_FALSE(MakeOp({{"op", "GaussianBlur"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "GaussianBlur"}, {"kernel_size", 3}, {"sigmas", 1}}).ok());
  std::mt19937_64 rng(0);
  auto r = Op({{"op", "GaussianBlur"}, {"kernel_size", 3}})->Apply(Tensor::Make(TensorType::kInt32, {4, 4}), rng);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("GaussianBlur"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
