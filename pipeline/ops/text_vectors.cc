// ToVectors: tokens to pretrained vectors.
#include "pipeline/ops/text_vectors.h"

#include <algorithm>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_tokenizers.h"

namespace mindrecord::ops {

namespace {

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

Result<std::unique_ptr<TensorOp>> ToVectorsOp::Make(const nlohmann::json& spec) {
  const std::string op = "ToVectors";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"vectors", "unk_init", "lower_case_backup"}));
  if (!spec.contains("vectors") || !spec["vectors"].is_object())
    return Status::InvalidArgument(op + ": parameter 'vectors' must be an object {kind, file, max_vectors}");
  const nlohmann::json& v = spec["vectors"];
  MR_RETURN_IF_ERROR(CheckKeys(v, op + " vectors", {"kind", "file", "max_vectors"}));
  if (!v.contains("kind") || !v["kind"].is_string() || !v.contains("file") || !v["file"].is_string())
    return Status::InvalidArgument(op + ": vectors needs a 'kind' and a 'file' (strings)");
  std::unique_ptr<ToVectorsOp> t(new ToVectorsOp());
  MR_ASSIGN_OR_RETURN(t->kind_, ParseVectorsKind(v["kind"].get<std::string>()));
  int64_t max_vectors = 0;
  if (v.contains("max_vectors") && !v["max_vectors"].is_null()) {
    if (!v["max_vectors"].is_number_integer())
      return Status::InvalidArgument(op + ": max_vectors must be an integer, got " + v["max_vectors"].dump());
    max_vectors = v["max_vectors"].get<int64_t>();
  }
  MR_ASSIGN_OR_RETURN(t->table_, LoadVectorTable(v["file"].get<std::string>(), t->kind_, max_vectors));
  const int64_t dim = t->table_->dim();
  t->unk_.assign(static_cast<size_t>(dim), 0.0f);
  if (spec.contains("unk_init") && !spec["unk_init"].is_null()) {
    const nlohmann::json& u = spec["unk_init"];
    if (!u.is_array()) return Status::InvalidArgument(op + ": unk_init must be a list of numbers");
    if (!u.empty()) {
      if (static_cast<int64_t>(u.size()) != dim)
        return Status::InvalidArgument(op + ": unk_init must be the same length as vectors, but got unk_init: " +
                                       std::to_string(u.size()) + " and vectors: " + std::to_string(dim));
      for (size_t i = 0; i < u.size(); ++i) {
        if (!u[i].is_number()) return Status::InvalidArgument(op + ": unk_init must be a list of numbers");
        t->unk_[i] = u[i].get<float>();
      }
    }
  }
  MR_ASSIGN_OR_RETURN(t->lower_, GetBool(spec, op, "lower_case_backup", false));
  t->spec_ = {{"op", op},
              {"vectors", {{"kind", VectorsKindName(t->kind_)}, {"file", v["file"]}, {"max_vectors", max_vectors}}},
              {"unk_init", spec.contains("unk_init") && !spec["unk_init"].is_null() ? spec["unk_init"]
                                                                                    : nlohmann::json::array()},
              {"lower_case_backup", t->lower_}};
  return std::unique_ptr<TensorOp>(std::move(t));
}

void ToVectorsOp::CharNGramLookup(const std::string& token, float* out) const {
  const size_t dim = static_cast<size_t>(table_->dim());
  std::vector<std::string_view> chars;
  chars.reserve(token.size() + 2);
  chars.emplace_back("#BEGIN#");
  for (size_t i = 0; i < token.size(); ++i) chars.emplace_back(token.data() + i, 1);
  chars.emplace_back("#END#");
  std::vector<float> sum(dim, 0.0f);
  int count = 0;
  std::string key;
  for (size_t n : {size_t{2}, size_t{3}, size_t{4}}) {
    for (size_t pos = 0; pos + n <= chars.size(); ++pos) {
      key = std::to_string(n) + "gram-";
      for (size_t k = pos; k < pos + n; ++k) key.append(chars[k]);
      const float* v = table_->Find(key);
      // MindSpore's: a found n-gram whose vector equals the unknown one is not counted.
      if (v == nullptr || std::equal(v, v + dim, unk_.begin())) continue;
      for (size_t d = 0; d < dim; ++d) sum[d] += v[d];
      ++count;
    }
  }
  if (count == 0) {
    std::copy(unk_.begin(), unk_.end(), out);
    return;
  }
  for (size_t d = 0; d < dim; ++d) out[d] = sum[d] / static_cast<float>(count);
}

void ToVectorsOp::Lookup(std::string_view token, float* out) const {
  if (kind_ == VectorsKind::kCharNGram) {
    CharNGramLookup(lower_ ? AsciiLower(token) : std::string(token), out);
    return;
  }
  const float* v = lower_ ? table_->Find(AsciiLower(token)) : table_->Find(token);
  const float* from = v != nullptr ? v : unk_.data();
  std::copy(from, from + table_->dim(), out);
}

Result<Tensor> ToVectorsOp::Apply(Tensor input, std::mt19937_64& /*rng*/) const {
  if (input.type() != TensorType::kStrings && input.type() != TensorType::kString)
    return Status::InvalidArgument("ToVectors: input tensor type should be string, got " + input.DebugString());
  Shape shape;
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> tokens, StringsOf(input, name(), &shape));
  const int64_t dim = table_->dim(), n = static_cast<int64_t>(tokens.size());
  if (static_cast<double>(n) * static_cast<double>(dim) > static_cast<double>(int64_t{1} << 31))
    return Status::InvalidArgument("ToVectors: " + std::to_string(n) + " tokens of " + std::to_string(dim) +
                                   " values would hold more than 2^31 floats");
  // MindSpore's shapes: one token gives [dim], more (or none) [tokens, dim].
  Tensor out = n == 1 ? Tensor::Make(TensorType::kFloat32, {dim}) : Tensor::Make(TensorType::kFloat32, {n, dim});
  float* o = out.mutable_data_as<float>();
  for (int64_t i = 0; i < n; ++i) Lookup(tokens[static_cast<size_t>(i)], o + i * dim);
  return out;
}

}  // namespace mindrecord::ops
