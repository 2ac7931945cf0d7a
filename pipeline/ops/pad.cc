#include "pipeline/ops/pad.h"

#include <algorithm>

#include "pipeline/ops/cv_util.h"

namespace mindrecord::ops {

namespace {
const char* const kModeNames[] = {"constant", "edge", "reflect", "symmetric"};
}  // namespace

const char* PaddingModeName(PaddingMode m) { return kModeNames[static_cast<int>(m)]; }

int ToCvBorder(PaddingMode m) {
  switch (m) {
    case PaddingMode::kConstant: return cv::BORDER_CONSTANT;
    case PaddingMode::kEdge: return cv::BORDER_REPLICATE;
    case PaddingMode::kReflect: return cv::BORDER_REFLECT_101;
    case PaddingMode::kSymmetric: return cv::BORDER_REFLECT;
  }
  return cv::BORDER_CONSTANT;
}

Result<PaddingMode> GetPaddingMode(const nlohmann::json& spec, const std::string& op, const char* key) {
  auto name = GetString(spec, op, key, "constant");
  if (!name.ok()) return name.status();
  const std::string& mode = *name;
  for (int i = 0; i < 4; ++i)
    if (mode == kModeNames[i]) return static_cast<PaddingMode>(i);
  return Status::InvalidArgument(op + ": parameter '" + key + "' must be constant, edge, reflect or symmetric, got '" +
                                 mode + "'");
}

Result<Padding> GetPadding(const nlohmann::json& spec, const std::string& op, const char* key) {
  MR_ASSIGN_OR_RETURN(std::vector<double> p, GetNumbers(spec, op, key, {0}));
  for (double v : p)
    if (!(v >= 0 && v <= 65536) || v != static_cast<int>(v))
      return Status::InvalidArgument(op + ": parameter '" + key + "' must hold integers in [0, 65536]");
  if (p.size() == 1) return Padding{int(p[0]), int(p[0]), int(p[0]), int(p[0])};
  if (p.size() == 2) return Padding{int(p[0]), int(p[1]), int(p[0]), int(p[1])};
  if (p.size() == 4) return Padding{int(p[0]), int(p[1]), int(p[2]), int(p[3])};
  return Status::InvalidArgument(op + ": parameter '" + key + "' must be an int or a list of 2 or 4 ints");
}

Result<FillValue> GetFillValue(const nlohmann::json& spec, const std::string& op, const char* key, bool byte_range) {
  FillValue f;
  if (!spec.contains(key)) return f;
  MR_ASSIGN_OR_RETURN(std::vector<double> v, GetNumbers(spec, op, key, {0}));
  if (v.size() != 1 && v.size() != 3)
    return Status::InvalidArgument(op + ": parameter '" + key + "' must be a number or [r, g, b]");
  for (double x : v)
    if (byte_range && (x < 0 || x > 255 || x != static_cast<int>(x)))
      return Status::InvalidArgument(op + ": parameter '" + key + "' must hold integers in [0, 255]");
  for (size_t c = 0; c < 3; ++c) f.v[c] = v.size() == 1 ? v[0] : v[c];
  f.v[3] = v.size() == 1 ? v[0] : 0;
  f.spec = spec[key];
  return f;
}

Result<Tensor> PadImage(const Tensor& img, const ImageDims& d, const Padding& p, PaddingMode mode,
                        const FillValue& fill, const std::string& op) {
  if (!p.any()) return img;
  if (mode == PaddingMode::kReflect && (std::max(p.left, p.right) >= d.w || std::max(p.top, p.bottom) >= d.h))
    return Status::InvalidArgument(op + ": " + PaddingModeName(mode) + " padding must be smaller than the image (" +
                                   std::to_string(d.h) + "x" + std::to_string(d.w) + ")");
  ImageDims pd = d;
  pd.h = d.h + p.top + p.bottom;
  pd.w = d.w + p.left + p.right;
  if (static_cast<int64_t>(pd.h) * pd.w > (int64_t{1} << 30))
    return Status::InvalidArgument(op + ": padded image would have more than 2^30 pixels");
  Tensor out = MakeImage(img.type(), d, pd.h, pd.w);
  out.MutableData();
  MR_RETURN_IF_ERROR(CatchCv(op, [&] {
    cv::Mat dst = AsMat(out, pd);
    cv::copyMakeBorder(AsMat(img, d), dst, p.top, p.bottom, p.left, p.right, ToCvBorder(mode),
                       cv::Scalar(fill.v[0], fill.v[1], fill.v[2], fill.v[3]));
  }));
  return out;
}

Result<std::unique_ptr<TensorOp>> PadOp::Make(const nlohmann::json& spec) {
  const std::string op = "Pad";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"padding", "fill_value", "padding_mode"}));
  if (!spec.contains("padding")) return Status::InvalidArgument(op + ": parameter 'padding' is required");
  auto o = std::make_unique<PadOp>();
  MR_ASSIGN_OR_RETURN(o->pad_, GetPadding(spec, op, "padding"));
  o->padding_spec_ = spec["padding"];
  MR_ASSIGN_OR_RETURN(o->fill_, GetFillValue(spec, op, "fill_value", true));
  MR_ASSIGN_OR_RETURN(o->mode_, GetPaddingMode(spec, op, "padding_mode"));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json PadOp::ToJson() const {
  return {{"op", "Pad"}, {"padding", padding_spec_}, {"fill_value", fill_.spec}, {"padding_mode", PaddingModeName(mode_)}};
}

Result<Tensor> PadOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_ASSIGN_OR_RETURN(ImageDims d, CheckImage(input, "Pad", true));
  return PadImage(input, d, pad_, mode_, fill_, "Pad");
}

}  // namespace mindrecord::ops
