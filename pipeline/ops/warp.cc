#include "pipeline/ops/warp.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "pipeline/ops/cv_util.h"
#include "pipeline/ops/resize.h"

namespace mindrecord::ops {

namespace {

constexpr double kPi = 3.14159265358979323846;

cv::Scalar Scalar(const FillValue& f) { return cv::Scalar(f.v[0], f.v[1], f.v[2], f.v[3]); }

// Area averaging has no meaning for a warp: it is taken as bilinear.
int WarpFlag(Interpolation i) { return ToCvInterpolation(i == Interpolation::kArea ? Interpolation::kBilinear : i); }

Status CheckWarpable(const ImageDims& d, Interpolation /*interp*/, const std::string& op) {
  if (d.w > (1 << 24) || d.h > (1 << 24)) return Status::InvalidArgument(op + ": image too large to warp");
  return Status::OK();
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
    cv::warpAffine(AsMat(img, d), dst, rot, size, WarpFlag(interp), cv::BORDER_CONSTANT, Scalar(fill));
  }));
  return out;
}

Result<Tensor> AffineImage(const Tensor& img, const ImageDims& d, double degrees, double tx, double ty,
                           double scale, double shear_x, double shear_y, Interpolation interp, const FillValue& fill,
                           const std::string& op) {
  MR_RETURN_IF_ERROR(CheckWarpable(d, interp, op));
  const double a = degrees * kPi / 180, sx = shear_x * kPi / 180, sy = -shear_y * kPi / 180;
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
                   Scalar(fill));
  }));
  return out;
}

Result<std::unique_ptr<TensorOp>> RandomRotationOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomRotation";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"degrees", "resample", "expand", "center", "fill_value"}));
  if (!spec.contains("degrees")) return Status::InvalidArgument(op + ": parameter 'degrees' is required");
  MR_ASSIGN_OR_RETURN(std::vector<double> deg, GetNumbers(spec, op, "degrees", {}));
  if (deg.size() == 1) {
    if (deg[0] < 0) return Status::InvalidArgument(op + ": parameter 'degrees' as one number must be >= 0");
    deg = {-deg[0], deg[0]};
  }
  if (deg.size() != 2 || deg[0] > deg[1])
    return Status::InvalidArgument(op + ": parameter 'degrees' must be a number d >= 0 or [min, max] with min <= max");
  auto o = std::make_unique<RandomRotationOp>();
  o->lo_ = deg[0];
  o->hi_ = deg[1];
  auto resample = GetString(spec, op, "resample", "nearest");
  if (!resample.ok()) return resample.status();
  auto interp = ParseInterpolation(*resample);
  if (!interp.ok()) return interp.status().WithContext(op + ": parameter 'resample'");
  o->interp_ = *interp;
  MR_ASSIGN_OR_RETURN(o->expand_, GetBool(spec, op, "expand", false));
  if (spec.contains("center") && !spec["center"].is_null()) {
    MR_ASSIGN_OR_RETURN(std::vector<double> c, GetNumbers(spec, op, "center", {}));
    if (c.size() != 2) return Status::InvalidArgument(op + ": parameter 'center' must be [x, y] or null");
    o->center_ = std::make_pair(c[0], c[1]);
  }
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json RandomRotationOp::ToJson() const {
  nlohmann::json j = {{"op", "RandomRotation"}, {"degrees", {lo_, hi_}}, {"resample", InterpolationName(interp_)},
                      {"expand", expand_}, {"fill_value", fill_.spec}};
  j["center"] = center_ ? nlohmann::json::array({center_->first, center_->second}) : nlohmann::json(nullptr);
  return j;
}

Result<Tensor> RandomRotationOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "RandomRotation", true));
  const double degrees = RandUniform(rng, lo_, hi_);
  return RotateImage(input, d, degrees, center_, interp_, expand_, fill_, "RandomRotation");
}

}  // namespace mindrecord::ops
