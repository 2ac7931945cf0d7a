// Arrays of strings (pipeline/strings.h) and the text ops over them, against
// values worked out by hand from MindSpore's kernels; their way through
// batches, caches and the op guard.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <fstream>

#include "pipeline/batch.h"
#include "pipeline/cache/cache_entry.h"
#include "pipeline/strings.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "tests/pipeline/ops_test_util.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::Op;

Tensor Strings(std::vector<std::string> s, std::optional<Shape> shape = std::nullopt) {
  return MakeStrings(shape ? *shape : Shape{static_cast<int64_t>(s.size())}, std::span<const std::string>(s));
}

std::vector<std::string> Items(const Tensor& t) {
  auto r = ReadStrings(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  return std::vector<std::string>(r->begin(), r->end());
}

std::vector<Tensor> RunCols(const nlohmann::json& spec, std::vector<Tensor> in) {
  auto op = Op(spec);
  std::mt19937_64 rng(0);
  EXPECT_TRUE(CheckStringInputs(*op, in.data(), in.size()).ok());
  auto r = op->ApplyColumns(std::move(in), rng);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : std::vector<Tensor>{};
}

Tensor Run1(const nlohmann::json& spec, Tensor in) {
  std::vector<Tensor> v;
  v.push_back(std::move(in));
  auto out = RunCols(spec, std::move(v));
  return out.empty() ? Tensor() : out[0];
}

std::string TextErrorOf(const nlohmann::json& spec, Tensor in) {
  auto op = Op(spec);
  std::mt19937_64 rng(0);
  auto r = op->Apply(std::move(in), rng);
  return r.ok() ? "" : r.status().message();
}

template <typename T>
std::vector<T> TextValues(const Tensor& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.num_elements());
}

TEST(StringsTest, BuildReadAndRefuseBadOffsets) {
  Tensor t = Strings({"ab", "", "cde", "f"}, Shape{2, 2});
  EXPECT_EQ(t.type(), TensorType::kStrings);
  EXPECT_EQ(t.shape(), Shape({2, 2}));
  EXPECT_EQ(t.size_bytes(), 5 * 8 + 6u);
  EXPECT_EQ(Items(t), (std::vector<std::string>{"ab", "", "cde", "f"}));
  EXPECT_FALSE(t.Subtensor(0).defined());  // sizes are no element counts
  // Offsets that do not describe the buffer, as bytes restored from elsewhere may hold.
  std::vector<uint8_t> bytes(t.data(), t.data() + t.size_bytes());
  bytes[8 * 2] = 200;  // offsets[2] past the characters
  Tensor bad = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(bytes.size())});
  std::memcpy(bad.MutableData(), bytes.data(), bytes.size());
  EXPECT_FALSE(ReadStrings(bad.AsStrings({2, 2})).ok());
  EXPECT_FALSE(ReadStrings(bad.AsStrings({9})).ok());  // more strings than offsets
}

