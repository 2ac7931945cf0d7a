// Colour-space conversions: ConvertColor (MindSpore's ConvertMode, OpenCV's
// cvtColor codes) and Grayscale.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"ConvertColor","convert_mode":"COLOR_RGB2GRAY"}: one of MindSpore's 20
// ConvertMode names (COLOR_BGR2BGRA, COLOR_RGB2RGBA, COLOR_BGRA2BGR,
// COLOR_RGBA2RGB, COLOR_BGR2RGBA, COLOR_RGB2BGRA, COLOR_RGBA2BGR,
// COLOR_BGRA2RGB, COLOR_BGR2RGB, COLOR_RGB2BGR, COLOR_BGRA2RGBA,
// COLOR_RGBA2BGRA, COLOR_BGR2GRAY, COLOR_RGB2GRAY, COLOR_GRAY2BGR,
// COLOR_GRAY2RGB, COLOR_GRAY2BGRA, COLOR_GRAY2RGBA, COLOR_BGRA2GRAY,
// COLOR_RGBA2GRAY) through cv::cvtColor. Input uint8 or float32 with the
// mode's channel count (GRAY: HW or HWC with 1 channel); GRAY outputs are
// HW. Thread safety: immutable; Apply is safe from many threads.
class ConvertColorOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "ConvertColor"; }
  nlohmann::json ToJson() const override { return {{"op", "ConvertColor"}, {"convert_mode", mode_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::string mode_;
  int code_ = 0;
  int in_channels_ = 3;
  int out_channels_ = 3;
};

// {"op":"Grayscale","num_output_channels":1}: an HWC RGB image (uint8 or
// float32, 3 channels) to its luma 0.299 R + 0.587 G + 0.114 B (as PIL's
// convert("L")): HW for 1 output channel, HWC with 3 equal channels for 3.
// Thread safety: immutable; Apply is safe from many threads.
class GrayscaleOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit GrayscaleOp(int channels) : channels_(channels) {}
  std::string name() const override { return "Grayscale"; }
  nlohmann::json ToJson() const override { return {{"op", "Grayscale"}, {"num_output_channels", channels_}}; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int channels_;
};

}  // namespace mindrecord::ops
