#include "pipeline/ops/slice_patches.h"

#include <string>
#include <utility>

#include "pipeline/ops/crop.h"
#include "pipeline/ops/scalar.h"

namespace mindrecord::ops {

namespace {

constexpr int64_t kMaxPatches = 1 << 20;

}  // namespace

Result<std::unique_ptr<TensorOp>> SlicePatchesOp::Make(const nlohmann::json& spec) {
  const std::string op = "SlicePatches";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"num_height", "num_width", "slice_mode", "fill_value"}));
  auto o = std::make_unique<SlicePatchesOp>();
  MR_ASSIGN_OR_RETURN(o->num_h_, GetIntIn(spec, op, "num_height", 1, 2147483647, 1));
  MR_ASSIGN_OR_RETURN(o->num_w_, GetIntIn(spec, op, "num_width", 1, 2147483647, 1));
  if (static_cast<int64_t>(o->num_h_) * o->num_w_ > kMaxPatches)
    return Status::InvalidArgument(op + ": num_height * num_width must be at most 2^20 (one output column each)");
  MR_ASSIGN_OR_RETURN(std::string mode, GetString(spec, op, "slice_mode", "pad"));
  if (mode != "pad" && mode != "drop")
    return Status::InvalidArgument(op + ": parameter 'slice_mode' must be \"pad\" or \"drop\", got \"" + mode + "\"");
  o->drop_ = mode == "drop";
  MR_ASSIGN_OR_RETURN(o->fill_, GetIntIn(spec, op, "fill_value", 0, 255, 0));
  return std::unique_ptr<TensorOp>(std::move(o));
}

nlohmann::json SlicePatchesOp::ToJson() const {
  return {{"op", "SlicePatches"},
          {"num_height", num_h_},
          {"num_width", num_w_},
          {"slice_mode", drop_ ? "drop" : "pad"},
          {"fill_value", fill_}};
}

Result<Tensor> SlicePatchesOp::Apply(Tensor input, std::mt19937_64& rng) const {
  if (num_outputs() != 1)
    return Status::InvalidArgument("SlicePatches: gives " + std::to_string(num_outputs()) +
                                   " patches; map it with that many output_columns");
  std::vector<Tensor> in;
  in.push_back(std::move(input));
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> out, ApplyColumns(std::move(in), rng));
  return std::move(out[0]);
}

Result<std::vector<Tensor>> SlicePatchesOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& /*rng*/) const {
  const std::string op = name();
  if (inputs.size() != 1) return Status::InvalidArgument(op + ": takes 1 column, got " + std::to_string(inputs.size()));
  Tensor img = std::move(inputs[0]);
  // MindSpore's SlicePatchesOp::Compute checks these before anything else.
  if (!img.defined() || !IsNumericType(img.type()) || img.shape().size() < 2)
    return Status::InvalidArgument(op + ": expected a numeric tensor of rank >= 2 (an HW or HWC image), got " +
                                   img.DebugString());
  std::vector<Tensor> out;
  if (num_h_ == 1 && num_w_ == 1) {
    out.push_back(std::move(img));
    return out;
  }
  MR_ASSIGN_OR_RETURN(ImageDims d, CropDims(img, op));
  if (num_h_ > d.h || num_w_ > d.w)
    return Status::InvalidArgument(op + ": " + std::to_string(num_h_) + " x " + std::to_string(num_w_) +
                                   " patches do not fit the image " + std::to_string(d.h) + " x " +
                                   std::to_string(d.w) + " (each side needs at least one pixel per patch)");
  int ph = d.h / num_h_, pw = d.w / num_w_;
  if (!drop_) {
    ph += d.h % num_h_ != 0;
    pw += d.w % num_w_ != 0;
  }
  out.reserve(static_cast<size_t>(num_h_) * num_w_);
  // Patches past the image (pad mode) are filled: CropWindow fills outside.
  for (int i = 0; i < num_h_; ++i)
    for (int j = 0; j < num_w_; ++j) out.push_back(CropWindow(img, d, i * ph, j * pw, ph, pw, fill_));
  return out;
}

}  // namespace mindrecord::ops
