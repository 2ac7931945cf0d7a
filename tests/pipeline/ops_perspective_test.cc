// Perspective and RandomPerspective (pipeline/ops/perspective.h) against the
// homography math computed here, their draws, and rejected parameters.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;

using Pts = std::array<std::array<double, 2>, 4>;

nlohmann::json PtsJson(const Pts& p) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& q : p) j.push_back({static_cast<int>(q[0]), static_cast<int>(q[1])});
  return j;
}

// The 3x3 homography H (h33 = 1) with H(src[i]) = dst[i]: the 8x8 system
// solved by Gauss-Jordan elimination with partial pivoting.
std::array<double, 9> Homography(const Pts& src, const Pts& dst) {
  double a[8][9] = {};
  for (int i = 0; i < 4; ++i) {
    const double x = src[i][0], y = src[i][1], u = dst[i][0], v = dst[i][1];
    double r0[9] = {x, y, 1, 0, 0, 0, -u * x, -u * y, u};
    double r1[9] = {0, 0, 0, x, y, 1, -v * x, -v * y, v};
    for (int k = 0; k < 9; ++k) a[2 * i][k] = r0[k], a[2 * i + 1][k] = r1[k];
  }
  for (int c = 0; c < 8; ++c) {
    int p = c;
    for (int r = c + 1; r < 8; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    for (int k = 0; k < 9; ++k) std::swap(a[c][k], a[p][k]);
    for (int r = 0; r < 8; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = 0; k < 9; ++k) a[r][k] -= f * a[c][k];
    }
  }
  std::array<double, 9> h{};
  for (int i = 0; i < 8; ++i) h[i] = a[i][8] / a[i][i];
  h[8] = 1;
  return h;
}

Status ApplyStatus(const nlohmann::json& spec, Tensor in) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status();
  std::mt19937_64 rng(0);
  return op.value()->Apply(std::move(in), rng).status();
}

nlohmann::json PerspectiveSpec(const Pts& s, const Pts& e, const char* interp) {
  return {{"op", "Perspective"}, {"start_points", PtsJson(s)}, {"end_points", PtsJson(e)}, {"interpolation", interp}};
}

TEST(OpsPerspectiveTest, IdentityAndTranslationAreExact) {
  cv::Mat m = SyntheticRgb(20, 30);
  const Pts sq = {{{0, 0}, {29, 0}, {29, 19}, {0, 19}}};
  for (const char* interp : {"nearest", "bilinear", "bicubic", "area"})
    EXPECT_TRUE(SameBytes(RunOp(*Op(PerspectiveSpec(sq, sq, interp)), MatToTensor(m)), MatToTensor(m))) << interp;
  // Moving every corner by (+3, +2) shifts the image: out(y, x) = in(y - 2, x - 3), 0 where that is outside.
  const Pts moved = {{{3, 2}, {32, 2}, {32, 21}, {3, 21}}};
  Tensor out = RunOp(*Op(PerspectiveSpec(sq, moved, "nearest")), MatToTensor(m));
  cv::Mat want(20, 30, CV_8UC3, cv::Scalar::all(0));
  m(cv::Rect(0, 0, 27, 18)).copyTo(want(cv::Rect(3, 2, 27, 18)));
  EXPECT_TRUE(SameBytes(out, MatToTensor(want)));
}

TEST(OpsPerspectiveTest, NearestSamplesTheInverseHomography) {
  cv::Mat m = SyntheticRgb(40, 50, 3);
  const Pts s = {{{2, 3}, {45, 1}, {47, 38}, {1, 35}}}, e = {{{0, 0}, {49, 4}, {40, 39}, {6, 30}}};
  Tensor out = RunOp(*Op(PerspectiveSpec(s, e, "nearest")), MatToTensor(m));
  const auto inv = Homography(e, s);  // output -> input
  int same = 0, total = 0;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 50; ++x) {
      const double w = inv[6] * x + inv[7] * y + inv[8];
      const double sx = (inv[0] * x + inv[1] * y + inv[2]) / w, sy = (inv[3] * x + inv[4] * y + inv[5]) / w;
      const long ix = std::lround(sx), iy = std::lround(sy);
      cv::Vec3b want(0, 0, 0);
      if (ix >= 0 && ix < 50 && iy >= 0 && iy < 40) want = m.at<cv::Vec3b>(iy, ix);
      const uint8_t* got = out.data() + (y * 50 + x) * 3;
      same += got[0] == want[0] && got[1] == want[1] && got[2] == want[2];
      ++total;
    }
  // OpenCV rounds its coordinates in fixed point: a pixel on a rounding tie may differ.
  EXPECT_GE(same, total * 98 / 100);
}