TEST(TextOpsTest, TokenizersSplitAndGiveByteOffsets) {
  auto out = RunCols({{"op", "WhitespaceTokenizer"}, {"with_offsets", true}},
                 {Tensor::FromString(TensorType::kString, "a  b\xc2\xa0" "c\td\xe3\x80\x80")});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Items(out[0]), (std::vector<std::string>{"a", "b", "c", "d"}));  // U+00A0 and U+3000 are white space
  EXPECT_EQ(TextValues<int32_t>(out[1]), (std::vector<int32_t>{0, 3, 6, 8}));
  EXPECT_EQ(TextValues<int32_t>(out[2]), (std::vector<int32_t>{1, 4, 7, 9}));
  EXPECT_EQ(Items(Run1({{"op", "WhitespaceTokenizer"}}, Tensor::FromString(TensorType::kString, " \n"))),
            std::vector<std::string>{""});  // no token: one empty token
  Tensor chars = Run1({{"op", "UnicodeCharTokenizer"}}, Strings({"h\xc3\xa9!"}, Shape{}));
  EXPECT_EQ(Items(chars), (std::vector<std::string>{"h", "\xc3\xa9", "!"}));
  EXPECT_NE(TextErrorOf({{"op", "UnicodeCharTokenizer"}}, Tensor::FromString(TensorType::kString, "a\xff")).find("not UTF-8 at byte 1"),
            std::string::npos);
  EXPECT_NE(TextErrorOf({{"op", "WhitespaceTokenizer"}}, Strings({"a", "b"})).find("should be one string"),
            std::string::npos);
  auto script = RunCols({{"op", "UnicodeScriptTokenizer"}, {"with_offsets", true}},
                        {Tensor::FromString(TensorType::kString, "ab\xe4\xb8\xad, 12")});  // ab中, 12
  EXPECT_EQ(Items(script[0]), (std::vector<std::string>{"ab", "\xe4\xb8\xad", ",", "12"}));
  EXPECT_EQ(TextValues<int32_t>(script[1]), (std::vector<int32_t>{0, 2, 5, 7}));
}

TEST(TextOpsTest, LookupMapsTokensToIds) {
  nlohmann::json spec = {{"op", "Lookup"}, {"vocab", {{"the", 2}, {"cat", 3}, {"<unk>", 1}}}, {"unknown_id", 1}};
  Tensor ids = Run1(spec, Strings({"the", "dog", "cat", "the"}, Shape{2, 2}));
  EXPECT_EQ(ids.type(), TensorType::kInt32);
  EXPECT_EQ(ids.shape(), Shape({2, 2}));
  EXPECT_EQ(TextValues<int32_t>(ids), (std::vector<int32_t>{2, 1, 3, 2}));
  spec["data_type"] = "int64";
  Tensor one = Run1(spec, Tensor::FromString(TensorType::kString, "cat"));
  EXPECT_EQ(one.type(), TensorType::kInt64);
  EXPECT_TRUE(one.shape().empty());
  EXPECT_EQ(TextValues<int64_t>(one), std::vector<int64_t>{3});
  spec.erase("unknown_id");
  EXPECT_NE(TextErrorOf(spec, Strings({"the", "dog"})).find("\"dog\" is not in the vocabulary"), std::string::npos);
  EXPECT_EQ(Op(spec)->ToJson()["vocab"], spec["vocab"]);  // round-trips through the plan
  EXPECT_FALSE(MakeOp({{"op", "Lookup"}, {"vocab", {{"a", -1}}}}).ok());
}

