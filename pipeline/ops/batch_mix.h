// Batch ops mixing the images and labels of a batch (MindSpore's
// MixUpBatchOp and CutMixBatchOp): two columns in, two out, for a map after
// batch. Images [N, H, W, C] or [N, C, H, W] (uint8 or float32, C 1 or 3);
// labels one-hot [N, K] or [N, L, K] (any numeric type) -> float32.
#pragma once

#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

// Shared: two columns in and out; Apply on one column is an error.
// Thread safety: immutable; ApplyColumns is safe from many threads.
class BatchMixOp : public TensorOp {
 public:
  int num_inputs() const override { return 2; }
  int num_outputs() const override { return 2; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
};

// {"op":"MixUpBatch","alpha":1.0}: lam ~ Beta(alpha, alpha), then a random
// permutation p of the batch (Fisher-Yates); image i becomes
// lam * image[i] + (1 - lam) * image[p[i]] (uint8 rounded), label i likewise.
class MixUpBatchOp : public BatchMixOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  explicit MixUpBatchOp(double alpha) : alpha_(alpha) {}
  std::string name() const override { return "MixUpBatch"; }
  nlohmann::json ToJson() const override { return {{"op", "MixUpBatch"}, {"alpha", alpha_}}; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  double alpha_;
};

// {"op":"MixUp","batch_size":n,"alpha":a}: mindspore.dataset.vision.MixUp
// with is_single=True (py_transforms_util.mix_up_single): per image i its
// own lam_i ~ Beta(alpha, alpha) (n draws, in order), then image i becomes
// lam_i * image[i] + (1 - lam_i) * image[(i + 1) % n] and label i likewise.
// Images [n, ...] of rank 4, labels [n, K], any numeric type; both come out
// float64 (numpy's type for MindSpore's float64 lam times the inputs).
// Thread safety: immutable; ApplyColumns is safe from many threads
// (stateless per call).
class MixUpOp : public BatchMixOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  MixUpOp(int batch_size, double alpha) : batch_size_(batch_size), alpha_(alpha) {}
  std::string name() const override { return "MixUp"; }
  nlohmann::json ToJson() const override { return {{"op", "MixUp"}, {"batch_size", batch_size_}, {"alpha", alpha_}}; }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  int batch_size_;
  double alpha_;
};

// {"op":"CutMixBatch","image_batch_format":"NHWC" | "NCHW","alpha":1.0,"prob":1.0}:
// a random permutation p of the batch; then per image i, lam ~ Beta(alpha,
// alpha) and, with probability prob, a box of (1 - lam) of each side centred
// on a uniform point (MindSpore's GetCropBox, clamped inside the image) is
// pasted from image p[i]; label i becomes a * label[i] + (1 - a) * label[p[i]]
// with a = 1 - box area / image area.
class CutMixBatchOp : public BatchMixOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "CutMixBatch"; }
  nlohmann::json ToJson() const override {
    return {{"op", "CutMixBatch"}, {"image_batch_format", nchw_ ? "NCHW" : "NHWC"}, {"alpha", alpha_}, {"prob", prob_}};
  }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  bool nchw_ = false;
  double alpha_ = 1.0;
  double prob_ = 1.0;
};

}  // namespace mindrecord::ops
