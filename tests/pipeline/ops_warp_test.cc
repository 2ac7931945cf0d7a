// Geometric and erasing ops: Pad, RandomVerticalFlip, Rotate, RandomRotation,
// Affine, RandomAffine, the policies' affine warps, CutOut, RandomErasing;
// references written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pipeline/ops/augment.h"
#include "pipeline/ops/warp.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;

int WarpPx(const Tensor& t, int y, int x, int c) {
  return t.data()[(static_cast<size_t>(y) * t.shape()[1] + x) * t.shape()[2] + c];
}

// An image whose pixels all differ: (y, x) -> (y * 7 + x * 3) % 251 + c.
Tensor Distinct(int h, int w) {
  Tensor t = Tensor::Make(TensorType::kUInt8, {h, w, 3});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) t.MutableData()[(y * w + x) * 3 + c] = static_cast<uint8_t>((y * 7 + x * 3) % 251 + c);
  return t;
}

// Source index of padded index i for a border mode over n pixels.
int WarpReflect101(int i, int n) { return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i; }
int Symmetric(int i, int n) { return i < 0 ? -i - 1 : i >= n ? 2 * n - 1 - i : i; }
int Edge(int i, int n) { return std::clamp(i, 0, n - 1); }

TEST(OpsWarpTest, PadModesAndFill) {
  Tensor img = Distinct(5, 7);
  // padding [l, t, r, b] = [3, 1, 2, 4]
  const nlohmann::json padding = {3, 1, 2, 4};
  Tensor c = RunOp(*Op({{"op", "Pad"}, {"padding", padding}, {"fill_value", {10, 20, 30}}}), img);
  ASSERT_EQ(c.shape(), (std::vector<int64_t>{10, 12, 3}));
  struct Mode {
    const char* name;
    int (*map)(int, int);
  };
  for (const Mode& m : {Mode{"edge", Edge}, Mode{"reflect", WarpReflect101}, Mode{"symmetric", Symmetric}}) {
    Tensor out = RunOp(*Op({{"op", "Pad"}, {"padding", padding}, {"padding_mode", m.name}}), img);
    ASSERT_EQ(out.shape(), (std::vector<int64_t>{10, 12, 3})) << m.name;
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < 12; ++x)
        for (int k = 0; k < 3; ++k) {
          ASSERT_EQ(WarpPx(out, y, x, k), WarpPx(img, m.map(y - 1, 5), m.map(x - 3, 7), k)) << m.name << y << "," << x;
          const bool inside = y >= 1 && y < 6 && x >= 3 && x < 10;
          ASSERT_EQ(WarpPx(c, y, x, k), inside ? WarpPx(img, y - 1, x - 3, k) : 10 * (k + 1));
        }
  }
  // One int pads all sides; two pad left/right and top/bottom.
  EXPECT_EQ(RunOp(*Op({{"op", "Pad"}, {"padding", 2}}), img).shape(), (std::vector<int64_t>{9, 11, 3}));
  EXPECT_EQ(RunOp(*Op({{"op", "Pad"}, {"padding", {1, 2}}}), img).shape(), (std::vector<int64_t>{9, 9, 3}));
  EXPECT_FALSE(MakeOp({{"op", "Pad"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Pad"}, {"padding", {1, 2, 3}}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Pad"}, {"padding", 1}, {"fill_value", 300}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Pad"}, {"padding", 1}, {"padding_mode", "wrap"}}).ok());
  auto op = Op({{"op", "Pad"}, {"padding", padding}, {"fill_value", {10, 20, 30}}, {"padding_mode", "edge"}});
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST(OpsWarpTest, RandomVerticalFlip) {
  Tensor img = Distinct(6, 5);
  Tensor out = RunOp(*Op({{"op", "RandomVerticalFlip"}, {"p", 1.0}}), img);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 5; ++x) ASSERT_EQ(WarpPx(out, y, x, 1), WarpPx(img, 5 - y, x, 1));
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomVerticalFlip"}, {"p", 0.0}}), img), img));
  auto half = Op({{"op", "RandomVerticalFlip"}});
  int flipped = 0;
  for (int seed = 0; seed < 2000; ++seed) flipped += !SameBytes(RunOp(*half, img, seed), img);
  EXPECT_NEAR(flipped / 2000.0, 0.5, 5 * std::sqrt(0.25 / 2000));
}

TEST(OpsWarpTest, RotationByRightAnglesIsExact) {
  for (int n : {6, 7}) {
    Tensor img = Distinct(n, n);
    // +90 degrees is counter-clockwise: out(y, x) = in(x, n - 1 - y) (numpy's rot90).
    Tensor out = RunOp(*Op({{"op", "RandomRotation"}, {"degrees", {90, 90}}}), img);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(WarpPx(out, y, x, c), WarpPx(img, x, n - 1 - y, c)) << n << " " << y << "," << x;
    Tensor back = RunOp(*Op({{"op", "RandomRotation"}, {"degrees", {-90, -90}}}), out);
    EXPECT_TRUE(SameBytes(back, img));
  }
  // expand: a 20x40 image turned by 90 degrees becomes 40x20, every pixel kept.
  Tensor wide = Distinct(20, 40);
  Tensor tall = RunOp(*Op({{"op", "RandomRotation"}, {"degrees", {90, 90}}, {"expand", true}}), wide);
  ASSERT_EQ(tall.shape(), (std::vector<int64_t>{40, 20, 3}));
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 20; ++x) ASSERT_EQ(WarpPx(tall, y, x, 0), WarpPx(wide, x, 39 - y, 0));
  // 30 degrees with expand: the bounding box of the turned rectangle.
  Tensor e = RunOp(*Op({{"op", "RandomRotation"}, {"degrees", {30, 30}}, {"expand", true}}), wide);
  const double rad = 30 * M_PI / 180;
  EXPECT_NEAR(e.shape()[1], 40 * std::cos(rad) + 20 * std::sin(rad), 1.0);
  EXPECT_NEAR(e.shape()[0], 40 * std::sin(rad) + 20 * std::cos(rad), 1.0);
  // Fill outside: corners of a 45-degree turn get fill_value.
  Tensor f = RunOp(*Op({{"op", "RandomRotation"}, {"degrees", {45, 45}}, {"fill_value", {1, 2, 3}}}), Distinct(21, 21));
  EXPECT_EQ(WarpPx(f, 0, 0, 0), 1);
  EXPECT_EQ(WarpPx(f, 20, 20, 2), 3);
}

TEST(OpsWarpTest, RandomRotationDrawsTheAngleUniformly) {
  // A bright 3x3 square off centre: where its centroid goes gives the angle.
  auto op = Op({{"op", "RandomRotation"}, {"degrees", 40}, {"resample", "nearest"}});
  ASSERT_EQ(op->ToJson()["degrees"], nlohmann::json({-40.0, 40.0}));
  Tensor dot = Tensor::Make(TensorType::kUInt8, {41, 41, 1});
  std::memset(dot.MutableData(), 0, dot.size_bytes());
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) dot.MutableData()[(20 + dy) * 41 + 37 + dx] = 255;  // 17 px right of the centre
  int below = 0, above = 0;
  for (int seed = 0; seed < 400; ++seed) {
    Tensor out = RunOp(*op, dot, seed);
    double sy = 0, sx = 0;
    int count = 0;
    for (int i = 0; i < 41 * 41; ++i)
      if (out.data()[i] == 255) sy += i / 41, sx += i % 41, ++count;
    ASSERT_GT(count, 0) << seed;
    const double angle = std::atan2(-(sy / count - 20.0), sx / count - 20.0) * 180 / M_PI;  // counter-clockwise
    ASSERT_LE(std::abs(angle), 40 + 3) << seed;
    below += angle < -20;
    above += angle > 20;
  }
  EXPECT_NEAR(below / 400.0, 0.25, 0.09);
  EXPECT_NEAR(above / 400.0, 0.25, 0.09);
  EXPECT_FALSE(MakeOp({{"op", "RandomRotation"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomRotation"}, {"degrees", -5}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomRotation"}, {"degrees", {10, -10}}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomRotation"}, {"degrees", 5}, {"center", {1}}}).ok());
  auto full = Op({{"op", "RandomRotation"}, {"degrees", 5}, {"center", {3.5, 2}}, {"expand", true},
                  {"resample", "bicubic"}, {"fill_value", 7}});
  EXPECT_EQ(Op(full->ToJson())->ToJson(), full->ToJson());
}

TEST(OpsWarpTest, RotateIsRandomRotationWithOneAngle) {
  Tensor img = Distinct(13, 17);
  for (double d : {90.0, 33.0, 250.0}) {
    for (bool expand : {false, true}) {
      auto fixed = Op({{"op", "Rotate"}, {"degrees", d}, {"expand", expand}, {"fill_value", {4, 5, 6}}});
      auto drawn = Op({{"op", "RandomRotation"}, {"degrees", {d, d}}, {"expand", expand}, {"fill_value", {4, 5, 6}}});
      EXPECT_FALSE(fixed->is_random());
      EXPECT_TRUE(SameBytes(RunOp(*fixed, img, 1), RunOp(*drawn, img, 2))) << d << " " << expand;
    }
  }
  auto full = Op({{"op", "Rotate"}, {"degrees", -20.5}, {"center", {3, 4.5}}, {"resample", "bilinear"}});
  EXPECT_EQ(full->ToJson()["expand"], false);
  EXPECT_EQ(Op(full->ToJson())->ToJson(), full->ToJson());
  EXPECT_FALSE(MakeOp({{"op", "Rotate"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Rotate"}, {"degrees", "10"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Rotate"}, {"degrees", 10}, {"center", {1}}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Rotate"}, {"degrees", 10}, {"resample", "lanczos"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "Rotate"}, {"degrees", 10}, {"fill_value", 256}}).ok());
}

TEST(OpsWarpTest, AffineTranslatesByFractionsRotatesClockwiseAndShears) {
  Tensor img = Distinct(16, 24);
  auto affine = [](double deg, double tx, double ty, double scale, nlohmann::json shear) {
    return Op({{"op", "Affine"}, {"degrees", deg}, {"translate", {tx, ty}}, {"scale", scale}, {"shear", shear}});
  };
  // Identity, nearest and bilinear alike.
  EXPECT_TRUE(SameBytes(RunOp(*affine(0, 0, 0, 1, 0), img), img));
  EXPECT_TRUE(SameBytes(
      RunOp(*Op({{"op", "Affine"}, {"degrees", 0}, {"translate", {0, 0}}, {"scale", 1}, {"shear", {0, 0}},
                 {"resample", "bilinear"}}),
            img),
      img));
  // translate (0.25, -0.5) of 24 x 16 is (6, -8) pixels: out(y, x) = in(y + 8, x - 6).
  Tensor t = RunOp(*affine(0, 0.25, -0.5, 1, 0), img);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) ASSERT_EQ(WarpPx(t, y, x, 1), y < 8 && x >= 6 ? WarpPx(img, y + 8, x - 6, 1) : 0);
  // +90 degrees is clockwise (unlike Rotate): out(y, x) = in(n - 1 - x, y).
  Tensor sq = Distinct(9, 9);
  Tensor r = RunOp(*affine(90, 0, 0, 1, 0), sq);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) ASSERT_EQ(WarpPx(r, y, x, 2), WarpPx(sq, 8 - x, y, 2));
  // One shear number is a shear along x: out(y, x) = in(y, x + tan(s) (y - cy)).
  Tensor sh = RunOp(*affine(0, 0, 0, 1, 20), img);
  EXPECT_TRUE(SameBytes(sh, RunOp(*affine(0, 0, 0, 1, {20, 0}), img)));
  int differ = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) {
      const int src = static_cast<int>(std::lround(x + std::tan(20 * M_PI / 180) * (y - 7.5)));
      differ += WarpPx(sh, y, x, 0) != (src >= 0 && src < 24 ? WarpPx(img, y, src, 0) : 0);
    }
  EXPECT_LE(differ, 16);  // ties at half pixels may round either way
  // Scale 2 about the centre (3.5, 3.5), nearest: out(y, x) = in(3.5 + (y - 3.5) / 2, ...), no ties.
  Tensor small = Distinct(8, 8);
  Tensor z = RunOp(*affine(0, 0, 0, 2, 0), small);
  auto half = [](int v) { return static_cast<int>(std::lround(3.5 + (v - 3.5) / 2)); };
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) ASSERT_EQ(WarpPx(z, y, x, 0), WarpPx(small, half(y), half(x), 0)) << y << "," << x;
  auto full = Op({{"op", "Affine"}, {"degrees", -15}, {"translate", {0.1, 0.2}}, {"scale", 1.5}, {"shear", {3, -4}},
                  {"resample", "bicubic"}, {"fill_value", {1, 2, 3}}});
  EXPECT_EQ(full->ToJson()["shear"], nlohmann::json({3.0, -4.0}));
  EXPECT_EQ(Op(full->ToJson())->ToJson(), full->ToJson());
  const nlohmann::json base = {{"op", "Affine"}, {"degrees", 0}, {"translate", {0, 0}}, {"scale", 1}, {"shear", 0}};
  for (const char* key : {"degrees", "translate", "scale", "shear"}) {
    nlohmann::json missing = base;
    missing.erase(key);
    EXPECT_FALSE(MakeOp(missing).ok()) << key;
  }
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"degrees", 181}, {"translate", {0.5}}, {"translate", {1.5, 0}}, {"scale", 0}, {"scale", -1},
           {"shear", {1, 2, 3}}, {"shear", 200}, {"resample", "lanczos"}}) {
    nlohmann::json bad = base;
    bad[key] = value;
    auto made = MakeOp(bad);
    ASSERT_FALSE(made.ok()) << bad.dump();
    EXPECT_NE(made.status().message().find("Affine: parameter '" + key + "'"), std::string::npos)
        << made.status().message();
  }
}

