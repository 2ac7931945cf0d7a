// Lookup: strings to vocabulary ids.
#include "pipeline/ops/text_lookup.h"

#include <vector>

#include "pipeline/ops/layout.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_tokenizers.h"
#include "pipeline/strings.h"

namespace mindrecord::ops {

namespace {

Result<int32_t> GetId(const nlohmann::json& v, const std::string& what) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
    return Status::InvalidArgument("Lookup: " + what + " must be an integer in [0, 2^31), got " + v.dump());
  return static_cast<int32_t>(v.get<int64_t>());
}

}  // namespace

Result<std::unique_ptr<TensorOp>> LookupOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Lookup", {"vocab", "unknown_id", "data_type"}));
  if (!spec.contains("vocab") || !spec["vocab"].is_object())
    return Status::InvalidArgument("Lookup: parameter 'vocab' must be an object of token: id");
  auto vocab = std::make_shared<Vocab>();
  vocab->reserve(spec["vocab"].size());
  for (auto it = spec["vocab"].begin(); it != spec["vocab"].end(); ++it) {
    MR_ASSIGN_OR_RETURN(int32_t id, GetId(it.value(), "the id of '" + it.key() + "'"));
    vocab->emplace(it.key(), id);
  }
  std::optional<int32_t> unknown;
  if (spec.contains("unknown_id") && !spec["unknown_id"].is_null()) {
    MR_ASSIGN_OR_RETURN(unknown, GetId(spec["unknown_id"], "parameter 'unknown_id'"));
  }
  MR_ASSIGN_OR_RETURN(TensorType type, GetNumericType(spec, "Lookup", "data_type", "int32"));
  return std::unique_ptr<TensorOp>(new LookupOp(std::move(vocab), unknown, type));
}

nlohmann::json LookupOp::ToJson() const {
  nlohmann::json words = nlohmann::json::object();
  for (const auto& [w, id] : *vocab_) words[w] = id;
  nlohmann::json j = {{"op", "Lookup"}, {"vocab", std::move(words)}, {"data_type", TensorTypeName(type_)}};
  if (unknown_) j["unknown_id"] = *unknown_;
  return j;
}

Result<Tensor> LookupOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  Shape shape;
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> words, StringsOf(input, "Lookup", &shape));
  Tensor ids = Tensor::Make(TensorType::kInt32, shape);
  int32_t* out = ids.mutable_data_as<int32_t>();
  for (size_t i = 0; i < words.size(); ++i) {
    auto it = vocab_->find(words[i]);
    if (it != vocab_->end()) {
      out[i] = it->second;
    } else if (unknown_) {
      out[i] = *unknown_;
    } else {
      return Status::InvalidArgument("Lookup: token \"" + std::string(words[i]) +
                                     "\" is not in the vocabulary and no unknown_token was given");
    }
  }
  return CastTensor(ids, type_, "Lookup");
}

}  // namespace mindrecord::ops
