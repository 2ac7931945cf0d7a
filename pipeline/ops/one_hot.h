// OneHot: integer class labels -> one-hot rows (MindSpore's transforms.OneHot).
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// {"op":"OneHot","num_classes":K,"smoothing_rate":0.0}. Input: an integer
// scalar or 1-D array of labels in [0, K) (dimensions of size 1 are squeezed
// first, as MindSpore does). Output: [n, K] with 1 at each label, then
// squeezed, so a scalar label gives [K]. With smoothing_rate s > 0 the output
// is float32 (1 - s) * onehot + s / K; with s == 0 it keeps the input's type.
// A label outside [0, K) is InvalidArgument naming it.
// Thread safety: immutable; Apply is safe from many threads.
class OneHotOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  OneHotOp(int64_t num_classes, double smoothing) : num_classes_(num_classes), smoothing_(smoothing) {}
  std::string name() const override { return "OneHot"; }
  nlohmann::json ToJson() const override {
    return {{"op", "OneHot"}, {"num_classes", num_classes_}, {"smoothing_rate", smoothing_}};
  }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  int64_t num_classes_;
  double smoothing_;
};

}  // namespace mindrecord::ops