TEST(TextOpsTest, SequenceOpsOnStringsAndNumbers) {
  Tensor abc = Strings({"a", "b", "c"});
  EXPECT_EQ(Items(Run1({{"op", "Ngram"}, {"n", {2, 3, 6, 7}}, {"left_pad", {"_", 1}}, {"right_pad", {"-", 2}}}, abc)),
            (std::vector<std::string>{"_ a", "a b", "b c", "c -", "_ a b", "a b c", "b c -", "c - -", "_ a b c - -", ""}));  // n = 7: longer than the padded 6
  Tensor win = Run1({{"op", "SlidingWindow"}, {"width", 2}}, abc);
  EXPECT_EQ(win.shape(), Shape({2, 2}));
  EXPECT_EQ(Items(win), (std::vector<std::string>{"a", "b", "b", "c"}));
  EXPECT_EQ(Run1({{"op", "SlidingWindow"}, {"width", 4}}, abc).shape(), Shape({0}));
  Tensor nums = Tensor::Make(TensorType::kInt64, {4});
  for (int i = 0; i < 4; ++i) nums.mutable_data_as<int64_t>()[i] = 10 + i;
  Tensor nwin = Run1({{"op", "SlidingWindow"}, {"width", 3}}, nums);
  EXPECT_EQ(nwin.shape(), Shape({2, 3}));
  EXPECT_EQ(TextValues<int64_t>(nwin), (std::vector<int64_t>{10, 11, 12, 11, 12, 13}));
  Tensor cut = Run1({{"op", "Truncate"}, {"max_seq_len", 2}}, Strings({"a", "b", "c", "d", "e", "f"}, Shape{2, 3}));
  EXPECT_EQ(cut.shape(), Shape({2, 2}));
  EXPECT_EQ(Items(cut), (std::vector<std::string>{"a", "b", "d", "e"}));
  auto pair = RunCols({{"op", "TruncateSequencePair"}, {"max_length", 4}}, {nums, abc});
  EXPECT_EQ(TextValues<int64_t>(pair[0]), (std::vector<int64_t>{10, 11}));  // 4 + 3 > 4: the longer loses first
  EXPECT_EQ(Items(pair[1]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Items(Run1({{"op", "AddToken"}, {"token", "<s>"}, {"begin", false}}, Strings({"x", "y"}, Shape{2, 1}))),
            (std::vector<std::string>{"x", "<s>", "y", "<s>"}));
  Tensor num = Run1({{"op", "ToNumber"}, {"data_type", "int16"}}, Strings({"12", "-3", "+7"}));
  EXPECT_EQ(TextValues<int16_t>(num), (std::vector<int16_t>{12, -3, 7}));
  Tensor f = Run1({{"op", "ToNumber"}, {"data_type", "float32"}}, Strings({"1.5", "-2e3"}));
  EXPECT_EQ(TextValues<float>(f), (std::vector<float>{1.5f, -2000.0f}));
  EXPECT_NE(TextErrorOf({{"op", "ToNumber"}, {"data_type", "int8"}}, Strings({"300"})).find("\"300\""), std::string::npos);
  EXPECT_NE(TextErrorOf({{"op", "ToNumber"}, {"data_type", "int32"}}, Strings({"12abc"})).find("not a number"),
            std::string::npos);
  EXPECT_NE(TextErrorOf({{"op", "ToNumber"}, {"data_type", "float32"}}, Strings({"1e300"})).find("range"),
            std::string::npos);
}

TEST(TextOpsTest, IcuNormalizationAndRegularExpressions) {
  EXPECT_EQ(Items(Run1({{"op", "CaseFold"}}, Strings({"Stra\xc3\x9f" "e", "\xef\xac\x81"}))),  // Straße, the fi ligature
            (std::vector<std::string>{"strasse", "fi"}));
  Tensor nfd = Run1({{"op", "NormalizeUTF8"}, {"normalize_form", "nfd"}}, Tensor::FromString(TensorType::kString, "\xc3\xa9"));
  EXPECT_EQ(nfd.type(), TensorType::kString);  // one string in, one out
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(nfd.data()), nfd.size_bytes()), "e\xcc\x81");
  EXPECT_EQ(Items(Run1({{"op", "RegexReplace"}, {"pattern", "(\\w)(\\d)"}, {"replace", "$2$1"}}, Strings({"a1 b2", "c3"}))),
            (std::vector<std::string>{"1a 2b", "3c"}));  // every string of the array (MindSpore's wrote only the first)
  EXPECT_EQ(Items(Run1({{"op", "RegexReplace"}, {"pattern", "o"}, {"replace", "0"}, {"replace_all", false}},
                       Strings({"foo"}))),
            std::vector<std::string>{"f0o"});
  auto split = RunCols({{"op", "RegexTokenizer"}, {"delim_pattern", "\\s+|[,.]"}, {"keep_delim_pattern", "[,.]"},
                        {"with_offsets", true}},
                       {Tensor::FromString(TensorType::kString, "Hi, w\xc3\xb6rld. ok")});
  EXPECT_EQ(Items(split[0]), (std::vector<std::string>{"Hi", ",", "w\xc3\xb6rld", ".", "ok"}));
  EXPECT_EQ(TextValues<int32_t>(split[1]), (std::vector<int32_t>{0, 2, 4, 10, 12}));  // bytes: ö is two
  EXPECT_EQ(TextValues<int32_t>(split[2]), (std::vector<int32_t>{2, 3, 10, 11, 14}));
  EXPECT_FALSE(MakeOp({{"op", "RegexTokenizer"}, {"delim_pattern", "(unclosed"}}).ok());
  // A pattern that backtracks without end on this input stops at ICU's step limit.
  const std::string hostile = std::string(40, 'a') + "!";
  EXPECT_NE(TextErrorOf({{"op", "RegexReplace"}, {"pattern", "(a+)+$"}, {"replace", ""}},
                        Tensor::FromString(TensorType::kString, hostile)).find("step limit"),
            std::string::npos);
  EXPECT_NE(TextErrorOf({{"op", "RegexTokenizer"}, {"delim_pattern", "(a+)+$"}},
                        Tensor::FromString(TensorType::kString, hostile)).find("step limit"),
            std::string::npos);
}

