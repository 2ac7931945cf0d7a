// WordPiece tokenizers, as MindSpore's:
// - {"op":"WordpieceTokenizer","vocab":{"token":id,...},"suffix_indicator":"##",
//   "max_bytes_per_token":100,"unknown_token":"[UNK]","with_offsets":false}:
//   each token of a 1-D array of strings (or one string) split greedily into
//   the longest pieces in `vocab`, pieces after the first prefixed with
//   `suffix_indicator`; a token with no such split, or longer than
//   `max_bytes_per_token`, becomes `unknown_token` (itself when that is "").
//   Offsets are bytes within each token (MindSpore's; for a token too long
//   and an unknown token the limit is start + the unknown token's length).
// - {"op":"BertTokenizer", the parameters of both}: BasicTokenizer, then
//   WordpieceTokenizer on its tokens, offsets carried through.
// No tokens gives one empty token.
// Thread safety: immutable (the vocabulary is shared, read-only); Apply is
// safe from many threads.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "pipeline/ops/text_regex.h"

namespace mindrecord::ops {

// The WordPiece split of tokens, shared by both ops.
class WordPiece {
 public:
  struct Options {
    std::string suffix = "##";
    int64_t max_bytes = 100;
    std::string unknown = "[UNK]";
  };
  static Result<WordPiece> FromJson(const nlohmann::json& spec, const std::string& op);
  void ToJson(nlohmann::json* j) const;
  // Appends the pieces of `token` (UTF-8, checked), which starts at byte `at`.
  Status Split(std::string_view token, size_t at, Tokens* out, const std::string& op) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Words = std::unordered_set<std::string, Hash, std::equal_to<>>;
  std::shared_ptr<const nlohmann::json> vocab_json_;  // for ToJson
  std::shared_ptr<const Words> words_;
  Options o_;
};

class WordpieceTokenizerOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "WordpieceTokenizer"; }
  nlohmann::json ToJson() const override;
  int num_outputs() const override { return with_offsets_ ? 3 : 1; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 private:
  WordpieceTokenizerOp(WordPiece w, bool offsets) : wordpiece_(std::move(w)), with_offsets_(offsets) {}
  WordPiece wordpiece_;
  bool with_offsets_;
};

class BertTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "BertTokenizer"; }
  nlohmann::json ToJson() const override;

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override;

 private:
  BertTokenizerOp(bool offsets, BasicTokenizerOptions o, std::shared_ptr<const BasicTokenization> b, WordPiece w)
      : TokenizerOp(offsets), o_(std::move(o)), basic_(std::move(b)), wordpiece_(std::move(w)) {}
  BasicTokenizerOptions o_;
  std::shared_ptr<const BasicTokenization> basic_;
  WordPiece wordpiece_;
};

}  // namespace mindrecord::ops
