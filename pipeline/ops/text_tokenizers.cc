// WhitespaceTokenizer and UnicodeCharTokenizer, and what one-string
// tokenizers share.
#include "pipeline/ops/text_tokenizers.h"

#include <unicode/uscript.h>

#include <cstring>

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/utf8.h"

namespace mindrecord::ops {

namespace {

// Unicode's White_Space property (what ICU's u_isUWhiteSpace tests).
bool IsWhiteSpace(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

Tensor Offsets(const std::vector<int32_t>& v) {
  Tensor t = Tensor::Make(TensorType::kInt32, {static_cast<int64_t>(v.size())});
  if (!v.empty()) std::memcpy(t.MutableData(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

}  // namespace

std::vector<Tensor> Tokens::Finish(bool offsets) {
  if (words.size() == 0) Add("", 0, 0);
  std::vector<Tensor> out;
  out.push_back(words.Finish());
  if (offsets) {
    out.push_back(Offsets(starts));
    out.push_back(Offsets(limits));
  }
  return out;
}

Result<std::string_view> OneString(const Tensor& t, const std::string& op) {
  if (t.type() == TensorType::kString) return std::string_view(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  if (t.type() == TensorType::kStrings && t.shape().empty()) {
    MR_ASSIGN_OR_RETURN(std::vector<std::string_view> one, ReadStrings(t));
    return one[0];
  }
  return Status::InvalidArgument(op + ": the input should be one string, got " + t.DebugString());
}

Result<std::vector<std::string_view>> StringsOf(const Tensor& t, const std::string& op, Shape* shape) {
  if (t.type() == TensorType::kStrings) {
    *shape = t.shape();
    return ReadStrings(t);
  }
  *shape = Shape{};
  MR_ASSIGN_OR_RETURN(std::string_view one, OneString(t, op));
  return std::vector<std::string_view>{one};
}

Result<std::vector<Tensor>> TokenizerOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64&) const {
  if (inputs.size() != 1) return Status::InvalidArgument(name() + ": takes one column");
  MR_ASSIGN_OR_RETURN(std::string_view s, OneString(inputs[0], name()));
  if (s.size() > INT32_MAX) return Status::InvalidArgument(name() + ": a string of 2 GiB or more");
  MR_RETURN_IF_ERROR(CheckUtf8(s, name()));
  Tokens tokens;
  MR_RETURN_IF_ERROR(Tokenize(s, &tokens));
  return tokens.Finish(with_offsets_);
}

Result<Tensor> TokensOnly(const TensorOp& op, bool offsets, Tensor input, std::mt19937_64& rng) {
  if (offsets) return Status::InvalidArgument(op.name() + ": with_offsets gives 3 columns (a map naming them)");
  std::vector<Tensor> in;
  in.push_back(std::move(input));
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> out, op.ApplyColumns(std::move(in), rng));
  return std::move(out[0]);
}

Result<Tensor> TokenizerOp::Apply(Tensor input, std::mt19937_64& rng) const {
  return TokensOnly(*this, with_offsets_, std::move(input), rng);
}

Result<std::unique_ptr<TensorOp>> WhitespaceTokenizerOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "WhitespaceTokenizer", {"with_offsets"}));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, "WhitespaceTokenizer", "with_offsets", false));
  return std::unique_ptr<TensorOp>(new WhitespaceTokenizerOp(offsets));
}

Status WhitespaceTokenizerOp::Tokenize(std::string_view s, Tokens* out) const {
  size_t start = 0;
  bool in_token = false;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(s, i, &cp);
    if (IsWhiteSpace(cp)) {
      if (in_token) out->Add(s.substr(start, i - start), start, i);
      in_token = false;
    } else if (!in_token) {
      start = i;
      in_token = true;
    }
    i += n;
  }
  if (in_token) out->Add(s.substr(start), start, s.size());
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> UnicodeCharTokenizerOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "UnicodeCharTokenizer", {"with_offsets"}));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, "UnicodeCharTokenizer", "with_offsets", false));
  return std::unique_ptr<TensorOp>(new UnicodeCharTokenizerOp(offsets));
}

Status UnicodeCharTokenizerOp::Tokenize(std::string_view s, Tokens* out) const {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(s, i, &cp);
    out->Add(s.substr(i, n), i, i + n);
    i += n;
  }
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> UnicodeScriptTokenizerOp::Make(const nlohmann::json& spec) {
  const std::string op = "UnicodeScriptTokenizer";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"keep_whitespace", "with_offsets"}));
  MR_ASSIGN_OR_RETURN(bool keep, GetBool(spec, op, "keep_whitespace", false));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, op, "with_offsets", false));
  return std::unique_ptr<TensorOp>(new UnicodeScriptTokenizerOp(keep, offsets));
}

Status UnicodeScriptTokenizerOp::Tokenize(std::string_view s, Tokens* out) const {
  size_t start = 0;
  UScriptCode last = USCRIPT_INVALID_CODE;
  bool last_space = false;
  auto emit = [&](size_t end) {
    if (end > start && (keep_whitespace_ || !last_space)) out->Add(s.substr(start, end - start), start, end);
  };
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(s, i, &cp);
    UErrorCode err = U_ZERO_ERROR;
    UScriptCode script = uscript_getScript(static_cast<UChar32>(cp), &err);
    if (U_FAILURE(err)) script = USCRIPT_INVALID_CODE;
    const bool space = IsWhiteSpace(cp);
    if (i > start && (script != last || space != last_space)) {
      emit(i);
      start = i;
    }
    last = script;
    last_space = space;
    i += n;
  }
  emit(s.size());
  return Status::OK();
}

}  // namespace mindrecord::ops
