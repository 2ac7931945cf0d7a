#include "pipeline/ops/warp.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <limits>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

namespace {


cv::Scalar FillScalar(const FillValue& f) { return cv::Scalar(f.v[0], f.v[1], f.v[2], f.v[3]); }

// Area averaging has no meaning for a warp: it is taken as bilinear.
int WarpFlag(Interpolation i) { return ToCvInterpolation(i == Interpolation::kArea ? Interpolation::kBilinear : i); }

Status CheckWarpable(const ImageDims& d, Interpolation /*interp*/, const std::string& op) {
  if (d.w > (1 << 24) || d.h > (1 << 24)) return Status::InvalidArgument(op + ": image too large to warp");
  return Status::OK();
}

// "resample" (default nearest) and "fill_value" (default 0), shared by the warp ops.
Status GetWarpParams(const nlohmann::json& spec, const std::string& op, Interpolation* interp, FillValue* fill) {
  MR_ASSIGN_OR_RETURN(std::string resample, GetString(spec, op, "resample", "nearest"));
  auto i = ParseInterpolation(resample);
  if (!i.ok()) return i.status().WithContext(op + ": parameter 'resample'");
  *interp = *i;
  MR_ASSIGN_OR_RETURN(*fill, GetFillValue(spec, op, "fill_value", true));
  return Status::OK();
}

// "center": null (the image centre) or [x, y].
Result<std::optional<std::pair<double, double>>> GetCenter(const nlohmann::json& spec, const std::string& op) {
  if (!spec.contains("center") || spec["center"].is_null()) return std::optional<std::pair<double, double>>();
  MR_ASSIGN_OR_RETURN(std::vector<double> c, GetNumbers(spec, op, "center", {}));
  if (c.size() != 2) return Status::InvalidArgument(op + ": parameter 'center' must be [x, y] or null");
  return std::optional<std::pair<double, double>>(std::make_pair(c[0], c[1]));
}

nlohmann::json CenterJson(const std::optional<std::pair<double, double>>& c) {
  return c ? nlohmann::json::array({c->first, c->second}) : nlohmann::json(nullptr);
}

// spec[key] as pairs [lo0, hi0, lo1, hi1, ...] with lo <= hi: `n` numbers, or
// n / 2 (the later pairs [0, 0]); one number v when `symmetric` gives [-v, v]
// (v >= 0, with `positive` v > 0). Values outside [lo, hi] are refused.
Result<std::vector<double>> GetRanges(const nlohmann::json& spec, const std::string& op, const char* key, size_t n,
                                      std::vector<double> def, bool symmetric, bool positive, double lo, double hi) {
  MR_ASSIGN_OR_RETURN(std::vector<double> v, GetNumbers(spec, op, key, def));
  const std::string name = op + ": parameter '" + key + "'";
  if (v.size() == 1 && symmetric && spec.contains(key) && spec[key].is_number()) {
    if (v[0] < 0 || (positive && v[0] == 0))
      return Status::InvalidArgument(name + " as one number must be " + (positive ? "> 0" : ">= 0"));
    v = {-v[0], v[0]};
  }
  if (v.size() == n / 2 && n > 2) v.resize(n, 0.0);
  if (v.size() != n)
    return Status::InvalidArgument(name + " must hold " + std::to_string(n) +
                                   (n > 2 ? " or " + std::to_string(n / 2) : std::string()) + " numbers, got " +
                                   spec[key].dump());
  for (size_t i = 0; i < n; i += 2)
    if (v[i] > v[i + 1]) return Status::InvalidArgument(name + " must be (min, max) pairs with min <= max");
  for (double x : v)
    if (x < lo || x > hi)
      return Status::InvalidArgument(name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

}  // namespace

Result<Tensor> RotateImage(const Tensor& img, const ImageDims& d, double degrees,
                           std::optional<std::pair<double, double>> center, Interpolation interp, bool expand,
                           const FillValue& fill, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckWarpable(d, interp, op));
  const cv::Point2f pc = center ? cv::Point2f(static_cast<float>(center->first), static_cast<float>(center->second))
                                : cv::Point2f(static_cast<float>((d.w - 1) / 2.0), static_cast<float>((d.h - 1) / 2.0));
  Tensor out;
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat rot = cv::getRotationMatrix2D(pc, degrees, 1.0);
    cv::Size size(d.w, d.h);
    if (expand) {
      // The rotated rectangle's bounding box, the image moved to its centre.
      const cv::Rect2f box = cv::RotatedRect(pc, cv::Size2f(static_cast<float>(d.w), static_cast<float>(d.h)),
                                             static_cast<float>(degrees))
                                 .boundingRect2f();
      rot.at<double>(0, 2) += box.width / 2.0 - d.w / 2.0;
      rot.at<double>(1, 2) += box.height / 2.0 - d.h / 2.0;
      size = cv::Size(std::max(1, cvRound(box.width)), std::max(1, cvRound(box.height)));
    }
    ImageDims od = d;
    od.h = size.height;
    od.w = size.width;
    out = MakeImage(img.type(), d, od.h, od.w);
    cv::Mat dst = AsMat(out, od);
    out.MutableData();
    cv::warpAffine(AsMat(img, d), dst, rot, size, WarpFlag(interp), cv::BORDER_CONSTANT, FillScalar(fill));
  }));
  return out;
}

