// CaseFold, NormalizeUTF8 and RegexReplace through ICU.
#include "pipeline/ops/text_normalize.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/unistr.h>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/text_tokenizers.h"
#include "pipeline/ops/utf8.h"

namespace mindrecord::ops {

Result<const icu::Normalizer2*> CaseFolder(const std::string& op) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(err);
  if (U_FAILURE(err) || n == nullptr) return Status::Internal(op + ": ICU's NFKC_Casefold: " + u_errorName(err));
  return n;
}

Result<std::string> NormalizeUtf8(const icu::Normalizer2* n, std::string_view s, const std::string& op) {
  MR_RETURN_IF_ERROR(CheckUtf8(s, op));
  if (n == nullptr) return std::string(s);
  std::string out;
  icu::StringByteSink<std::string> sink(&out);
  UErrorCode err = U_ZERO_ERROR;
  n->normalizeUTF8(0, icu::StringPiece(s.data(), static_cast<int32_t>(s.size())), sink, nullptr, err);
  if (U_FAILURE(err)) return Status::InvalidArgument(op + ": ICU could not normalize the string: " + u_errorName(err));
  return out;
}

Result<const icu::Normalizer2*> NormalizerFor(const std::string& form, const std::string& op, const char* key) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  if (form == "nfc") {
    n = icu::Normalizer2::getNFCInstance(err);
  } else if (form == "nfkc") {
    n = icu::Normalizer2::getNFKCInstance(err);
  } else if (form == "nfd") {
    n = icu::Normalizer2::getNFDInstance(err);
  } else if (form == "nfkd") {
    n = icu::Normalizer2::getNFKDInstance(err);
  } else if (form != "none") {
    return BadParameter(op, key, "must be none, nfc, nfkc, nfd or nfkd, got '" + form + "'");
  }
  if (U_FAILURE(err)) return Status::Internal(op + ": ICU's normalizer: " + u_errorName(err));
  return n;
}

Status RegexError(UErrorCode err, const std::string& op) {
  return Status::InvalidArgument(op + ": a regular expression failed: " + u_errorName(err) +
                                 (err == U_REGEX_TIME_OUT ? " (it ran past its step limit on this string)" : ""));
}

Status ReplaceMatches(icu::RegexMatcher* m, const icu::UnicodeString& with, bool all, icu::UnicodeString* out,
                      const std::string& op) {
  // find() with a status, not replaceAll(): ICU's replaceAll drops the
  // step limit's error and returns what it had.
  UErrorCode err = U_ZERO_ERROR;
  m->setTimeLimit(kRegexStepLimit, err);
  while (U_SUCCESS(err) && m->find(err) && U_SUCCESS(err)) {
    m->appendReplacement(*out, with, err);
    if (!all) break;
  }
  if (U_FAILURE(err)) return RegexError(err, op);
  m->appendTail(*out);
  return Status::OK();
}

Result<std::unique_ptr<icu::RegexPattern>> CompileRegex(const std::string& pattern, const std::string& op,
                                                        const char* key) {
  MR_RETURN_IF_ERROR(CheckUtf8(pattern, op));
  UParseError where{};
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<icu::RegexPattern> p(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(pattern), 0, where, err));
  if (U_FAILURE(err) || !p)
    return BadParameter(op, key, "'" + pattern + "' is not an ICU regular expression (" + u_errorName(err) +
                                     " at offset " + std::to_string(where.offset) + ")");
  return p;
}

Result<std::unique_ptr<TensorOp>> CaseFoldOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "CaseFold", {}));
  MR_RETURN_IF_ERROR(CaseFolder("CaseFold").status());
  return std::unique_ptr<TensorOp>(new CaseFoldOp());
}

Result<Tensor> CaseFoldOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(const icu::Normalizer2* n, CaseFolder(name()));
  return MapStrings(input, name(), [&](std::string_view s) { return NormalizeUtf8(n, s, "CaseFold"); });
}

Result<std::unique_ptr<TensorOp>> NormalizeUTF8Op::Make(const nlohmann::json& spec) {
  const std::string op = "NormalizeUTF8";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"normalize_form"}));
  auto o = std::unique_ptr<NormalizeUTF8Op>(new NormalizeUTF8Op());
  MR_ASSIGN_OR_RETURN(o->form_, GetString(spec, op, "normalize_form", "nfkc"));
  MR_ASSIGN_OR_RETURN(o->normalizer_, NormalizerFor(o->form_, op, "normalize_form"));
  return std::unique_ptr<TensorOp>(std::move(o));
}

Result<Tensor> NormalizeUTF8Op::Apply(Tensor input, std::mt19937_64&) const {
  return MapStrings(input, name(), [&](std::string_view s) { return NormalizeUtf8(normalizer_, s, "NormalizeUTF8"); });
}

Result<std::unique_ptr<TensorOp>> RegexReplaceOp::Make(const nlohmann::json& spec) {
  const std::string op = "RegexReplace";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"pattern", "replace", "replace_all"}));
  auto o = std::unique_ptr<RegexReplaceOp>(new RegexReplaceOp());
  if (!spec.contains("pattern") || !spec["pattern"].is_string()) return BadParameter(op, "pattern", "must be a string");
  if (!spec.contains("replace") || !spec["replace"].is_string()) return BadParameter(op, "replace", "must be a string");
  o->pattern_ = spec["pattern"].get<std::string>();
  o->replace_ = spec["replace"].get<std::string>();
  MR_RETURN_IF_ERROR(CheckUtf8(o->replace_, op));
  MR_ASSIGN_OR_RETURN(o->all_, GetBool(spec, op, "replace_all", true));
  MR_ASSIGN_OR_RETURN(o->compiled_, CompileRegex(o->pattern_, op, "pattern"));
  return std::unique_ptr<TensorOp>(std::move(o));
}

RegexReplaceOp::~RegexReplaceOp() = default;

Result<std::string> RegexReplaceOp::Replace(std::string_view s) const {
  MR_RETURN_IF_ERROR(CheckUtf8(s, name()));
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<icu::RegexMatcher> m(compiled_->matcher(text, err));
  if (U_FAILURE(err)) return Status::Internal(name() + ": ICU matcher: " + u_errorName(err));
  icu::UnicodeString out;
  MR_RETURN_IF_ERROR(ReplaceMatches(m.get(), icu::UnicodeString::fromUTF8(replace_), all_, &out, name()));
  std::string utf8;
  out.toUTF8String(utf8);
  return utf8;
}

Result<Tensor> RegexReplaceOp::Apply(Tensor input, std::mt19937_64&) const {
  return MapStrings(input, name(), [&](std::string_view s) { return Replace(s); });
}

}  // namespace mindrecord::ops
