// RegexTokenizer and BasicTokenizer through ICU regular expressions.
#include "pipeline/ops/text_regex.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <array>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_normalize.h"
#include "pipeline/ops/utf8.h"

namespace mindrecord::ops {

namespace {

icu::UnicodeString FromUtf8(std::string_view s) {
  return icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
}

std::string ToUtf8(const icu::UnicodeString& s, int32_t from, int32_t to) {
  std::string out;
  icu::UnicodeString(s, from, to - from).toUTF8String(out);
  return out;
}

// Single characters BERT splits off as tokens: ASCII punctuation, Unicode
// punctuation and the CJK ideograph blocks.
constexpr const char* kSplitOff =
    "[!-/]|[:-@]|[\\[-`]|[{-~]|[\\p{P}]|[\\x{4E00}-\\x{9FFF}]|[\\x{3400}-\\x{4DBF}]|[\\x{20000}-\\x{2A6DF}]"
    "|[\\x{2A700}-\\x{2B73F}]|[\\x{2B740}-\\x{2B81F}]|[\\x{2B820}-\\x{2CEAF}]|[\\x{F900}-\\x{FAFF}]"
    "|[\\x{2F800}-\\x{2FA1F}]";
// BERT's reserved tokens, kept whole.
constexpr const char* kReserved = "\\[CLS\\]|\\[SEP\\]|\\[UNK\\]|\\[PAD\\]|\\[MASK\\]|\\[unused\\d+\\]|";
constexpr std::array<std::string_view, 5> kNotFolded = {"[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]"};

Result<std::string> PatternParam(const nlohmann::json& spec, const std::string& op, const char* key, bool required) {
  if (!spec.contains(key)) {
    if (required) return Status::InvalidArgument(op + ": parameter '" + key + "' is required");
    return std::string();
  }
  if (!spec[key].is_string()) return BadParameter(op, key, "must be a string");
  return spec[key].get<std::string>();
}

}  // namespace

Result<std::string> ReplaceAll(const icu::RegexPattern& pattern, std::string_view s, const char* with,
                               const std::string& op) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::UnicodeString text = FromUtf8(s);
  std::unique_ptr<icu::RegexMatcher> m(pattern.matcher(text, err));
  if (U_FAILURE(err)) return Status::Internal(op + ": ICU matcher: " + u_errorName(err));
  icu::UnicodeString out;
  MR_RETURN_IF_ERROR(ReplaceMatches(m.get(), icu::UnicodeString::fromUTF8(with), true, &out, op));
  std::string utf8;
  out.toUTF8String(utf8);
  return utf8;
}

RegexSplitter::RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter::~RegexSplitter() = default;

Result<RegexSplitter> RegexSplitter::Make(const std::string& delim, const std::string& keep, const std::string& op) {
  RegexSplitter r;
  MR_ASSIGN_OR_RETURN(r.delim_, CompileRegex(delim, op, "delim_pattern"));
  if (!keep.empty()) {
    MR_ASSIGN_OR_RETURN(r.keep_, CompileRegex(keep, op, "keep_delim_pattern"));
  }
  return r;
}

Status RegexSplitter::Split(std::string_view s, Tokens* out, const std::string& op) const {
  const icu::UnicodeString text = FromUtf8(s);
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<icu::RegexMatcher> m(delim_->matcher(text, err));
  std::unique_ptr<icu::RegexMatcher> keep;
  if (keep_ && U_SUCCESS(err)) keep.reset(keep_->matcher(icu::UnicodeString(), err));
  if (U_FAILURE(err)) return Status::Internal(op + ": ICU matcher: " + u_errorName(err));
  m->setTimeLimit(kRegexStepLimit, err);
  if (keep) keep->setTimeLimit(kRegexStepLimit, err);
  size_t at = 0;      // byte offset of what follows the last match
  int32_t from = 0;   // UTF-16 index of the same
  while (m->find(err) && U_SUCCESS(err)) {
    const int32_t ds = m->start(err), de = m->end(err);
    if (ds > from) {
      const std::string t = ToUtf8(text, from, ds);
      out->Add(t, at, at + t.size());
      at += t.size();
    }
    if (de > ds) {
      const icu::UnicodeString d16(text, ds, de - ds);
      std::string d;
      d16.toUTF8String(d);
      if (keep) {
        keep->reset(d16);
        if (keep->matches(err) && U_SUCCESS(err)) out->Add(d, at, at + d.size());
      }
      at += d.size();
    }
    from = de;
  }
  if (U_FAILURE(err)) return RegexError(err, op);
  if (from < text.length()) {
    const std::string t = ToUtf8(text, from, text.length());
    out->Add(t, at, at + t.size());
  }
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> RegexTokenizerOp::Make(const nlohmann::json& spec) {
  const std::string op = "RegexTokenizer";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"delim_pattern", "keep_delim_pattern", "with_offsets"}));
  MR_ASSIGN_OR_RETURN(std::string delim, PatternParam(spec, op, "delim_pattern", true));
  MR_ASSIGN_OR_RETURN(std::string keep, PatternParam(spec, op, "keep_delim_pattern", false));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, op, "with_offsets", false));
  MR_ASSIGN_OR_RETURN(RegexSplitter splitter, RegexSplitter::Make(delim, keep, op));
  return std::unique_ptr<TensorOp>(new RegexTokenizerOp(offsets, delim, keep, std::move(splitter)));
}

