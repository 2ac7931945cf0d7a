#include "pipeline/ops/perspective.h"

#include <cmath>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {

constexpr int64_t kInt32Min = -2147483648LL, kInt32Max = 2147483647LL;

// spec[key]: four [x, y] pairs of int32 (MindSpore's check_int32 on each).
Result<Quad> GetQuad(const nlohmann::json& spec, const std::string& op, const char* key) {
  if (!spec.contains(key)) return BadParameter(op, key, "is required");
  const auto& v = spec[key];
  const std::string shape = op + ": parameter '" + std::string(key) +
                            "' must be 4 [x, y] points (top-left, top-right, bottom-right, bottom-left), got ";
  if (!v.is_array() || v.size() != 4) return Status::InvalidArgument(shape + v.dump());
  Quad q{};
  for (size_t i = 0; i < 4; ++i) {
    if (!v[i].is_array() || v[i].size() != 2) return Status::InvalidArgument(shape + v.dump());
    for (size_t k = 0; k < 2; ++k) {
      const std::string name = std::string(key) + "[" + std::to_string(i) + "][" + std::to_string(k) + "]";
      MR_ASSIGN_OR_RETURN(int c, GetIntIn({{name, v[i][k]}}, op, name.c_str(), kInt32Min, kInt32Max));
      q[i][k] = c;
    }
  }
  return q;
}

// Refuses a quadrilateral with three collinear corners: no invertible
// homography maps it. Integer corners, so the cross products are exact
// (128-bit: int32 differences multiply to 65 bits).
Status CheckGeneralPosition(const Quad& q, const std::string& op, const char* key) {
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      for (int c = b + 1; c < 4; ++c) {
        const auto d = [&](int i, int k) { return static_cast<__int128>(q[i][k]) - static_cast<__int128>(q[a][k]); };
        if (d(b, 0) * d(c, 1) - d(b, 1) * d(c, 0) == 0)
          return Status::InvalidArgument(op + ": three of the " + key +
                                         " are collinear (or equal): no perspective transform maps them");
      }
  return Status::OK();
}

nlohmann::json QuadJson(const Quad& q) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : q) j.push_back({static_cast<int64_t>(p[0]), static_cast<int64_t>(p[1])});
  return j;
}

Homography Mul(const Homography& a, const Homography& b) {
  Homography r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return r;
}

// PIL's perspective coefficients (py_transforms_util.perspective): the map
// from output to input coordinates, end -> start, by least squares (numpy's
// lstsq there, SVD here), in PIL's coordinates (pixel centres at +0.5);
// returned for OpenCV's pixel-index coordinates, p_index = p_pil - 0.5.
Result<Homography> PilInverseMap(const Quad& start, const Quad& end, const std::string& op) {
  cv::Mat a(8, 8, CV_64F, cv::Scalar(0)), b(8, 1, CV_64F), x;
  for (int i = 0; i < 4; ++i) {
    const double x1 = end[i][0], y1 = end[i][1], x2 = start[i][0], y2 = start[i][1];
    double* r0 = a.ptr<double>(2 * i);
    double* r1 = a.ptr<double>(2 * i + 1);
    r0[0] = x1, r0[1] = y1, r0[2] = 1, r0[6] = -x2 * x1, r0[7] = -x2 * y1;
    r1[3] = x1, r1[4] = y1, r1[5] = 1, r1[6] = -y2 * x1, r1[7] = -y2 * y1;
    b.at<double>(2 * i) = x2;
    b.at<double>(2 * i + 1) = y2;
  }
  MR_RETURN_IF_ERROR(CatchCv(op, [&] { cv::solve(a, b, x, cv::DECOMP_SVD); }));
  Homography pil{};
  for (int i = 0; i < 8; ++i) pil[i] = x.at<double>(i);
  pil[8] = 1;
  const Homography to_pil = {1, 0, 0.5, 0, 1, 0.5, 0, 0, 1}, from_pil = {1, 0, -0.5, 0, 1, -0.5, 0, 0, 1};
  return Mul(from_pil, Mul(pil, to_pil));
}

}  // namespace

