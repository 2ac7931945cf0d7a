// SQuADDataset's JSON files (catalog_layouts.h): train-v1.1.json and / or
// train-v2.0.json (usage train), dev-v1.1.json / dev-v2.0.json (dev; all:
// train then dev), each file that is there, v1.1 first. A row per question
// (data[].paragraphs[].qas[]) in the file's order: context and question
// (strings), text and answer_start (the answers', a 1-D string array and
// int32 array; a question without answers, SQuAD 2.0's unanswerable ones,
// [""] and [-1], MindSpore's uint32 [4294967295]). The files are parsed as
// a stream of JSON events (never a whole document tree); a paragraph's
// context is one tensor its questions share.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/strings.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSquadWho = "SQuADDataset";

using Places = std::vector<std::string>;

Places Join(const Places& a, std::initializer_list<const char*> b) {
  Places out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The places of the containers read: the root object (""), data[], its
// articles' paragraphs[], their qas[] and the questions' answers[].
const Places kSquadData = {"", "data"};
const Places kSquadArticle = Join(kSquadData, {"[]"});
const Places kSquadParagraph = Join(kSquadArticle, {"paragraphs", "[]"});
const Places kSquadQuestion = Join(kSquadParagraph, {"qas", "[]"});
const Places kSquadAnswer = Join(kSquadQuestion, {"answers", "[]"});

// Builds the rows from the parser's events. Each open container is known
// by its place: the key it sits under, or "[]" in an array; only the values
// at data[].paragraphs[].{context, qas[].{question, answers[].{text,
// answer_start}}} are read, other keys (id, title, is_impossible,
// plausible_answers) are skipped whatever they hold.
class SquadHandler : public nlohmann::json_sax<nlohmann::json> {
 public:
  SquadHandler(Catalog* out, std::string file) : out_(out), file_(std::move(file)) {}

  // Empty when the file parsed into rows.
  std::string Finish() {
    if (!error_.empty()) return error_;
    if (!has_data_) return file_ + ": no 'data' list of articles";
    return {};
  }

  bool null() override { return Scalar("null"); }
  bool boolean(bool) override { return Scalar("a bool"); }
  bool number_integer(number_integer_t v) override { return Integer(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return Integer(v > static_cast<number_unsigned_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v));
  }
  bool number_float(number_float_t, const string_t&) override { return Scalar("a fraction"); }
  bool binary(binary_t&) override { return Scalar("binary data"); }
  bool string(string_t& s) override {
    const std::string at = At();
    if (In(kSquadParagraph) && at == "context") {
      paragraph_.context = s;
      paragraph_.has_context = true;
    } else if (In(kSquadQuestion) && at == "question") {
      question_.question = s;
      question_.has_question = true;
    } else if (In(kSquadAnswer) && at == "text") {
      answer_.text = s;
      answer_.has_text = true;
    } else {
      return Scalar("a string");
    }
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool start_object(std::size_t) override {
    if (!Scalar("an object")) return false;
    Open(false);
    if (places_ == kSquadAnswer) answer_ = {};
    else if (places_ == kSquadQuestion) question_ = {};
    else if (places_ == kSquadParagraph) paragraph_ = {};
    else if (places_ == kSquadArticle) has_paragraphs_ = false;
    return true;
  }
  bool end_object() override {
    bool ok = true;
    if (places_ == kSquadAnswer) ok = EndAnswer();
    else if (places_ == kSquadQuestion) ok = EndQuestion();
    else if (places_ == kSquadParagraph) ok = EndParagraph();
    else if (places_ == kSquadArticle && !has_paragraphs_) ok = Fail("an article without a 'paragraphs' list");
    Close();
    return ok;
  }
  bool start_array(std::size_t) override {
    const std::string at = At();
    const bool listed = (places_ == Places{""} && at == "data") || (In(kSquadArticle) && at == "paragraphs") ||
                        (In(kSquadParagraph) && at == "qas") || (In(kSquadQuestion) && at == "answers");
    Open(true);
    if (!listed) return true;
    if (places_ == kSquadData) has_data_ = true;
    else if (at == "paragraphs") has_paragraphs_ = true;
    else if (at == "qas") paragraph_.has_qas = true;
    else question_.has_answers = true;
    return true;
  }
  bool end_array() override {
    Close();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = file_ + ": not JSON at byte " + std::to_string(position) + " (" + e.what() + ")";
    return false;
  }

 private:
  struct Answer {
    bool has_text = false, has_start = false;
    std::string text;
    int32_t start = 0;
  };
  struct Question {
    bool has_question = false, has_answers = false;
    std::string question;
    std::vector<std::string> texts;
    std::vector<int32_t> starts;
  };
  struct Paragraph {
    bool has_context = false, has_qas = false;
    std::string context;
    std::vector<Question> questions;
  };

  // The place of the value or container that comes next.
  std::string At() const { return !arrays_.empty() && arrays_.back() ? std::string("[]") : key_; }
  bool In(const Places& container) const { return places_ == container; }
  void Open(bool array) {
    places_.push_back(places_.empty() ? std::string() : At());
    arrays_.push_back(array);
  }
  void Close() {
    places_.pop_back();
    arrays_.pop_back();
  }

  bool Integer(int64_t v) {
    if (!(In(kSquadAnswer) && At() == "answer_start")) return Scalar("a number");
    if (v < 0 || v > INT32_MAX) return Fail("an answer_start that is not an offset from 0 to 2^31-1");
    answer_.start = static_cast<int32_t>(v);
    answer_.has_start = true;
    return true;
  }
  // A value of another kind than the key read there wants: an error where
  // it is one of them, skipped elsewhere.
  bool Scalar(const char* what) {
    const std::string at = At();
    const bool read = (places_ == Places{""} && at == "data") || (In(kSquadArticle) && at == "paragraphs") ||
                      (In(kSquadParagraph) && (at == "context" || at == "qas")) ||
                      (In(kSquadQuestion) && (at == "question" || at == "answers")) ||
                      (In(kSquadAnswer) && (at == "text" || at == "answer_start"));
    if (read) return Fail("'" + at + "' is " + what);
    return true;
  }
  bool Fail(const std::string& what) {
    if (error_.empty()) error_ = file_ + ": " + what + " (question " + std::to_string(out_->values.size() / 4 +
                                                                                   paragraph_.questions.size() + 1) +
                                 ")";
    return false;
  }
  bool EndAnswer() {
    if (!answer_.has_text || !answer_.has_start) return Fail("an answer without 'text' or 'answer_start'");
    question_.texts.push_back(std::move(answer_.text));
    question_.starts.push_back(answer_.start);
    return true;
  }
  bool EndQuestion() {
    if (!question_.has_question || !question_.has_answers) return Fail("a question without 'question' or 'answers'");
    paragraph_.questions.push_back(std::move(question_));
    return true;
  }
  bool EndParagraph() {
    if (!paragraph_.has_context || !paragraph_.has_qas) return Fail("a paragraph without 'context' or 'qas'");
    const Tensor context = Tensor::FromString(TensorType::kString, std::move(paragraph_.context));
    for (auto& q : paragraph_.questions) {
      if (q.texts.empty()) {  // unanswerable (SQuAD 2.0)
        q.texts.emplace_back();
        q.starts.push_back(-1);
      }
      out_->values.push_back(context);  // one buffer, shared by the paragraph's questions
      out_->values.push_back(Tensor::FromString(TensorType::kString, std::move(q.question)));
      out_->values.push_back(MakeStrings(Shape{static_cast<int64_t>(q.texts.size())}, q.texts));
      out_->values.push_back(CatalogInt32s({static_cast<int64_t>(q.starts.size())}, q.starts));
    }
    paragraph_ = {};
    return true;
  }

  Catalog* out_;
  std::string file_;
  std::string error_;
  std::string key_;
  Places places_;
  std::vector<bool> arrays_;
  bool has_data_ = false, has_paragraphs_ = false;
  Paragraph paragraph_;
  Question question_;
  Answer answer_;
};

}  // namespace

Result<Catalog> ListSquad(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> splits;
  if (usage == "train" || usage == "all") splits.push_back("train");
  if (usage == "dev" || usage == "all") splits.push_back("dev");
  if (splits.empty())
    return Status::InvalidArgument(std::string(kSquadWho) + ": usage must be 'train', 'dev' or 'all', got '" + usage +
                                   "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"context", "question", "text", "answer_start"};
  for (const auto& split : splits) {
    bool found = false;
    for (const char* version : {"v1.1", "v2.0"}) {
      const fs::path file = dir / (split + "-" + version + ".json");
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) continue;
      found = true;
      MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(file.string(), kSquadWho));
      SquadHandler handler(&c, file.string());
      const bool parsed = nlohmann::json::sax_parse(text, &handler);
      std::string error = handler.Finish();
      if (!parsed && error.empty()) error = file.string() + ": not JSON";
      if (!error.empty()) return Status::Corruption(std::string(kSquadWho) + ": " + error);
    }
    if (!found)
      return Status::NotFound(std::string(kSquadWho) + ": no " + split + "-v1.1.json or " + split +
                              "-v2.0.json in " + dir.string());
  }
  return c;
}

}  // namespace mindrecord
