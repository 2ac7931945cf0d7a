// WhitespaceTokenizer and UnicodeCharTokenizer.
#include "pipeline/ops/text_tokenizers.h"

#include <cstring>

#include "pipeline/ops/op_util.h"
#include "pipeline/strings.h"

namespace mindrecord::ops {

namespace {

// The length of the UTF-8 sequence at s[i] and its code point; 0 when the
// bytes there are not well-formed UTF-8 (overlong forms, surrogates and
// values past U+10FFFF included).
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const size_t left = s.size() - i;
  const uint8_t c = b(0);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n = 0;
  uint32_t v = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (left < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

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

Result<std::string_view> OneString(const Tensor& t, const std::string& op) {
  if (t.type() == TensorType::kString) return std::string_view(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  if (t.type() == TensorType::kStrings && t.shape().empty()) {
    MR_ASSIGN_OR_RETURN(std::vector<std::string_view> one, ReadStrings(t));
    return one[0];
  }
  return Status::InvalidArgument(op + ": the input should be one string, got " + t.DebugString());
}

Result<std::unique_ptr<TensorOp>> TokenizerOp::MakeWhitespace(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "WhitespaceTokenizer", {"with_offsets"}));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, "WhitespaceTokenizer", "with_offsets", false));
  return std::unique_ptr<TensorOp>(new TokenizerOp(Kind::kWhitespace, offsets));
}

Result<std::unique_ptr<TensorOp>> TokenizerOp::MakeUnicodeChar(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "UnicodeCharTokenizer", {"with_offsets"}));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, "UnicodeCharTokenizer", "with_offsets", false));
  return std::unique_ptr<TensorOp>(new TokenizerOp(Kind::kUnicodeChar, offsets));
}

std::string TokenizerOp::name() const {
  return kind_ == Kind::kWhitespace ? "WhitespaceTokenizer" : "UnicodeCharTokenizer";
}

Result<std::vector<Tensor>> TokenizerOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64&) const {
  if (inputs.size() != 1) return Status::InvalidArgument(name() + ": takes one column");
  MR_ASSIGN_OR_RETURN(std::string_view s, OneString(inputs[0], name()));
  StringsBuilder tokens;
  std::vector<int32_t> starts, limits;
  auto add = [&](size_t from, size_t to) {
    tokens.Add(s.substr(from, to - from));
    starts.push_back(static_cast<int32_t>(from));
    limits.push_back(static_cast<int32_t>(to));
  };
  if (s.size() > INT32_MAX) return Status::InvalidArgument(name() + ": a string of 2 GiB or more");
  size_t token_start = 0;
  bool in_token = false;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(s, i, &cp);
    if (n == 0) return Status::InvalidArgument(name() + ": the string is not UTF-8 at byte " + std::to_string(i));
    if (kind_ == Kind::kUnicodeChar) {
      add(i, i + n);
    } else if (IsWhiteSpace(cp)) {
      if (in_token) add(token_start, i);
      in_token = false;
    } else if (!in_token) {
      token_start = i;
      in_token = true;
    }
    i += n;
  }
  if (in_token) add(token_start, s.size());
  if (tokens.size() == 0) add(0, 0);
  std::vector<Tensor> out;
  out.push_back(tokens.Finish());
  if (with_offsets_) {
    out.push_back(Offsets(starts));
    out.push_back(Offsets(limits));
  }
  return out;
}

Result<Tensor> TokenizerOp::Apply(Tensor input, std::mt19937_64& rng) const {
  if (with_offsets_) return Status::InvalidArgument(name() + ": with_offsets gives 3 columns (a map naming them)");
  std::vector<Tensor> in;
  in.push_back(std::move(input));
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> out, ApplyColumns(std::move(in), rng));
  return std::move(out[0]);
}

}  // namespace mindrecord::ops