TEST(OpsWarpTest, RandomAffineWithOneValueRangesIsAffine) {
  Tensor img = Distinct(15, 22);
  const nlohmann::json fixed = {{"op", "Affine"}, {"degrees", 30},   {"translate", {0.1, -0.2}},
                                {"scale", 1.2},   {"shear", {5, -3}}, {"resample", "bilinear"},
                                {"fill_value", 9}};
  const nlohmann::json drawn = {{"op", "RandomAffine"}, {"degrees", {30, 30}},         {"translate", {0.1, 0.1, -0.2, -0.2}},
                                {"scale", {1.2, 1.2}},  {"shear", {5, 5, -3, -3}}, {"resample", "bilinear"},
                                {"fill_value", 9}};
  EXPECT_TRUE(SameBytes(RunOp(*Op(drawn), img, 7), RunOp(*Op(fixed), img)));
  // Defaults are the identity; the shorthands expand as MindSpore's do.
  EXPECT_TRUE(SameBytes(RunOp(*Op({{"op", "RandomAffine"}, {"degrees", 0}}), img, 3), img));
  auto short_form = Op({{"op", "RandomAffine"}, {"degrees", 10}, {"translate", {-0.1, 0.2}}, {"shear", 4}});
  EXPECT_EQ(short_form->ToJson()["degrees"], nlohmann::json({-10.0, 10.0}));
  EXPECT_EQ(short_form->ToJson()["translate"], nlohmann::json({-0.1, 0.2, 0.0, 0.0}));
  EXPECT_EQ(short_form->ToJson()["scale"], nlohmann::json({1.0, 1.0}));
  EXPECT_EQ(short_form->ToJson()["shear"], nlohmann::json({-4.0, 4.0, 0.0, 0.0}));
  EXPECT_EQ(Op({{"op", "RandomAffine"}, {"degrees", 0}, {"shear", {1, 2}}})->ToJson()["shear"],
            nlohmann::json({1.0, 2.0, 0.0, 0.0}));
  EXPECT_EQ(Op(short_form->ToJson())->ToJson(), short_form->ToJson());
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"degrees", -5}, {"degrees", {10, -10}}, {"translate", {0.5, 0.1}}, {"translate", {0, 1.5}},
           {"translate", {0, 0, 0}}, {"scale", {2, 1}}, {"scale", {-1, 1}}, {"scale", {0, 0}}, {"shear", 0},
           {"shear", -3}, {"shear", {0, 1, 5, 2}}, {"resample", "lanczos"}, {"fill_value", {1, 2}}}) {
    nlohmann::json bad = {{"op", "RandomAffine"}, {"degrees", 0}};
    bad[key] = value;
    auto made = MakeOp(bad);
    ASSERT_FALSE(made.ok()) << bad.dump();
    EXPECT_NE(made.status().message().find("RandomAffine: parameter '" + key + "'"), std::string::npos)
        << made.status().message();
  }
}