Result<Tensor> AffineImage(const Tensor& img, const ImageDims& d, double degrees, double tx, double ty,
                           double scale, double shear_x, double shear_y, Interpolation interp, const FillValue& fill,
                           const std::string& op) {
  MR_RETURN_IF_ERROR(CheckWarpable(d, interp, op));
  const double a = degrees * std::numbers::pi / 180, sx = shear_x * std::numbers::pi / 180, sy = -shear_y * std::numbers::pi / 180;
  if (std::cos(sy) == 0) return Status::InvalidArgument(op + ": shear_y of 90 degrees");
  const double cx = (d.w - 1) / 2.0, cy = (d.h - 1) / 2.0;
  double m[6] = {scale * std::cos(a + sy) / std::cos(sy),
                 scale * (-std::cos(a + sy) * std::tan(sx) / std::cos(sy) - std::sin(a)),
                 0,
                 scale * std::sin(a + sy) / std::cos(sy),
                 scale * (-std::sin(a + sy) * std::tan(sx) / std::cos(sy) + std::cos(a)),
                 0};
  m[2] = (1 - m[0]) * cx - m[1] * cy + tx;
  m[5] = (1 - m[4]) * cy - m[3] * cx + ty;
  Tensor out = MakeImage(img.type(), d, d.h, d.w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat mat(2, 3, CV_64F, m);
    cv::Mat dst = AsMat(out, d);
    cv::warpAffine(AsMat(img, d), dst, mat, cv::Size(d.w, d.h), WarpFlag(interp), cv::BORDER_CONSTANT,
                   FillScalar(fill));
  }));
  return out;
}

Result<Tensor> WarpPerspectiveImage(const Tensor& img, const ImageDims& d, const Homography& m, bool inverse,
                                    Interpolation interp, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckWarpable(d, interp, op));
  for (double x : m)
    if (!std::isfinite(x)) return Status::InvalidArgument(op + ": the perspective transform is not finite");
  Tensor out = MakeImage(img.type(), d, d.h, d.w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    Homography copy = m;  // cv::Mat wants a mutable pointer
    cv::Mat mat(3, 3, CV_64F, copy.data());
    cv::Mat dst = AsMat(out, d);
    cv::warpPerspective(AsMat(img, d), dst, mat, cv::Size(d.w, d.h),
                        WarpFlag(interp) | (inverse ? cv::WARP_INVERSE_MAP : 0), cv::BORDER_CONSTANT,
                        cv::Scalar::all(0));
  }));
  return out;
}

