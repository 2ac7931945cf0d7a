// Pretrained vectors (pipeline/ops/vector_table.h) and ToVectors: the file's
// format as MindSpore reads it, its errors naming file and line, and the
// lookups (plain, lowered, unknown, CharNGram's n-gram mean).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "pipeline/ops/vector_table.h"
#include "pipeline/strings.h"
#include "tests/pipeline/ops_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using ops::VectorTable;

std::vector<float> VectorOf(const VectorTable& t, std::string_view token) {
  const float* v = t.Find(token);
  if (v == nullptr) return {};
  return std::vector<float>(v, v + t.dim());
}

std::string ParseError(std::string_view text) {
  auto r = VectorTable::Parse(text, "v.txt", 0);
  return r.ok() ? "ok" : r.status().ToString();
}

TEST(VectorTableTest, HeaderLinesAreSkippedAndTheFirstVectorOfATokenStays) {
  auto t = VectorTable::Parse("3 2\nthe 0.5 -1\n, 1e-3 +2\nthe 7 7\r\nend 1 2 \n", "v.txt", 0);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->dim(), 2);
  EXPECT_EQ((*t)->size(), 3u);
  EXPECT_EQ(VectorOf(**t, "the"), (std::vector<float>{0.5f, -1.0f}));
  EXPECT_EQ(VectorOf(**t, ","), (std::vector<float>{1e-3f, 2.0f}));
  EXPECT_EQ(VectorOf(**t, "end"), (std::vector<float>{1.0f, 2.0f}));  // a trailing space is no field
  EXPECT_EQ((*t)->Find("3"), nullptr);
}

TEST(VectorTableTest, MaxVectorsCountsLinesAfterTheHeader) {
  auto t = VectorTable::Parse("2 2\na 1 1\nb 2 2\nc 3 3\n", "v.txt", 2);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->size(), 2u);
  EXPECT_EQ((*t)->Find("c"), nullptr);
  // Lines past max_vectors are not read, malformed or not.
  EXPECT_TRUE(VectorTable::Parse("a 1 1\nb x\n", "v.txt", 1).ok());
  EXPECT_FALSE(VectorTable::Parse("a 1 1\n", "v.txt", -1).ok());
}

TEST(VectorTableTest, MalformedLinesAreCorruptionNamingFileAndLine) {
  EXPECT_NE(ParseError("a 1 2 3\nb 1 2\n").find("v.txt:2: all vectors must have the same number of dimensions, but got "
                                           "dim 2 while expecting 3"),
            std::string::npos);
  EXPECT_NE(ParseError("a 1 2\nb 1 zz\n").find("v.txt:2: value 'zz' is not a number"), std::string::npos);
  EXPECT_NE(ParseError("a 1 2\nb 1 1e99\n").find("v.txt:2: value '1e99' is out of the float range"), std::string::npos);
  EXPECT_NE(ParseError("a 1 2\n\nb 1 2\n").find("v.txt:2: token with 1-dimensional vector"), std::string::npos);
  EXPECT_NE(ParseError("x 1 2 3\nword\n").find("v.txt:2: token with 1-dimensional vector"), std::string::npos);
  EXPECT_NE(ParseError("").find("file is empty"), std::string::npos);
  EXPECT_NE(ParseError("10 3\n").find("file is empty"), std::string::npos);
  EXPECT_NE(ParseError("a 1 2\n").find("ok"), std::string::npos);
  EXPECT_EQ(VectorTable::Parse("a 1 2 3\nb 1 2\n", "v.txt", 0).status().code(), StatusCode::kCorruption);
}

class ToVectorsTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_.Join(name);
    std::ofstream(path) << text;
    return path;
  }
  nlohmann::json Spec(const std::string& path, const char* kind = "Vectors") {
    return {{"op", "ToVectors"}, {"vectors", {{"kind", kind}, {"file", path}, {"max_vectors", 0}}}};
  }
  static std::vector<float> Values(const Tensor& t) {
    const float* v = t.data_as<float>();
    return std::vector<float>(v, v + t.num_elements());
  }
  static Tensor Strings(std::vector<std::string> s) {
    return MakeStrings(Shape{static_cast<int64_t>(s.size())}, std::span<const std::string>(s));
  }
  testing::TempDir dir_;
};

