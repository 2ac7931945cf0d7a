// Synthetic images for the op tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include "pipeline/ops/op.h"
#include "pipeline/tensor.h"

namespace mindrecord::testing {

// A smooth RGB image (gradients + a few blobs): JPEG-friendly, not symmetric.
inline cv::Mat SyntheticRgb(int h, int w, int seed = 1) {
  cv::Mat m(h, w, CV_8UC3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      auto& p = m.at<cv::Vec3b>(y, x);
      p[0] = static_cast<uint8_t>((255 * x) / std::max(1, w - 1));
      p[1] = static_cast<uint8_t>((255 * y) / std::max(1, h - 1));
      p[2] = static_cast<uint8_t>((x * 3 + y * 5 + seed * 40) % 256 / 2 + 64);
    }
  return m;
}

inline Tensor MatToTensor(const cv::Mat& m) {
  Tensor t = Tensor::Make(TensorType::kUInt8, {m.rows, m.cols, m.channels()});
  cv::Mat c = m.isContinuous() ? m : m.clone();
  std::memcpy(t.MutableData(), c.data, t.size_bytes());
  return t;
}

inline cv::Mat TensorToMat(const Tensor& t) {
  int c = t.shape().size() == 3 ? static_cast<int>(t.shape()[2]) : 1;
  int depth = t.type() == TensorType::kFloat32 ? CV_32F : CV_8U;
  return cv::Mat(static_cast<int>(t.shape()[0]), static_cast<int>(t.shape()[1]), CV_MAKETYPE(depth, c),
                 const_cast<uint8_t*>(t.data()));
}

// Encodes an RGB mat (".jpg" or ".png"); OpenCV wants BGR, so swap first.
inline Tensor EncodeRgb(const cv::Mat& rgb, const std::string& ext, int quality = 95) {
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  std::vector<uchar> buf;
  std::vector<int> params;
  if (ext == ".jpg") params = {cv::IMWRITE_JPEG_QUALITY, quality};
  cv::imencode(ext, bgr, buf, params);
  return Tensor::FromString(TensorType::kBytes, std::string(buf.begin(), buf.end()));
}

// Mean absolute difference of two same-size uint8 tensors.
inline double MeanAbsDiff(const Tensor& a, const Tensor& b) {
  if (a.size_bytes() != b.size_bytes() || a.size_bytes() == 0) return 1e9;
  double s = 0;
  for (size_t i = 0; i < a.size_bytes(); ++i) s += std::abs(int(a.data()[i]) - int(b.data()[i]));
  return s / a.size_bytes();
}

inline bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.type() == b.type() && a.size_bytes() == b.size_bytes() &&
         std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// Largest |a - b| over the bytes of two uint8 tensors of one shape.
inline int MaxDiff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  int m = 0;
  for (size_t i = 0; i < std::min(a.size_bytes(), b.size_bytes()); ++i)
    m = std::max(m, std::abs(int(a.data()[i]) - int(b.data()[i])));
  return m;
}

// A noisy uint8 [h, w, c] image (every level shows up in some channel).
inline Tensor Noisy(int h, int w, int c, uint64_t seed) {
  Tensor t = Tensor::Make(TensorType::kUInt8, {h, w, c});
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < t.size_bytes(); ++i) t.MutableData()[i] = static_cast<uint8_t>(rng() % 256);
  return t;
}

// Builds an op, failing the test on error.
inline std::unique_ptr<TensorOp> Op(const nlohmann::json& spec) {
  auto r = MakeOp(spec);
  EXPECT_TRUE(r.ok()) << spec.dump() << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

// Applies `op` with a fresh rng seeded `seed`, failing the test on error.
inline Tensor RunOp(const TensorOp& op, Tensor in, uint64_t seed = 0) {
  std::mt19937_64 rng(seed);
  auto r = op.Apply(std::move(in), rng);
  EXPECT_TRUE(r.ok()) << op.name() << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : Tensor();
}

// Applies a multi-column op with a fresh rng seeded `seed`, failing the test on error.
inline std::vector<Tensor> RunColumns(const TensorOp& op, std::vector<Tensor> in, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto r = op.ApplyColumns(std::move(in), rng);
  EXPECT_TRUE(r.ok()) << op.name() << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : std::vector<Tensor>{};
}

}  // namespace mindrecord::testing
