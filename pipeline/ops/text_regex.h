// Tokenizers built on ICU regular expressions, as MindSpore's (one string
// in; tokens and, with `with_offsets`, their byte offsets out: see
// text_tokenizers.h):
// - {"op":"RegexTokenizer","delim_pattern":p,"keep_delim_pattern":"",
//   "with_offsets":false}: the string split at the matches of `p`; a match
//   that also matches `keep_delim_pattern` whole is kept as a token.
// - {"op":"BasicTokenizer","lower_case":false,"keep_whitespace":false,
//   "normalization_form":"none","preserve_unused_token":true,
//   "with_offsets":false}: BERT's basic tokenizer as MindSpore runs it: with
//   `lower_case`, NFKC case folding (except [CLS], [SEP], [UNK], [PAD] and
//   [MASK] with `preserve_unused_token`), NFD and accents (\p{Mn}) removed,
//   else the normalization form; control and format characters become
//   spaces; then split at white space, ASCII punctuation, \p{P} and CJK
//   ideographs, each of those but white space kept as a token (white space
//   too with `keep_whitespace`; [CLS] ... [unusedN] kept whole with
//   `preserve_unused_token`). Offsets are those in the normalized text.
// Thread safety: immutable; Apply is safe from many threads.
#pragma once

#include <memory>
#include <string>

#include <unicode/uversion.h>

#include "pipeline/ops/text_tokenizers.h"

U_NAMESPACE_BEGIN  // ICU's (versioned) namespace, aliased as icu
class Normalizer2;
class RegexPattern;
U_NAMESPACE_END

namespace mindrecord::ops {

// Splitting by a delimiter pattern, shared by RegexTokenizer and
// BasicTokenizer.
class RegexSplitter {
 public:
  static Result<RegexSplitter> Make(const std::string& delim, const std::string& keep, const std::string& op);
  RegexSplitter(RegexSplitter&&) noexcept;
  ~RegexSplitter();
  // Appends the tokens of `s` (UTF-8, checked) to `out`.
  Status Split(std::string_view s, Tokens* out, const std::string& op) const;

 private:
  RegexSplitter();
  std::unique_ptr<icu::RegexPattern> delim_, keep_;  // keep_: null when no delimiter is kept
};

class RegexTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "RegexTokenizer"; }
  nlohmann::json ToJson() const override {
    return {{"op", name()}, {"delim_pattern", delim_}, {"keep_delim_pattern", keep_}, {"with_offsets", with_offsets_}};
  }

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override { return splitter_.Split(s, out, name()); }

 private:
  RegexTokenizerOp(bool offsets, std::string delim, std::string keep, RegexSplitter splitter)
      : TokenizerOp(offsets), delim_(std::move(delim)), keep_(std::move(keep)), splitter_(std::move(splitter)) {}
  std::string delim_, keep_;
  RegexSplitter splitter_;
};

// BasicTokenizer's options (its JSON parameters).
struct BasicTokenizerOptions {
  bool lower_case = false;
  bool keep_whitespace = false;
  std::string normalization_form = "none";
  bool preserve_unused_token = true;
  static Result<BasicTokenizerOptions> FromJson(const nlohmann::json& spec, const std::string& op);
  void ToJson(nlohmann::json* j) const;
};

// The text steps and the splitting of BasicTokenizer (also BertTokenizer's first half).
class BasicTokenization {
 public:
  static Result<std::shared_ptr<const BasicTokenization>> Make(const BasicTokenizerOptions& o, const std::string& op);
  ~BasicTokenization();
  // The tokens of `s` (UTF-8, checked), offsets in the normalized text.
  Status Tokenize(std::string_view s, Tokens* out, const std::string& op) const;

 private:
  BasicTokenization(BasicTokenizerOptions o, RegexSplitter splitter);
  Result<std::string> Normalize(std::string_view s, const std::string& op) const;
  BasicTokenizerOptions o_;
  const icu::Normalizer2* fold_ = nullptr;      // NFKC_Casefold (lower_case)
  const icu::Normalizer2* nfd_ = nullptr;       // lower_case
  const icu::Normalizer2* form_ = nullptr;      // not lower_case: normalization_form (null: none)
  std::unique_ptr<icu::RegexPattern> accents_, controls_;
  RegexSplitter splitter_;
};

class BasicTokenizerOp : public TokenizerOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "BasicTokenizer"; }
  nlohmann::json ToJson() const override;

 protected:
  Status Tokenize(std::string_view s, Tokens* out) const override { return basic_->Tokenize(s, out, name()); }

 private:
  BasicTokenizerOp(bool offsets, BasicTokenizerOptions o, std::shared_ptr<const BasicTokenization> b)
      : TokenizerOp(offsets), o_(std::move(o)), basic_(std::move(b)) {}
  BasicTokenizerOptions o_;
  std::shared_ptr<const BasicTokenization> basic_;
};

// `pattern` replaced by `with` everywhere in `s` (ICU, step-limited).
Result<std::string> ReplaceAll(const icu::RegexPattern& pattern, std::string_view s, const char* with,
                               const std::string& op);

}  // namespace mindrecord::ops