Result<BasicTokenizerOptions> BasicTokenizerOptions::FromJson(const nlohmann::json& spec, const std::string& op) {
  BasicTokenizerOptions o;
  MR_ASSIGN_OR_RETURN(o.lower_case, GetBool(spec, op, "lower_case", false));
  MR_ASSIGN_OR_RETURN(o.keep_whitespace, GetBool(spec, op, "keep_whitespace", false));
  MR_ASSIGN_OR_RETURN(o.normalization_form, GetString(spec, op, "normalization_form", "none"));
  MR_ASSIGN_OR_RETURN(o.preserve_unused_token, GetBool(spec, op, "preserve_unused_token", true));
  MR_RETURN_IF_ERROR(NormalizerFor(o.normalization_form, op, "normalization_form").status());
  return o;
}

void BasicTokenizerOptions::ToJson(nlohmann::json* j) const {
  (*j)["lower_case"] = lower_case;
  (*j)["keep_whitespace"] = keep_whitespace;
  (*j)["normalization_form"] = normalization_form;
  (*j)["preserve_unused_token"] = preserve_unused_token;
}

BasicTokenization::BasicTokenization(BasicTokenizerOptions o, RegexSplitter splitter)
    : o_(std::move(o)), splitter_(std::move(splitter)) {}
BasicTokenization::~BasicTokenization() = default;

Result<std::shared_ptr<const BasicTokenization>> BasicTokenization::Make(const BasicTokenizerOptions& o,
                                                                         const std::string& op) {
  std::string delim = std::string("\\s+|") + kSplitOff;
  std::string keep = o.keep_whitespace ? delim : std::string(kSplitOff);
  if (o.preserve_unused_token) {
    delim = kReserved + delim;
    keep = kReserved + keep;
  }
  MR_ASSIGN_OR_RETURN(RegexSplitter splitter, RegexSplitter::Make(delim, keep, op));
  std::shared_ptr<BasicTokenization> b(new BasicTokenization(o, std::move(splitter)));
  if (o.lower_case) {
    MR_ASSIGN_OR_RETURN(b->fold_, CaseFolder(op));
    MR_ASSIGN_OR_RETURN(b->nfd_, NormalizerFor("nfd", op, "lower_case"));
    MR_ASSIGN_OR_RETURN(b->accents_, CompileRegex("\\p{Mn}", op, "lower_case"));
  } else {
    MR_ASSIGN_OR_RETURN(b->form_, NormalizerFor(o.normalization_form, op, "normalization_form"));
  }
  MR_ASSIGN_OR_RETURN(b->controls_, CompileRegex("\\p{Cc}|\\p{Cf}", op, "(control characters)"));
  return std::shared_ptr<const BasicTokenization>(std::move(b));
}

Result<std::string> BasicTokenization::Normalize(std::string_view s, const std::string& op) const {
  std::string t;
  if (!o_.lower_case) {
    MR_ASSIGN_OR_RETURN(t, NormalizeUtf8(form_, s, op));
  } else {
    if (!o_.preserve_unused_token) {
      MR_ASSIGN_OR_RETURN(t, NormalizeUtf8(fold_, s, op));
    } else {
      // Folded piece by piece around the reserved tokens, found as MindSpore
      // finds them: a '[' starts a candidate, the next ']' ends it (the
      // candidate's length counts from the first '[' since the last ']').
      size_t done = 0;
      long start = -1;
      size_t len = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '[') {
          start = static_cast<long>(i);
          ++len;
        } else if (s[i] == ']' && start >= 0) {
          ++len;
          const std::string_view word = s.substr(static_cast<size_t>(start), len);
          if (std::find(kNotFolded.begin(), kNotFolded.end(), word) != kNotFolded.end()) {
            MR_ASSIGN_OR_RETURN(std::string folded, NormalizeUtf8(fold_, s.substr(done, start - done), op));
            t += folded;
            t += word;
            done = static_cast<size_t>(start) + word.size();
          }
          start = -1;
          len = 0;
        } else if (start >= 0) {
          ++len;
        }
      }
      MR_ASSIGN_OR_RETURN(std::string rest, NormalizeUtf8(fold_, s.substr(done), op));
      t += rest;
    }
    MR_ASSIGN_OR_RETURN(t, NormalizeUtf8(nfd_, t, op));
    MR_ASSIGN_OR_RETURN(t, ReplaceAll(*accents_, t, "", op));
  }
  return ReplaceAll(*controls_, t, " ", op);
}

Status BasicTokenization::Tokenize(std::string_view s, Tokens* out, const std::string& op) const {
  MR_ASSIGN_OR_RETURN(std::string t, Normalize(s, op));
  return splitter_.Split(t, out, op);
}

Result<std::unique_ptr<TensorOp>> BasicTokenizerOp::Make(const nlohmann::json& spec) {
  const std::string op = "BasicTokenizer";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"lower_case", "keep_whitespace", "normalization_form",
                                          "preserve_unused_token", "with_offsets"}));
  MR_ASSIGN_OR_RETURN(BasicTokenizerOptions o, BasicTokenizerOptions::FromJson(spec, op));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, op, "with_offsets", false));
  MR_ASSIGN_OR_RETURN(auto basic, BasicTokenization::Make(o, op));
  return std::unique_ptr<TensorOp>(new BasicTokenizerOp(offsets, std::move(o), std::move(basic)));
}

nlohmann::json BasicTokenizerOp::ToJson() const {
  nlohmann::json j = {{"op", name()}, {"with_offsets", with_offsets_}};
  o_.ToJson(&j);
  return j;
}

}  // namespace mindrecord::ops
