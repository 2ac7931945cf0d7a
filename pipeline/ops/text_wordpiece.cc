// WordpieceTokenizer and BertTokenizer.
#include "pipeline/ops/text_wordpiece.h"

#include "pipeline/ops/op_util.h"
#include "pipeline/ops/utf8.h"

namespace mindrecord::ops {

Result<WordPiece> WordPiece::FromJson(const nlohmann::json& spec, const std::string& op) {
  WordPiece w;
  if (!spec.contains("vocab") || !spec["vocab"].is_object())
    return Status::InvalidArgument(op + ": parameter 'vocab' must be an object of token: id");
  auto words = std::make_shared<Words>();
  for (auto it = spec["vocab"].begin(); it != spec["vocab"].end(); ++it) words->insert(it.key());
  w.words_ = std::move(words);
  w.vocab_json_ = std::make_shared<const nlohmann::json>(spec["vocab"]);
  MR_ASSIGN_OR_RETURN(w.o_.suffix, GetString(spec, op, "suffix_indicator", "##"));
  MR_ASSIGN_OR_RETURN(w.o_.unknown, GetString(spec, op, "unknown_token", "[UNK]"));
  if (spec.contains("max_bytes_per_token")) {
    const nlohmann::json& v = spec["max_bytes_per_token"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
      return BadParameter(op, "max_bytes_per_token", "must be an integer in [0, 2^31), got " + v.dump());
    w.o_.max_bytes = v.get<int64_t>();
  }
  return w;
}

void WordPiece::ToJson(nlohmann::json* j) const {
  (*j)["vocab"] = *vocab_json_;
  (*j)["suffix_indicator"] = o_.suffix;
  (*j)["max_bytes_per_token"] = o_.max_bytes;
  (*j)["unknown_token"] = o_.unknown;
}

Status WordPiece::Split(std::string_view token, size_t at, Tokens* out, const std::string& op) const {
  const std::string_view unknown = o_.unknown.empty() ? token : std::string_view(o_.unknown);
  if (static_cast<int64_t>(token.size()) > o_.max_bytes) {
    out->Add(unknown, at, at + unknown.size());
    return Status::OK();
  }
  MR_RETURN_IF_ERROR(CheckUtf8(token, op));
  std::vector<size_t> ends;  // where each code point ends
  for (size_t i = 0; i < token.size();) {
    uint32_t cp = 0;
    i += DecodeUtf8(token, i, &cp);
    ends.push_back(i);
  }
  struct Piece {
    std::string text;
    size_t start, end;
  };
  std::vector<Piece> pieces;
  std::string word;
  for (size_t start = 0; start < token.size();) {
    size_t end = 0;
    for (size_t k = ends.size(); k-- > 0 && ends[k] > start;) {  // the longest piece first
      word.assign(start > 0 ? o_.suffix : std::string());
      word.append(token.substr(start, ends[k] - start));
      if (words_->count(std::string_view(word))) {
        end = ends[k];
        break;
      }
    }
    if (end == 0) {  // no piece from here: the whole token is unknown
      out->Add(unknown, at, at + token.size());
      return Status::OK();
    }
    pieces.push_back({word, start, end});
    start = end;
  }
  for (const Piece& p : pieces) out->Add(p.text, at + p.start, at + p.end);
  return Status::OK();
}

Result<std::unique_ptr<TensorOp>> WordpieceTokenizerOp::Make(const nlohmann::json& spec) {
  const std::string op = "WordpieceTokenizer";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"vocab", "suffix_indicator", "max_bytes_per_token", "unknown_token",
                                          "with_offsets"}));
  MR_ASSIGN_OR_RETURN(WordPiece w, WordPiece::FromJson(spec, op));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, op, "with_offsets", false));
  return std::unique_ptr<TensorOp>(new WordpieceTokenizerOp(std::move(w), offsets));
}

nlohmann::json WordpieceTokenizerOp::ToJson() const {
  nlohmann::json j = {{"op", name()}, {"with_offsets", with_offsets_}};
  wordpiece_.ToJson(&j);
  return j;
}

Result<std::vector<Tensor>> WordpieceTokenizerOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64&) const {
  if (inputs.size() != 1) return Status::InvalidArgument(name() + ": takes one column");
  const Tensor& in = inputs[0];
  std::vector<std::string_view> tokens;
  if (in.type() == TensorType::kStrings && in.shape().size() <= 1) {
    MR_ASSIGN_OR_RETURN(tokens, ReadStrings(in));
  } else if (in.type() == TensorType::kString) {
    tokens.emplace_back(reinterpret_cast<const char*>(in.data()), in.size_bytes());
  } else {
    return Status::InvalidArgument(name() + ": expected one string or a 1-D array of strings, got " + in.DebugString());
  }
  Tokens out;
  for (std::string_view t : tokens) MR_RETURN_IF_ERROR(wordpiece_.Split(t, 0, &out, name()));
  return out.Finish(with_offsets_);
}

Result<Tensor> WordpieceTokenizerOp::Apply(Tensor input, std::mt19937_64& rng) const {
  return TokensOnly(*this, with_offsets_, std::move(input), rng);
}

Result<std::unique_ptr<TensorOp>> BertTokenizerOp::Make(const nlohmann::json& spec) {
  const std::string op = "BertTokenizer";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"vocab", "suffix_indicator", "max_bytes_per_token", "unknown_token",
                                          "lower_case", "keep_whitespace", "normalization_form",
                                          "preserve_unused_token", "with_offsets"}));
  MR_ASSIGN_OR_RETURN(WordPiece w, WordPiece::FromJson(spec, op));
  MR_ASSIGN_OR_RETURN(BasicTokenizerOptions o, BasicTokenizerOptions::FromJson(spec, op));
  MR_ASSIGN_OR_RETURN(bool offsets, GetBool(spec, op, "with_offsets", false));
  MR_ASSIGN_OR_RETURN(auto basic, BasicTokenization::Make(o, op));
  return std::unique_ptr<TensorOp>(new BertTokenizerOp(offsets, std::move(o), std::move(basic), std::move(w)));
}

nlohmann::json BertTokenizerOp::ToJson() const {
  nlohmann::json j = {{"op", name()}, {"with_offsets", with_offsets_}};
  o_.ToJson(&j);
  wordpiece_.ToJson(&j);
  return j;
}

Status BertTokenizerOp::Tokenize(std::string_view s, Tokens* out) const {
  Tokens basic;
  MR_RETURN_IF_ERROR(basic_->Tokenize(s, &basic, name()));
  const Tensor basic_words = basic.words.Finish();
  MR_ASSIGN_OR_RETURN(std::vector<std::string_view> words, ReadStrings(basic_words));
  for (size_t i = 0; i < words.size(); ++i)
    MR_RETURN_IF_ERROR(wordpiece_.Split(words[i], static_cast<size_t>(basic.starts[i]), out, name()));
  return Status::OK();
}

}  // namespace mindrecord::ops
