// RandomResizedCrop (torchvision semantics) and its crop-window sampler,
// shared with the fused DecodeRandomResizedCrop.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Thread safety: CropRect and RandomResizedCropParams are plain values.
struct CropRect {
  int top = 0;
  int left = 0;
  int h = 0;
  int w = 0;
};

struct RandomResizedCropParams {
  Size2 size;                        // output (h, w); an int s means s x s
  double scale_lo = 0.08, scale_hi = 1.0;
  double ratio_lo = 3.0 / 4.0, ratio_hi = 4.0 / 3.0;
  Interpolation interp = Interpolation::kBilinear;
  int attempts = 10;

  // Parses size/scale/ratio/interpolation/attempts for `op`.
  static Result<RandomResizedCropParams> FromJson(const nlohmann::json& spec, const std::string& op);
  void ToJson(nlohmann::json* j) const;
};

// torchvision's RandomResizedCrop.get_params on an image of height x width:
// up to `attempts` tries of area ~ U(scale) * H * W and log-aspect ~
// U(log ratio); then the central crop clamped to the ratio range. The draws
// depend only on rng and the image size (so a header is enough).
CropRect SampleRandomResizedCrop(int height, int width, const RandomResizedCropParams& p, std::mt19937_64& rng);

// {"op":"RandomResizedCrop","size":[h,w] | s,"scale":[0.08,1.0],
//  "ratio":[0.75,1.3333],"interpolation":"bilinear","attempts":10}.
// Thread safety: immutable; Apply is safe from many threads.
class RandomResizedCropOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit RandomResizedCropOp(RandomResizedCropParams p) : p_(std::move(p)) {}
  std::string name() const override { return "RandomResizedCrop"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  RandomResizedCropParams p_;
};

}  // namespace mindrecord::ops