TEST(OpsWarpTest, RandomAffineDrawsTheTranslationUniformly) {
  // One bright pixel at the centre of a 41-wide row: where it lands is -tx.
  Tensor dot = Tensor::Make(TensorType::kUInt8, {1, 41, 1});
  std::memset(dot.MutableData(), 0, dot.size_bytes());
  dot.MutableData()[20] = 255;
  auto op = Op({{"op", "RandomAffine"}, {"degrees", 0}, {"translate", {-0.25, 0.25}}});
  int left = 0, right = 0;
  for (int seed = 0; seed < 400; ++seed) {
    Tensor out = RunOp(*op, dot, seed);
    EXPECT_TRUE(SameBytes(RunOp(*op, dot, seed), out));
    int at = -1;
    for (int x = 0; x < 41; ++x)
      if (out.data()[x] == 255) at = x;
    ASSERT_GE(at, 0) << seed;
    ASSERT_LE(std::abs(at - 20), 11) << seed;  // |tx| <= 0.25 * 41, rounded
    left += at < 15;
    right += at > 25;
  }
  // tx ~ U[-10.25, 10.25]: the pixel lands left of 15 when tx < -5.5.
  const double p = 4.75 / 20.5, bound = 5 * std::sqrt(p * (1 - p) / 400);
  EXPECT_NEAR(left / 400.0, p, bound);
  EXPECT_NEAR(right / 400.0, p, bound);
}

