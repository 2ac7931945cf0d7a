// Detection ops that resize with a random draw: RandomResizedCropWithBBox
// and RandomResizeWithBBox (MindSpore's random_crop_and_resize_with_bbox_op.cc
// and random_resize_with_bbox_op.cc). Image and boxes in and out; boxes are
// float32 [n, k >= 4] (x, y, width, height, extra columns kept).
#pragma once

#include <memory>

#include "pipeline/ops/bbox.h"
#include "pipeline/ops/random_resized_crop.h"

namespace mindrecord::ops {

// {"op":"RandomResizedCropWithBBox","size":[h,w] | s,"scale":[0.08,1.0],
//  "ratio":[0.75,1.3333],"interpolation":"bilinear","attempts":10}:
// RandomResizedCrop's window (same draws, same fallback), the boxes cut to
// the window as RandomCropWithBBox does (boxes that do not touch it dropped,
// the others clipped), the window resized to size and the boxes scaled by
// (size_w / window_w, size_h / window_h). Thread safety: immutable;
// ApplyColumns is safe from many threads (stateless per call).
class RandomResizedCropWithBBoxOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit RandomResizedCropWithBBoxOp(RandomResizedCropParams p) : p_(std::move(p)) {}
  std::string name() const override { return "RandomResizedCropWithBBox"; }
  nlohmann::json ToJson() const override;
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  RandomResizedCropParams p_;
};

// {"op":"RandomResizeWithBBox","size":s | [h,w]}: ResizeWithBBox with the
// interpolation drawn uniformly per image from bilinear, nearest, bicubic
// and area (RandomResize's draw: one integer). Thread safety: immutable;
// ApplyColumns is safe from many threads (stateless per call).
class RandomResizeWithBBoxOp : public ImageBoxesOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit RandomResizeWithBBoxOp(Size2 size) : size_(size) {}
  std::string name() const override { return "RandomResizeWithBBox"; }
  nlohmann::json ToJson() const override { return {{"op", "RandomResizeWithBBox"}, {"size", size_.ToJson()}}; }
  bool is_random() const override { return true; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  Size2 size_;
};

}  // namespace mindrecord::ops