TEST_F(ToVectorsTest, OneTokenGivesAVectorAndSeveralAMatrix) {
  const std::string path = Write("v.txt", "the 1 2\ncat 3 4\n");
  nlohmann::json spec = Spec(path);
  spec["unk_init"] = {-1, -1};
  auto op = testing::Op(spec);
  Tensor one = testing::RunOp(*op, Strings({"cat"}));
  EXPECT_EQ(one.shape(), (Shape{2}));  // MindSpore's: one token, [dim]
  EXPECT_EQ(Values(one), (std::vector<float>{3, 4}));
  Tensor three = testing::RunOp(*op, Strings({"the", "dog", "cat"}));
  EXPECT_EQ(three.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values(three), (std::vector<float>{1, 2, -1, -1, 3, 4}));
  EXPECT_EQ(testing::RunOp(*op, Strings({})).shape(), (Shape{0, 2}));
  // Unknown tokens are zeros without unk_init; lower_case_backup looks up the lowered form only.
  nlohmann::json lower = Spec(path);
  lower["lower_case_backup"] = true;
  EXPECT_EQ(Values(testing::RunOp(*testing::Op(lower), Strings({"CaT", "x"}))), (std::vector<float>{3, 4, 0, 0}));
  EXPECT_EQ(Values(testing::RunOp(*testing::Op(Spec(path)), Strings({"Cat"}))), (std::vector<float>{0, 0}));
}

TEST_F(ToVectorsTest, CharNGramAveragesTheTokensNGrams) {
  // "ab": 2-grams #BEGIN#a, ab, b#END#; 3-grams #BEGIN#ab, ab#END#; 4-gram #BEGIN#ab#END#.
  const std::string path = Write("charNgram.txt",
                                 "2gram-ab 1 2\n2gram-b#END# 3 4\n3gram-#BEGIN#ab 5 9\n"
                                 "4gram-#BEGIN#ab#END# 0 0\n2gram-zz 8 8\n");
  auto op = testing::Op(Spec(path, "CharNGram"));
  // Found: ab, b#END#, #BEGIN#ab (the 4-gram equals the zero unknown vector: not counted, as MindSpore's).
  EXPECT_EQ(Values(testing::RunOp(*op, Strings({"ab"}))), (std::vector<float>{3, 5}));
  EXPECT_EQ(Values(testing::RunOp(*op, Strings({"q"}))), (std::vector<float>{0, 0}));
}

TEST_F(ToVectorsTest, FileNamesKindsAndParametersAreChecked) {
  const std::string txt = Write("vectors.txt", "a 1 2\n");
  EXPECT_NE(MakeOp(Spec(txt, "GloVe")).status().ToString().find("can not find file 'glove.6B.*.txt'"),
            std::string::npos);
  EXPECT_NE(MakeOp(Spec(txt, "FastText")).status().ToString().find("can not find file '*.vec'"), std::string::npos);
  EXPECT_TRUE(MakeOp(Spec(Write("glove.6B.50d.txt", "a 1 2\n"), "GloVe")).ok());
  EXPECT_TRUE(MakeOp(Spec(Write("wiki.en.vec", "1 2\na 1 2\n"), "FastText")).ok());
  EXPECT_EQ(MakeOp(Spec(dir_.Join("missing.txt"))).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(MakeOp(Spec(dir_.path())).ok());  // a folder
  ASSERT_EQ(mkfifo(dir_.Join("fifo").c_str(), 0600), 0);
  EXPECT_NE(MakeOp(Spec(dir_.Join("fifo"))).status().ToString().find("not a regular file"), std::string::npos);
  nlohmann::json spec = Spec(txt);
  spec["unk_init"] = {1, 2, 3};
  EXPECT_NE(MakeOp(spec).status().ToString().find(
                "unk_init must be the same length as vectors, but got unk_init: 3 and vectors: 2"),
            std::string::npos);
  EXPECT_FALSE(MakeOp(Spec(txt, "Word2Vec")).ok());
  spec = Spec(txt);
  spec["bogus"] = 1;
  EXPECT_FALSE(MakeOp(spec).ok());
  auto op = testing::Op(Spec(txt));
  std::mt19937_64 rng(0);
  EXPECT_NE(op->Apply(Tensor::Make(TensorType::kFloat32, {2}), rng).status().ToString().find(
                "input tensor type should be string"),
            std::string::npos);
}

TEST_F(ToVectorsTest, OpsBuiltWhileALoadIsHeldShareItsTable) {
  const std::string path = Write("v.txt", "a 1 2\n");
  auto held = ops::LoadVectorTable(path, ops::VectorsKind::kVectors, 0);
  ASSERT_TRUE(held.ok());
  Write("v.txt", "a 5 6\n");  // not read again while the first load is held
  auto op = testing::Op(Spec(path));
  EXPECT_EQ(Values(testing::RunOp(*op, Strings({"a"}))), (std::vector<float>{1, 2}));
  EXPECT_EQ(op->ToJson()["vectors"]["file"], path);
  held = Status::NotFound("dropped");
  op.reset();
  EXPECT_EQ(Values(testing::RunOp(*testing::Op(Spec(path)), Strings({"a"}))), (std::vector<float>{5, 6}));
}

}  // namespace
}  // namespace mindrecord
