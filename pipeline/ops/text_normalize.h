// String-to-string ops of MindSpore's text module, through ICU (as
// MindSpore's): each applies to one string, or to every string of an array
// of strings (same shape out). Text that is not UTF-8 is InvalidArgument
// naming the op and byte.
// - {"op":"CaseFold"}: Unicode case folding with NFKC (ICU's NFKC_Casefold).
// - {"op":"NormalizeUTF8","normalize_form":"nfkc"}: "none", "nfc", "nfkc",
//   "nfd" or "nfkd".
// - {"op":"RegexReplace","pattern":p,"replace":r,"replace_all":true}: ICU
//   regular expression `p` replaced by `r` ($1 for a group) everywhere, or at
//   its first match. A match that runs past ICU's step limit (a pattern that
//   backtracks without end on some input) is InvalidArgument, not a hang.
// Thread safety: immutable (a compiled pattern is shared; each call makes
// its own matcher); Apply is safe from many threads.
#pragma once

#include <memory>
#include <string>

#include <unicode/utypes.h>
#include <unicode/uversion.h>

#include "pipeline/ops/op.h"

U_NAMESPACE_BEGIN  // ICU's (versioned) namespace, aliased as icu
class Normalizer2;
class RegexMatcher;
class RegexPattern;
class UnicodeString;
U_NAMESPACE_END

namespace mindrecord::ops {

// ICU's time limit for one match, in its steps (each ~10,000 engine
// operations): ~2 s on the machines this was measured on.
inline constexpr int32_t kRegexStepLimit = 10000;

class CaseFoldOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "CaseFold"; }
  nlohmann::json ToJson() const override { return {{"op", "CaseFold"}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
};

class NormalizeUTF8Op : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  std::string name() const override { return "NormalizeUTF8"; }
  nlohmann::json ToJson() const override { return {{"op", "NormalizeUTF8"}, {"normalize_form", form_}}; }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;

 private:
  std::string form_;
  const icu::Normalizer2* normalizer_ = nullptr;  // ICU's, for the process; null for "none"
};

class RegexReplaceOp : public TensorOp {
 public:
  static Result<std::unique_ptr<TensorOp>> Make(const nlohmann::json& spec);
  ~RegexReplaceOp() override;
  std::string name() const override { return "RegexReplace"; }
  nlohmann::json ToJson() const override {
    return {{"op", "RegexReplace"}, {"pattern", pattern_}, {"replace", replace_}, {"replace_all", all_}};
  }
  bool takes_strings() const override { return true; }
  Result<Tensor> Apply(Tensor input, std::mt19937_64& rng) const override;
  // `s` with the pattern replaced (s is UTF-8, checked).
  Result<std::string> Replace(std::string_view s) const;

 private:
  std::string pattern_, replace_;
  bool all_ = true;
  std::unique_ptr<icu::RegexPattern> compiled_;
};

// The compiled ICU pattern `pattern` (InvalidArgument naming `op` and where
// ICU stopped when it is not one). Matchers made from it get a step limit.
Result<std::unique_ptr<icu::RegexPattern>> CompileRegex(const std::string& pattern, const std::string& op,
                                                        const char* key);
// The matches of `m` (all, or the first) replaced by `with` ($n for a group)
// into `out`, under the step limit (exceeding it: InvalidArgument naming `op`).
Status ReplaceMatches(icu::RegexMatcher* m, const icu::UnicodeString& with, bool all, icu::UnicodeString* out,
                      const std::string& op);
// Unicode normalization of `s` by `n` (null: `s` itself) into UTF-8.
Result<std::string> NormalizeUtf8(const icu::Normalizer2* n, std::string_view s, const std::string& op);
// ICU's NFKC_Casefold normalizer.
Result<const icu::Normalizer2*> CaseFolder(const std::string& op);
// ICU's normalizer for `form` ("nfc", "nfkc", "nfd", "nfkd"; "none": null);
// another form is InvalidArgument naming `op` and parameter `key`.
Result<const icu::Normalizer2*> NormalizerFor(const std::string& form, const std::string& op, const char* key);
// The error of a failed regular expression `err` (its step limit named).
Status RegexError(UErrorCode err, const std::string& op);

}  // namespace mindrecord::ops
