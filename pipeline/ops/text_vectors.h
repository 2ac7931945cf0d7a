// ToVectors (MindSpore's text.ToVectors): tokens to their pretrained vectors.
// {"op":"ToVectors","vectors":{"kind":"GloVe","file":path,"max_vectors":0},
//  "unk_init":[...],"lower_case_backup":false}: each string of the input (one
// string, or an array of strings) becomes its vector (float32, the table's
// dim), MindSpore's shapes: [dim] when the input holds one string, else
// [strings, dim] (an empty input gives [0, dim]). A token not in the table
// gets unk_init (dim numbers) or zeros. lower_case_backup looks up the
// token with ASCII letters lowered (only that form, as MindSpore's).
// CharNGram tables give the mean of the vectors of the token's character
// 2-, 3- and 4-grams ("2gram-#BEGIN#a", ...; characters are bytes, as
// MindSpore's), or unk_init when none is found. The table is loaded by
// LoadVectorTable (vector_table.h).
// Thread safety: immutable (the table is shared, read-only); Apply is safe
// from many threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/vector_table.h"

namespace mindrecord::ops {

class ToVectorsOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "ToVectors"; }
  nlohmann::json ToJson() const override { return spec_; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  ToVectorsOp() = default;
  // The vector of one token into out (dim floats).
  void Lookup(std::string_view token, float* out) const;
  void CharNGramLookup(const std::string& token, float* out) const;

  nlohmann::json spec_;
  VectorsKind kind_ = VectorsKind::kVectors;
  std::shared_ptr<const VectorTable> table_;
  std::vector<float> unk_;  // dim floats: unk_init or zeros
  bool lower_ = false;
};

}  // namespace mindrecord::ops