Result<std::unique_ptr<TensorOp>> PerspectiveOp::Make(const nlohmann::json& spec) {
  const std::string op = "Perspective";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"start_points", "end_points", "interpolation"}));
  auto o = std::make_unique<PerspectiveOp>();
  MR_ASSIGN_OR_RETURN(o->start_, GetQuad(spec, op, "start_points"));
  MR_ASSIGN_OR_RETURN(o->end_, GetQuad(spec, op, "end_points"));
  MR_RETURN_IF_ERROR(CheckGeneralPosition(o->start_, op, "start_points"));
  MR_RETURN_IF_ERROR(CheckGeneralPosition(o->end_, op, "end_points"));
  MR_ASSIGN_OR_RETURN(std::string interp, GetString(spec, op, "interpolation", "bilinear"));
  auto i = ParseInterpolation(interp);
  if (!i.ok()) return i.status().WithContext(op + ": parameter 'interpolation'");
  o->interp_ = *i;
  // MindSpore's kernel: float points, LU.
  cv::Point2f src[4], dst[4];
  for (int k = 0; k < 4; ++k) {
    src[k] = cv::Point2f(static_cast<float>(o->start_[k][0]), static_cast<float>(o->start_[k][1]));
    dst[k] = cv::Point2f(static_cast<float>(o->end_[k][0]), static_cast<float>(o->end_[k][1]));
  }
  cv::Mat m;
  MR_RETURN_IF_ERROR(CatchCv(op, [&] { m = cv::getPerspectiveTransform(src, dst, cv::DECOMP_LU); }));
  for (int k = 0; k < 9; ++k) o->forward_[k] = m.at<double>(k / 3, k % 3);
  // Corners that float rounding made degenerate (beyond 2^24) leave no inverse.
  const double det = cv::determinant(m);
  if (!std::isfinite(det) || det == 0)
    return Status::InvalidArgument(op + ": the points give no invertible perspective transform");
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json PerspectiveOp::ToJson() const {
  return {{"op", "Perspective"},
          {"start_points", QuadJson(start_)},
          {"end_points", QuadJson(end_)},
          {"interpolation", InterpolationName(interp_)}};
}

Result<Tensor> PerspectiveOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Perspective", true));
  return WarpPerspectiveImage(input, d, forward_, false, interp_, "Perspective");
}

Result<std::unique_ptr<TensorOp>> RandomPerspectiveOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomPerspective";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"distortion_scale", "prob", "interpolation"}));
  auto o = std::make_unique<RandomPerspectiveOp>();
  MR_ASSIGN_OR_RETURN(o->distortion_scale_, GetProbability(spec, op, "distortion_scale", 0.5));
  MR_ASSIGN_OR_RETURN(o->prob_, GetProbability(spec, op, "prob", 0.5));
  MR_ASSIGN_OR_RETURN(std::string interp, GetString(spec, op, "interpolation", "bicubic"));
  auto i = ParseInterpolation(interp);
  // MindSpore hands the image to PIL's transform: nearest, bilinear, bicubic.
  if (!i.ok() || *i == Interpolation::kArea)
    return Status::InvalidArgument(op + ": parameter 'interpolation' must be nearest, bilinear or bicubic, got '" +
                                   interp + "'");
  o->interp_ = *i;
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomPerspectiveOp::ToJson() const {
  return {{"op", "RandomPerspective"},
          {"distortion_scale", distortion_scale_},
          {"prob", prob_},
          {"interpolation", InterpolationName(interp_)}};
}

Result<Tensor> RandomPerspectiveOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomPerspective", true));
  if (!(RandUniform(rng, 0.0, 1.0) < prob_)) return input;
  // In [0, W/2]: the truncation of a value in range (scale is in [0, 1]).
  const int dw = static_cast<int>(d.w / 2.0 * distortion_scale_);
  const int dh = static_cast<int>(d.h / 2.0 * distortion_scale_);
  const int w1 = d.w - 1, h1 = d.h - 1;
  Quad end{};  // drawn in MindSpore's order
  end[0][0] = static_cast<double>(RandInt(rng, 0, dw));
  end[0][1] = static_cast<double>(RandInt(rng, 0, dh));
  end[1][0] = static_cast<double>(RandInt(rng, w1 - dw, w1));
  end[1][1] = static_cast<double>(RandInt(rng, 0, dh));
  end[2][0] = static_cast<double>(RandInt(rng, w1 - dw, w1));
  end[2][1] = static_cast<double>(RandInt(rng, h1 - dh, h1));
  end[3][0] = static_cast<double>(RandInt(rng, 0, dw));
  end[3][1] = static_cast<double>(RandInt(rng, h1 - dh, h1));
  const Quad start = {{{0, 0}, {static_cast<double>(w1), 0}, {static_cast<double>(w1), static_cast<double>(h1)},
                       {0, static_cast<double>(h1)}}};
  MR_ASSIGN_OR_RETURN(Homography inv, PilInverseMap(start, end, name()));
  return WarpPerspectiveImage(input, d, inv, true, interp_, name());
}

}  // namespace mindrecord::ops
