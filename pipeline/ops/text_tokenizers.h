// Tokenizers of MindSpore's text module: a string in, its tokens out as a
// 1-D array of strings (pipeline/strings.h), with `with_offsets` also the
// tokens' byte offsets (start and limit columns; int32, where MindSpore's are
// uint32: there are no uint32 tensors here, and strings are under 2 GiB).
// The input is one string (a string column's value, or a 0-d array of
// strings); not UTF-8 is InvalidArgument naming the byte. A string without
// tokens gives one empty token (offsets 0, 0), as MindSpore's tokenizers do.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/strings.h"

namespace mindrecord::ops {

// Tokens found so far, with their byte offsets.
struct Tokens {
  StringsBuilder words;
  std::vector<int32_t> starts, limits;
  void Add(std::string_view word, size_t start, size_t limit) {
    words.Add(word);
    starts.push_back(static_cast<int32_t>(start));
    limits.push_back(static_cast<int32_t>(limit));
  }
  // The op's output columns: the tokens ("" when none), and with `offsets`
  // the starts and limits.
  std::vector<Tensor> Finish(bool offsets);
};

// The shared part of the one-string tokenizers: input checks, outputs.
class TokenizerOp : public TensorOp {
 public:
  explicit TokenizerOp(bool with_offsets) : with_offsets_(with_offsets) {}
  int num_outputs() const override { return with_offsets_ ? 3 : 1; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const override;

 protected:
  // Appends the tokens of `s` (UTF-8, checked) to `out`.
  virtual Status Tokenize(std::string_view s, Tokens* out) const = 0;
  bool with_offsets_;
};

// {"op":"WhitespaceTokenizer","with_offsets":false}: split at Unicode
// White_Space (what ICU's u_isUWhiteSpace tests, as MindSpore's uses).
class WhitespaceTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  using TokenizerOp::TokenizerOp;
  std::string name() const override { return "WhitespaceTokenizer"; }
  nlohmann::json ToJson() const override { return {{"op", name()}, {"with_offsets", with_offsets_}}; }

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override;
};

// {"op":"UnicodeCharTokenizer","with_offsets":false}: one token per code point.
class UnicodeCharTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  using TokenizerOp::TokenizerOp;
  std::string name() const override { return "UnicodeCharTokenizer"; }
  nlohmann::json ToJson() const override { return {{"op", name()}, {"with_offsets", with_offsets_}}; }

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override;
};

// {"op":"UnicodeScriptTokenizer","keep_whitespace":false,"with_offsets":false}:
// split where the Unicode script changes (ICU's uscript_getScript: "Chinese中国"
// gives "Chinese", "中国"; punctuation and digits are script Common) and
// between white space and the rest; white space runs are dropped unless
// `keep_whitespace`.
class UnicodeScriptTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  UnicodeScriptTokenizerOp(bool keep_whitespace, bool with_offsets)
      : TokenizerOp(with_offsets), keep_whitespace_(keep_whitespace) {}
  std::string name() const override { return "UnicodeScriptTokenizer"; }
  nlohmann::json ToJson() const override {
    return {{"op", name()}, {"keep_whitespace", keep_whitespace_}, {"with_offsets", with_offsets_}};
  }

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override;

 private:
  bool keep_whitespace_;
};

// Apply of an op whose ApplyColumns gives the tokens, and with `offsets`
// also their offsets: the tokens alone, or InvalidArgument (three columns
// need a map naming them).
Result<Tensor> TokensOnly(const TensorOp& op, bool offsets, Tensor input, std::mt19937_64& rng);

// The string of a one-string input: a kString tensor, or a kStrings tensor
// of one element and rank 0. InvalidArgument naming `op` otherwise.
Result<std::string_view> OneString(const Tensor& t, const std::string& op);

// The strings of one string (shape []) or of an array of strings (its
// shape), views into `t`; InvalidArgument naming `op` for other inputs.
Result<std::vector<std::string_view>> StringsOf(const Tensor& t, const std::string& op, Shape* shape);

// Strings in, strings out, one for one: `f` applied to one string (a kString
// tensor gives a kString tensor) or to each string of an array of strings
// (same shape). InvalidArgument naming `op` for other inputs.
template <class F>
Result<Tensor> MapStrings(const Tensor& in, const std::string& op, F&& f) {
  if (in.type() == TensorType::kString) {
    MR_ASSIGN_OR_RETURN(std::string out, f(std::string_view(reinterpret_cast<const char*>(in.data()), in.size_bytes())));
    return Tensor::FromString(TensorType::kString, std::move(out));
  }
  if (in.type() != TensorType::kStrings)
    return Status::InvalidArgument(op + ": expected strings, got " + in.DebugString());
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> items, ReadStrings(in));
  StringsBuilder b;
  for (std::string_view s : items) {
    MR_ASSIGN_OR_RETURN(std::string out, f(s));
    b.Add(out);
  }
  return b.Finish(in.shape());
}

}  // namespace mindrecord::ops