TEST(TextOpsTest, BertTokenizersAsMindSporeTestsThem) {
  nlohmann::json vocab = nlohmann::json::object();
  int id = 0;
  for (const char* w : {"i", "am", "mak", "##ing", "small", "mistake", "##s", "during", "work", "hour", "I", "[CLS]",
                        "[UNK]", " ", "\xe5\xa4\xa7", "\xe7\xac\x91"})
    vocab[w] = id++;
  nlohmann::json bert = {{"op", "BertTokenizer"}, {"vocab", vocab}, {"lower_case", true}};
  EXPECT_EQ(Items(Run1(bert, Tensor::FromString(TensorType::kString, "I am making small mistakes during working hours"))),
            (std::vector<std::string>{"i", "am", "mak", "##ing", "small", "mistake", "##s", "during", "work", "##ing",
                                      "hour", "##s"}));
  EXPECT_EQ(Items(Run1(bert, Tensor::FromString(TensorType::kString, "\xe5\xa4\xa7\xe7\xac\x91!"))),  // 大笑!
            (std::vector<std::string>{"\xe5\xa4\xa7", "\xe7\xac\x91", "[UNK]"}));
  bert["lower_case"] = false;
  bert["keep_whitespace"] = true;
  EXPECT_EQ(Items(Run1(bert, Tensor::FromString(TensorType::kString, "unused [CLS]"))),
            (std::vector<std::string>{"[UNK]", " ", "[CLS]"}));
  bert["unknown_token"] = "";
  bert["preserve_unused_token"] = false;
  EXPECT_EQ(Items(Run1(bert, Tensor::FromString(TensorType::kString, "unused [CLS]"))),
            (std::vector<std::string>{"unused", " ", "[", "CLS", "]"}));
  auto pieces = RunCols({{"op", "WordpieceTokenizer"}, {"vocab", vocab}, {"with_offsets", true}, {"max_bytes_per_token", 6}},
                        {Strings({"making", "hours", "xyz", "mistakes"})});
  EXPECT_EQ(Items(pieces[0]), (std::vector<std::string>{"mak", "##ing", "hour", "##s", "[UNK]", "[UNK]"}));
  EXPECT_EQ(TextValues<int32_t>(pieces[1]), (std::vector<int32_t>{0, 3, 0, 4, 0, 0}));
  EXPECT_EQ(TextValues<int32_t>(pieces[2]), (std::vector<int32_t>{3, 6, 4, 5, 3, 5}));  // too long: the unknown's length
}

