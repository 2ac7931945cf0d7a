#include "pipeline/ops/decode.h"

#include "pipeline/ops/jpeg.h"

namespace mindrecord::ops {

Status CheckEncoded(const Tensor& t, const std::string& op) {
  if (!t.defined()) return Status::InvalidArgument(op + ": input tensor is undefined");
  if ((t.type() != TensorType::kBytes && t.type() != TensorType::kUInt8) || t.shape().size() != 1)
    return Status::InvalidArgument(op + ": expected encoded image bytes (1-D bytes or uint8), got " +
                                   t.DebugString());
  if (t.size_bytes() == 0) return Status::InvalidArgument(op + ": empty image bytes");
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> DecodeOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Decode", {"target_size", "all_factors"}));
  MR_ASSIGN_OR_RETURN(Size2 target, GetSize(spec, "Decode", "target_size", false));
  MR_ASSIGN_OR_RETURN(bool all, GetBool(spec, "Decode", "all_factors", false));
  return std::unique_ptr<TensorOp>(new DecodeOp(target, all));
}

nlohmann::json DecodeOp::ToJson() const {
  nlohmann::json j = {{"op", "Decode"}};
  if (target_.h > 0) j["target_size"] = target_.ToJson();
  if (all_factors_) j["all_factors"] = true;
  return j;
}

Result<Tensor> DecodeOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  MR_RETURN_IF_ERROR(CheckEncoded(input, "Decode"));
  int min_w = 0, min_h = 0;
  if (target_.h > 0 && !target_.from_int) {
    min_h = static_cast<int>(target_.h);
    min_w = static_cast<int>(target_.w);
  } else if (target_.h > 0) {
    // Shorter side >= s: both sides >= s is the same condition.
    min_h = min_w = static_cast<int>(target_.h);
  }
  return DecodeImage(input.data(), input.size_bytes(), min_w, min_h, "Decode", all_factors_);
}

}  // namespace mindrecord::ops
