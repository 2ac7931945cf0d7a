// Detection ops that cut the image: RandomCropWithBBox and
// BoundingBoxAugment (MindSpore's random_crop_with_bbox_op.cc and
// bounding_box_augment_op.cc).
#pragma once

#include <memory>

#include "pipeline/ops/bbox.h"
#include "pipeline/ops/crop.h"
#include "pipeline/ops/pad.h"

namespace mindrecord::ops {

// {"op":"RandomCropWithBBox","size":[h,w] | s,"padding":p | [lr,tb] | [l,t,r,b],
//  "pad_if_needed":false,"fill_value":0 | [r,g,b],"padding_mode":"constant"}:
// RandomCrop's padding (boxes move with it, also for pad_if_needed) and a
// uniform window (draws: top, then left); boxes that do not touch the window
// are dropped, the others clipped to it and moved into its coordinates
// (MindSpore's UpdateBBoxesForCrop). Thread safety: immutable; ApplyColumns
// is safe from many threads.
class RandomCropWithBBoxOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RandomCropWithBBox"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  RandomCropParams p_;
};

// {"op":"BoundingBoxAugment","transform": spec,"ratio":0.3}: for each box in
// turn, with probability ratio (one draw), the box's region
// (int(x), int(y), int(w), int(h)) is cut out, transformed by `transform` (a
// one-column image op; its draws follow), resized back to the box when its
// size changed, and pasted back. Boxes are returned unchanged. Thread safety:
// immutable; ApplyColumns is safe from many threads.
class BoundingBoxAugmentOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "BoundingBoxAugment"; }
  nlohmann::json ToJson() const override {
    return {{"op", "BoundingBoxAugment"}, {"transform", transform_->ToJson()}, {"ratio", ratio_}};
  }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  std::shared_ptr<const TensorOp> transform_;
  double ratio_ = 0.3;
};

}  // namespace mindrecord::ops