TEST(TextOpsTest, GeneralOpsOnStringArrays) {
  Tensor grid = Strings({"a", "b", "c", "d", "e", "f"}, Shape{2, 3});
  Tensor padded = Run1({{"op", "PadEnd"}, {"pad_shape", {3, 4}}, {"pad_value", "<p>"}}, grid);
  EXPECT_EQ(padded.shape(), Shape({3, 4}));
  EXPECT_EQ(Items(padded), (std::vector<std::string>{"a", "b", "c", "<p>", "d", "e", "f", "<p>", "<p>", "<p>", "<p>", "<p>"}));
  Tensor cut = Run1({{"op", "PadEnd"}, {"pad_shape", {1, 2}}}, grid);  // shorter: cut
  EXPECT_EQ(Items(cut), (std::vector<std::string>{"a", "b"}));
  const nlohmann::json cols = {{"start", 0}, {"stop", 3}, {"step", 2}};
  Tensor sliced = Run1({{"op", "Slice"}, {"slices", {std::vector<int64_t>{1}, cols}}}, grid);
  EXPECT_EQ(sliced.shape(), Shape({1, 2}));
  EXPECT_EQ(Items(sliced), (std::vector<std::string>{"d", "f"}));
  const nlohmann::json cls = {{"dtype", "strings"}, {"values", {"[CLS]"}}};
  const nlohmann::json sep = {{"dtype", "strings"}, {"values", {"[SEP]"}}};
  auto concat_op = Op({{"op", "Concatenate"}, {"prepend", cls}, {"append", sep}});
  EXPECT_EQ(concat_op->ToJson()["prepend"], cls);  // round-trips through the plan
  EXPECT_EQ(Items(Run1(concat_op->ToJson(), Strings({"x", "y"}))),
            (std::vector<std::string>{"[CLS]", "x", "y", "[SEP]"}));
  Tensor mask = Run1({{"op", "Mask"}, {"operator", "NE"}, {"constant", "b"}}, grid);
  EXPECT_EQ(mask.type(), TensorType::kBool);
  EXPECT_EQ(TextValues<uint8_t>(mask), (std::vector<uint8_t>{1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(Items(Run1({{"op", "Fill"}, {"fill_value", "z"}}, grid)), std::vector<std::string>(6, "z"));
  EXPECT_NE(TextErrorOf({{"op", "PadEnd"}, {"pad_shape", {4}}, {"pad_value", 0}}, Strings({"a"})).find("both be"),
            std::string::npos);
}

TEST(TextOpsTest, OtherOpsRefuseStringArrays) {
  Tensor abc = Strings({"a", "b", "c"});
  // Duplicate takes them: its copy is a whole array of strings of its own.
  auto dup = RunCols({{"op", "Duplicate"}}, {abc});
  ASSERT_EQ(dup.size(), 2u);
  EXPECT_EQ(Items(dup[1]), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(dup[1].SameOwner(dup[0]));
  auto op = Op({{"op", "TypeCast"}, {"type", "int32"}});
  const Status st = CheckStringInputs(*op, &abc, 1);
  EXPECT_NE(st.message().find("TypeCast does not take an array of strings"), std::string::npos) << st.ToString();
  // Inside an op over ops, each child is checked.
  const nlohmann::json truncate = {{"op", "Truncate"}, {"max_seq_len", 2}};
  const nlohmann::json cast = {{"op", "TypeCast"}, {"type", "int8"}};
  auto compose = Op({{"op", "Compose"}, {"transforms", {truncate, cast}}});
  ASSERT_TRUE(CheckStringInputs(*compose, &abc, 1).ok());
  std::mt19937_64 rng(0);
  auto r = compose->Apply(abc, rng);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TypeCast does not take an array of strings"), std::string::npos);
}

TEST(TextOpsTest, BatchesHoldStringArraysAsListsAndCachesKeepThem) {
  std::vector<RowTensors> rows(2);
  rows[0].columns.push_back(Strings({"a", "bb"}));
  rows[1].columns.push_back(Strings({"ccc"}));
  BatchOptions o;
  auto b = AssembleBatch({"t"}, std::vector<RowTensors>(rows), 0, o, nullptr);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE(b->columns[0].is_list());
  EXPECT_EQ(Items(b->columns[0].list[1]), std::vector<std::string>{"ccc"});
  o.ragged["t"] = RaggedSpec{RaggedMode::kPad};
  auto padded = AssembleBatch({"t"}, std::vector<RowTensors>(rows), 0, o, nullptr);
  ASSERT_FALSE(padded.ok());
  EXPECT_NE(padded.status().message().find("padding arrays of strings"), std::string::npos);
  // A cache entry keeps an array of strings (its offsets checked when read back).
  const std::string entry = EncodeCacheEntry(7, 3, {rows[0].columns[0]});
  auto bytes = std::make_shared<std::vector<uint8_t>>(entry.begin(), entry.end());
  auto cols = DecodeCacheEntry(bytes, 7, 3, 1, "entry");
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Items((*cols)[0]), (std::vector<std::string>{"a", "bb"}));
}

// A text file through a plan, as a C++ program drives it: BERT tokenization,
// Lookup, PadEnd and batches at 1 and 4 workers give the same batches, and
// what a plain loop over the lines gives.
TEST(TextOpsTest, PipelineOfTextOpsIsTheSameAtAnyWorkerCount) {
  const std::string path = ::testing::TempDir() + "/text_ops_" + std::to_string(getpid()) + ".txt";
  std::vector<std::string> lines;
  {
    std::ofstream f(path);
    for (int i = 0; i < 200; ++i) {
      lines.push_back("Row " + std::to_string(i) + " says h\xc3\xa9llo, W\xc3\x96RLD" + std::string(i % 7, '!'));
      f << lines.back() << "\n";
    }
  }
  nlohmann::json vocab = {{"[PAD]", 0}, {"[UNK]", 1}, {"row", 2}, {"says", 3}, {"hello", 4}, {",", 5}, {"world", 6},
                          {"!", 7}};
  for (int d = 0; d < 10; ++d) vocab[std::to_string(d)] = 8 + d;
  const nlohmann::json ops = {{{"op", "BertTokenizer"}, {"vocab", vocab}, {"lower_case", true}},
                              {{"op", "Lookup"}, {"vocab", vocab}, {"unknown_id", 1}},
                              {{"op", "PadEnd"}, {"pad_shape", {16}}, {"pad_value", 0}}};
  const nlohmann::json leaf = {{"node", "source"}, {"kind", "textfile"}, {"columns", {"text"}},
                               {"rows", lines.size()}, {"args", {{"files", {path}}}}};
  const nlohmann::json map = {{"node", "map"}, {"input", leaf}, {"operations", ops}, {"input_columns", {"text"}}};
  auto run = [&](uint32_t workers) {
    auto plan = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 8}, {"input", map}}},
                                {"num_workers", workers}});
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    auto pipe = Pipeline::Open(*plan);
    EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
    std::vector<std::vector<int32_t>> rows;
    if (!pipe.ok()) return rows;
    for (const Batch& b : testing::Drain(pipe->get())) {
      const Tensor& t = b.columns[0].data;
      EXPECT_EQ(t.type(), TensorType::kInt32);
      for (int64_t r = 0; r < t.shape()[0]; ++r)
        rows.emplace_back(t.data_as<int32_t>() + r * 16, t.data_as<int32_t>() + (r + 1) * 16);
    }
    return rows;
  };
  const auto one = run(1), four = run(4);
  ASSERT_EQ(one.size(), lines.size());
  EXPECT_EQ(one, four);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<int32_t> want = {2};  // row
    want.push_back(i < 10 ? 8 + static_cast<int32_t>(i) : 1);  // "12": "1" then "##2", not in vocab: [UNK]
    for (int32_t id : {3, 4, 5, 6}) want.push_back(id);  // says hello , world
    for (size_t k = 0; k < i % 7; ++k) want.push_back(7);
    want.resize(16, 0);
    EXPECT_EQ(one[i], want) << "line " << i;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mindrecord