TEST(OpsWarpTest, PolicyShearAndTranslate) {
  Tensor img = Distinct(16, 24);
  const ops::FillValue fill;
  // Translations by whole pixels move the image: out(y, x) = in(y, x - 5).
  Tensor tx = *ops::ApplyAugment(img, "TranslateX", 5.7, ops::Interpolation::kNearest, fill, "t");
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) ASSERT_EQ(WarpPx(tx, y, x, 0), x >= 5 ? WarpPx(img, y, x - 5, 0) : 0);
  Tensor ty = *ops::ApplyAugment(img, "TranslateY", -3, ops::Interpolation::kNearest, fill, "t");
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) ASSERT_EQ(WarpPx(ty, y, x, 0), y < 13 ? WarpPx(img, y + 3, x, 0) : 0);
  // ShearX by m: x' = x - tan(m) (y - cy) about the centre (MindSpore's matrix
  // with shear_x = m radians); checked by inverse nearest-neighbour mapping.
  for (double m : {0.2, -0.3}) {
    Tensor sx = *ops::ApplyAugment(img, "ShearX", m, ops::Interpolation::kNearest, fill, "t");
    const double cy = 7.5;
    int differ = 0;
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 24; ++x) {
        const double src_x = x + std::tan(m) * (y - cy);
        const int sxr = static_cast<int>(std::lround(src_x));
        const int expect = sxr >= 0 && sxr < 24 ? WarpPx(img, y, sxr, 0) : 0;
        differ += WarpPx(sx, y, x, 0) != expect;
      }
    EXPECT_LE(differ, 16) << m;  // ties at half pixels may round either way
  }
  Tensor sy = *ops::ApplyAugment(img, "ShearY", 0.25, ops::Interpolation::kNearest, fill, "t");
  int differ = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) {
      const int syr = static_cast<int>(std::lround(y + std::tan(0.25) * (x - 11.5)));
      differ += WarpPx(sy, y, x, 0) != (syr >= 0 && syr < 16 ? WarpPx(img, syr, x, 0) : 0);
    }
  EXPECT_LE(differ, 24);
}