Result<std::unique_ptr<TensorOp>> RotateOp::Make(const nlohmann::json& spec) {
  const std::string op = "Rotate";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees", "resample", "expand", "center", "fill_value"}));
  if (!spec.contains("degrees")) return Status::InvalidArgument(op + ": parameter 'degrees' is required");
  auto o = std::make_unique<RotateOp>();
  MR_ASSIGN_OR_RETURN(o->degrees_, GetNumber(spec, op, "degrees", 0));
  MR_RETURN_IF_ERROR(GetWarpParams(spec, op, &o->interp_, &o->fill_));
  MR_ASSIGN_OR_RETURN(o->expand_, GetBool(spec, op, "expand", false));
  MR_ASSIGN_OR_RETURN(o->center_, GetCenter(spec, op));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RotateOp::ToJson() const {
  return {{"op", "Rotate"},     {"degrees", degrees_},         {"resample", InterpolationName(interp_)},
          {"expand", expand_},  {"center", CenterJson(center_)}, {"fill_value", fill_.spec}};
}

Result<Tensor> RotateOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Rotate", true));
  return RotateImage(input, d, degrees_, center_, interp_, expand_, fill_, "Rotate");
}

Result<std::unique_ptr<TensorOp>> RandomRotationOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomRotation";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees", "resample", "expand", "center", "fill_value"}));
  if (!spec.contains("degrees")) return Status::InvalidArgument(op + ": parameter 'degrees' is required");
  const double inf = std::numeric_limits<double>::infinity();
  MR_ASSIGN_OR_RETURN(std::vector<double> deg, GetRanges(spec, op, "degrees", 2, {}, true, false, -inf, inf));
  auto o = std::make_unique<RandomRotationOp>();
  o->lo_ = deg[0];
  o->hi_ = deg[1];
  MR_RETURN_IF_ERROR(GetWarpParams(spec, op, &o->interp_, &o->fill_));
  MR_ASSIGN_OR_RETURN(o->expand_, GetBool(spec, op, "expand", false));
  MR_ASSIGN_OR_RETURN(o->center_, GetCenter(spec, op));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomRotationOp::ToJson() const {
  return {{"op", "RandomRotation"}, {"degrees", {lo_, hi_}},         {"resample", InterpolationName(interp_)},
          {"expand", expand_},       {"center", CenterJson(center_)}, {"fill_value", fill_.spec}};
}

Result<Tensor> RandomRotationOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomRotation", true));
  const double degrees = RandUniform(rng, lo_, hi_);
  return RotateImage(input, d, degrees, center_, interp_, expand_, fill_, "RandomRotation");
}

Result<std::unique_ptr<TensorOp>> AffineOp::Make(const nlohmann::json& spec) {
  const std::string op = "Affine";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees", "translate", "scale", "shear", "resample", "fill_value"}));
  for (const char* key : {"degrees", "translate", "scale", "shear"})
    if (!spec.contains(key)) return BadParameter(op, key, "is required");
  auto o = std::make_unique<AffineOp>();
  MR_ASSIGN_OR_RETURN(o->degrees_, GetNumber(spec, op, "degrees", 0));
  if (std::abs(o->degrees_) > 180) return Status::InvalidArgument(op + ": parameter 'degrees' must be in [-180, 180]");
  MR_ASSIGN_OR_RETURN(std::vector<double> t, GetNumbers(spec, op, "translate", {}));
  if (t.size() != 2 || std::abs(t[0]) > 1 || std::abs(t[1]) > 1)
    return Status::InvalidArgument(op + ": parameter 'translate' must be [tx, ty] in [-1, 1]");
  o->tx_ = t[0];
  o->ty_ = t[1];
  MR_ASSIGN_OR_RETURN(o->scale_, GetNumber(spec, op, "scale", 1));
  if (!(o->scale_ > 0)) return Status::InvalidArgument(op + ": parameter 'scale' must be > 0");
  MR_ASSIGN_OR_RETURN(std::vector<double> sh, GetNumbers(spec, op, "shear", {}));
  if (sh.size() == 1) sh.push_back(0);
  if (sh.size() != 2 || std::abs(sh[0]) > 180 || std::abs(sh[1]) > 180)
    return Status::InvalidArgument(op + ": parameter 'shear' must be a number or [sx, sy] in [-180, 180]");
  o->shear_x_ = sh[0];
  o->shear_y_ = sh[1];
  MR_RETURN_IF_ERROR(GetWarpParams(spec, op, &o->interp_, &o->fill_));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json AffineOp::ToJson() const {
  return {{"op", "Affine"},         {"degrees", degrees_}, {"translate", {tx_, ty_}},
          {"scale", scale_},        {"shear", {shear_x_, shear_y_}}, {"resample", InterpolationName(interp_)},
          {"fill_value", fill_.spec}};
}

Result<Tensor> AffineOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Affine", true));
  // The translation is a fraction of the size (MindSpore's AffineOp::Compute).
  return AffineImage(input, d, degrees_, tx_ * d.w, ty_ * d.h, scale_, shear_x_, shear_y_, interp_, fill_, "Affine");
}

