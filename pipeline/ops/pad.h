// Padding shared by Pad, RandomCrop and RandomCropWithBBox: border modes,
// fill values, the padding spec, and the Pad op.
#pragma once

#include <array>

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Border modes (MindSpore's Border): constant fill, edge replication,
// reflection without (reflect) and with (symmetric) the edge pixel.
enum class PaddingMode : uint8_t { kConstant, kEdge, kReflect, kSymmetric };
const char* PaddingModeName(PaddingMode m);
// spec[key] (default "constant") for `op`.
Result<PaddingMode> GetPaddingMode(const nlohmann::json& spec, const std::string& op, const char* key);

// Pixels added on each side.
struct Padding {
  int left = 0, top = 0, right = 0, bottom = 0;
  bool any() const { return left || top || right || bottom; }
};
// spec[key]: an int (all sides), [left/right, top/bottom] or [left, top,
// right, bottom], each in [0, 65536]; all zero when absent.
Result<Padding> GetPadding(const nlohmann::json& spec, const std::string& op, const char* key);

// A fill colour: one value for every channel, or (R, G, B) for channels 0-2
// (a 4th channel gets 0). Thread safety: a plain value.
struct FillValue {
  std::array<double, 4> v{0, 0, 0, 0};
  nlohmann::json spec = 0;  // as given, for ToJson
};
// spec[key]: a number or [r, g, b]; each in [0, 255] when `byte_range`.
Result<FillValue> GetFillValue(const nlohmann::json& spec, const std::string& op, const char* key, bool byte_range);

// `img` (checked by CheckImage) with `p` added around it in `mode`
// (constant: `fill`). Reflect mode needs padding smaller than the image.
Result<Tensor> PadImage(const Tensor& img, const ImageDims& d, const Padding& p, PaddingMode mode,
                        const FillValue& fill, const std::string& op);

// {"op":"Pad","padding":p | [lr,tb] | [l,t,r,b],"fill_value":0 | [r,g,b],
//  "padding_mode":"constant"}: MindSpore's vision.Pad on HW/HWC uint8 or
// float32 images. Thread safety: immutable; Apply is safe from many threads.
class PadOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "Pad"; }
  nlohmann::json ToJson() const override;
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  Padding pad_;
  nlohmann::json padding_spec_;
  FillValue fill_;
  PaddingMode mode_ = PaddingMode::kConstant;
};

}  // namespace mindrecord::ops