TEST(OpsPerspectiveTest, SpecRoundTripsAndBadParametersAreRefused) {
  const Pts s = {{{0, 0}, {9, 0}, {9, 9}, {0, 9}}}, e = {{{1, 1}, {8, 0}, {9, 9}, {0, 8}}};
  const auto spec = PerspectiveSpec(s, e, "bicubic");
  EXPECT_EQ(Op(spec)->ToJson(), spec);
  auto bad = [&](nlohmann::json j) { return MakeOp(j).ok() ? std::string() : MakeOp(j).status().ToString(); };
  nlohmann::json j = spec;
  j["end_points"][2] = {1, 1};  // the same point as the first
  EXPECT_NE(bad(j).find("collinear"), std::string::npos) << bad(j);
  j = spec;
  j["start_points"] = {{0, 0}, {5, 0}, {9, 0}, {0, 9}};  // three on y = 0
  EXPECT_NE(bad(j).find("start_points"), std::string::npos);
  j = spec;
  j["start_points"].erase(3);
  EXPECT_NE(bad(j).find("4 [x, y] points"), std::string::npos);
  j = spec;
  j["start_points"][0] = {0.5, 0};
  EXPECT_NE(bad(j).find("start_points[0][0]"), std::string::npos);
  j = spec;
  j["end_points"][1][1] = 2147483648LL;
  EXPECT_NE(bad(j).find("end_points[1][1]"), std::string::npos);
  j = spec;
  j["interpolation"] = "lanczos";
  EXPECT_FALSE(bad(j).empty());
  j = spec;
  j["fill_value"] = 0;
  EXPECT_NE(bad(j).find("fill_value"), std::string::npos);
  EXPECT_FALSE(ApplyStatus(spec, Tensor::Make(TensorType::kInt32, {4, 4})).ok());
  EXPECT_FALSE(ApplyStatus(spec, Tensor::Make(TensorType::kUInt8, {4})).ok());
  // Float images warp too.
  Tensor f = Tensor::Make(TensorType::kFloat32, {10, 10});
  for (int i = 0; i < 100; ++i) f.mutable_data_as<float>()[i] = static_cast<float>(i);
  EXPECT_TRUE(ApplyStatus(spec, f).ok());
}

nlohmann::json RandomSpec(double scale, double prob, const char* interp = "nearest") {
  return {{"op", "RandomPerspective"}, {"distortion_scale", scale}, {"prob", prob}, {"interpolation", interp}};
}

TEST(OpsPerspectiveTest, RandomPerspectiveProbabilityAndIdentity) {
  Tensor in = MatToTensor(SyntheticRgb(30, 40));
  EXPECT_TRUE(SameBytes(RunOp(*Op(RandomSpec(0.5, 0.0)), in, 7), in));
  // Scale 0: every corner stays, the warp is the identity (pixel centres included).
  for (const char* interp : {"nearest", "bilinear", "bicubic"})
    EXPECT_TRUE(SameBytes(RunOp(*Op(RandomSpec(0.0, 1.0, interp)), in, 7), in)) << interp;
  int changed = 0;
  auto op = Op(RandomSpec(0.5, 0.3));
  for (uint64_t seed = 0; seed < 400; ++seed) changed += !SameBytes(RunOp(*op, in, seed), in);
  EXPECT_NEAR(changed / 400.0, 0.3, 5 * std::sqrt(0.3 * 0.7 / 400)) << changed;
  EXPECT_TRUE(SameBytes(RunOp(*op, in, 5), RunOp(*op, in, 5)));
  EXPECT_EQ(op->ToJson(), RandomSpec(0.5, 0.3));
}

TEST(OpsPerspectiveTest, RandomPerspectiveCornersStayWithinTheScale) {
  // A white 40 x 60 image; scale 0.5 moves each corner by up to dw = 15 /
  // dh = 10 pixels inwards, so the inner rectangle stays white, and each of
  // the four corner regions turns black for some draws.
  const int h = 40, w = 60, dw = 15, dh = 10;
  Tensor white = MatToTensor(cv::Mat(h, w, CV_8UC3, cv::Scalar::all(255)));
  auto op = Op(RandomSpec(0.5, 1.0));
  std::array<int, 4> black_corner{};
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Tensor out = RunOp(*op, white, seed);
    auto px = [&](int y, int x) { return out.data()[(y * w + x) * 3]; };
    for (int y = dh + 1; y < h - dh - 1; ++y)
      for (int x = dw + 1; x < w - dw - 1; ++x) ASSERT_EQ(px(y, x), 255) << seed << " " << y << " " << x;
    black_corner[0] += px(0, 0) == 0;
    black_corner[1] += px(0, w - 1) == 0;
    black_corner[2] += px(h - 1, w - 1) == 0;
    black_corner[3] += px(h - 1, 0) == 0;
  }
  for (int c : black_corner) EXPECT_GT(c, 100);  // a corner stays only when both its draws are 0 (1 in 176)
}

TEST(OpsPerspectiveTest, RandomPerspectiveBadParametersAreRefused) {
  EXPECT_FALSE(MakeOp(RandomSpec(1.5, 0.5)).ok());
  EXPECT_FALSE(MakeOp(RandomSpec(0.5, -0.1)).ok());
  EXPECT_FALSE(MakeOp(RandomSpec(0.5, 0.5, "area")).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomPerspective"}, {"fill", 0}}).ok());
  EXPECT_TRUE(MakeOp({{"op", "RandomPerspective"}}).ok());
  EXPECT_FALSE(ApplyStatus(RandomSpec(0.5, 1.0), Tensor::Make(TensorType::kInt16, {4, 4})).ok());
  // A 1-pixel-wide image has degenerate corners: least squares still warps it (as PIL's lstsq does).
  Tensor thin = MatToTensor(cv::Mat(5, 1, CV_8UC3, cv::Scalar::all(9)));
  EXPECT_TRUE(ApplyStatus(RandomSpec(1.0, 1.0), thin).ok());
}

}  // namespace
}  // namespace mindrecord