Result<std::unique_ptr<TensorOp>> RandomAffineOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomAffine";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees", "translate", "scale", "shear", "resample", "fill_value"}));
  if (!spec.contains("degrees")) return Status::InvalidArgument(op + ": parameter 'degrees' is required");
  const double inf = std::numeric_limits<double>::infinity();
  auto o = std::make_unique<RandomAffineOp>();
  MR_ASSIGN_OR_RETURN(std::vector<double> deg, GetRanges(spec, op, "degrees", 2, {}, true, false, -inf, inf));
  MR_ASSIGN_OR_RETURN(std::vector<double> t, GetRanges(spec, op, "translate", 4, {0, 0, 0, 0}, false, false, -1, 1));
  MR_ASSIGN_OR_RETURN(std::vector<double> sc, GetRanges(spec, op, "scale", 2, {1, 1}, false, false, 0, inf));
  if (!(sc[1] > 0)) return Status::InvalidArgument(op + ": parameter 'scale' must have max > 0");
  MR_ASSIGN_OR_RETURN(std::vector<double> sh, GetRanges(spec, op, "shear", 4, {0, 0, 0, 0}, true, true, -inf, inf));
  std::copy(deg.begin(), deg.end(), o->degrees_.begin());
  std::copy(t.begin(), t.end(), o->translate_.begin());
  std::copy(sc.begin(), sc.end(), o->scale_.begin());
  std::copy(sh.begin(), sh.end(), o->shear_.begin());
  MR_RETURN_IF_ERROR(GetWarpParams(spec, op, &o->interp_, &o->fill_));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomAffineOp::ToJson() const {
  return {{"op", "RandomAffine"}, {"degrees", degrees_}, {"translate", translate_},
          {"scale", scale_},      {"shear", shear_},     {"resample", InterpolationName(interp_)},
          {"fill_value", fill_.spec}};
}

Result<Tensor> RandomAffineOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomAffine", true));
  // MindSpore's draw order; the translation range is scaled by the size first.
  const double degrees = std::fmod(RandUniform(rng, degrees_[0], degrees_[1]), 360.0);
  const double tx = RandUniform(rng, translate_[0] * d.w, translate_[1] * d.w);
  const double ty = RandUniform(rng, translate_[2] * d.h, translate_[3] * d.h);
  const double scale = RandUniform(rng, scale_[0], scale_[1]);
  const double shear_x = RandUniform(rng, shear_[0], shear_[1]);
  const double shear_y = RandUniform(rng, shear_[2], shear_[3]);
  return AffineImage(input, d, degrees, tx, ty, scale, shear_x, shear_y, interp_, fill_, "RandomAffine");
}

}  // namespace mindrecord::ops