TEST(OpsWarpTest, CutOutSquares) {
  Tensor img = Tensor::Make(TensorType::kUInt8, {30, 40, 3});
  std::memset(img.MutableData(), 200, img.size_bytes());
  auto op = Op({{"op", "CutOut"}, {"length", 8}});
  int whole = 0, clipped = 0, missed = 0;
  for (int seed = 0; seed < 300; ++seed) {
    Tensor out = RunOp(*op, img, seed);
    int y0 = 99, y1 = -1, x0 = 99, x1 = -1, zeros = 0;
    for (int y = 0; y < 30; ++y)
      for (int x = 0; x < 40; ++x) {
        ASSERT_TRUE(WarpPx(out, y, x, 0) == 0 || WarpPx(out, y, x, 0) == 200);
        if (WarpPx(out, y, x, 0) == 0) {
          ++zeros;
          y0 = std::min(y0, y), y1 = std::max(y1, y), x0 = std::min(x0, x), x1 = std::max(x1, x);
          ASSERT_EQ(WarpPx(out, y, x, 2), 0);
        }
      }
    if (zeros == 0) {
      ++missed;
      continue;
    }
    const int h = y1 - y0 + 1, w = x1 - x0 + 1;
    ASSERT_EQ(zeros, h * w);  // one rectangle
    ASSERT_LE(h, 8);
    ASSERT_LE(w, 8);
    (h == 8 && w == 8 ? whole : clipped)++;
  }
  // The corner is drawn from [-8, 30] x [-8, 40]: inside with probability
  // (23 / 39) (33 / 49), outside with 1 - (37 / 39) (47 / 49), else clipped.
  const double p_whole = 23.0 / 39 * 33.0 / 49, p_missed = 1 - 37.0 / 39 * 47.0 / 49;
  auto bound = [](double p) { return 5 * std::sqrt(p * (1 - p) / 300); };
  EXPECT_NEAR(whole / 300.0, p_whole, bound(p_whole));
  EXPECT_NEAR(missed / 300.0, p_missed, bound(p_missed));
  EXPECT_NEAR(clipped / 300.0, 1 - p_whole - p_missed, bound(1 - p_whole - p_missed));
  // CHW and several patches.
  Tensor chw = Tensor::Make(TensorType::kFloat32, {3, 12, 12});
  for (int i = 0; i < 3 * 144; ++i) chw.mutable_data_as<float>()[i] = 1.0f;
  Tensor o = RunOp(*Op({{"op", "CutOut"}, {"length", 3}, {"num_patches", 4}, {"is_hwc", false}}), chw, 5);
  int z = 0;
  for (int i = 0; i < 144; ++i) {
    z += o.data_as<float>()[i] == 0;
    ASSERT_EQ(o.data_as<float>()[i], o.data_as<float>()[144 + i]);  // all channels alike
  }
  EXPECT_GT(z, 0);
  std::mt19937_64 rng(0);
  EXPECT_FALSE(Op({{"op", "CutOut"}, {"length", 13}})->Apply(Tensor::Make(TensorType::kUInt8, {12, 20, 3}), rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "CutOut"}, {"length", 0}}).ok());
}

TEST(OpsWarpTest, RandomErasingRectangles) {
  Tensor img = Tensor::Make(TensorType::kFloat32, {3, 40, 50});
  for (int i = 0; i < 3 * 2000; ++i) img.mutable_data_as<float>()[i] = 0.5f;
  auto op = Op({{"op", "RandomErasing"}, {"prob", 1.0}, {"value", {1, 2, 3}}});
  for (int seed = 0; seed < 100; ++seed) {
    Tensor out = RunOp(*op, img, seed);
    int n = 0, y0 = 99, y1 = -1, x0 = 99, x1 = -1;
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < 50; ++x) {
        const float v = out.data_as<float>()[y * 50 + x];
        if (v == 0.5f) continue;
        ASSERT_EQ(v, 1.0f);
        ASSERT_EQ(out.data_as<float>()[2 * 2000 + y * 50 + x], 3.0f);
        ++n, y0 = std::min(y0, y), y1 = std::max(y1, y), x0 = std::min(x0, x), x1 = std::max(x1, x);
      }
    const int h = y1 - y0 + 1, w = x1 - x0 + 1;
    ASSERT_EQ(n, h * w);
    // area in scale * H * W (up to rounding of the sides), aspect w / h in ratio.
    EXPECT_GE(n, 0.02 * 2000 * 0.6) << seed;
    EXPECT_LE(n, 0.33 * 2000 * 1.3) << seed;
    EXPECT_GE(double(w) / h, 0.3 * 0.5);
    EXPECT_LE(double(w) / h, 3.3 * 1.6);
  }
  auto half = Op({{"op", "RandomErasing"}});
  int erased = 0;
  for (int seed = 0; seed < 1000; ++seed) erased += !SameBytes(RunOp(*half, img, seed), img);
  EXPECT_NEAR(erased / 1000.0, 0.5, 5 * std::sqrt(0.25 / 1000));
  Tensor r = RunOp(*Op({{"op", "RandomErasing"}, {"prob", 1.0}, {"value", "random"}}), img, 3);
  EXPECT_FALSE(SameBytes(r, img));
  EXPECT_FALSE(MakeOp({{"op", "RandomErasing"}, {"value", "noise"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "RandomErasing"}, {"ratio", {0, 1}}}).ok());
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

}  // namespace
}  // namespace mindrecord
