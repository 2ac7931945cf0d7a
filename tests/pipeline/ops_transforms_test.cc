// Ops over ops (Compose, RandomApply, RandomChoice, RandomOrder,
// UniformAugment, RandomSelectSubpolicy), OneHot and the general tensor ops
// (Fill, Mask, Duplicate, Unique, Slice, PadEnd, Concatenate), against values
// worked out by hand from MindSpore's kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "pipeline/op_registry.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::MatToTensor;
using testing::Op;
using testing::RunOp;
using testing::SameBytes;
using testing::SyntheticRgb;

// A registered test op on int64 scalars: x -> 10 x + digit, so the digits of
// the result spell the order ops ran in.
class AppendDigitOp : public TensorOp {
 public:
  explicit AppendDigitOp(int d) : d_(d) {}
  std::string name() const override { return "AppendDigit"; }
  nlohmann::json ToJson() const override { return {{"op", "AppendDigit"}, {"digit", d_}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    if (in.type() != TensorType::kInt64) return Status::InvalidArgument("AppendDigit: int64 only");
    Tensor out = Tensor::Make(TensorType::kInt64, {});
    out.mutable_data_as<int64_t>()[0] = in.data_as<int64_t>()[0] * 10 + d_;
    return out;
  }

 private:
  int d_;
};

class OpsTransformsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterOp("AppendDigit", [](const nlohmann::json& s) -> Result<std::unique_ptr<TensorOp>> {
      return std::unique_ptr<TensorOp>(new AppendDigitOp(s.value("digit", 0)));
    });
  }
  void TearDown() override { UnregisterOp("AppendDigit"); }

  static Tensor Int(int64_t v) {
    Tensor t = Tensor::Make(TensorType::kInt64, {});
    t.mutable_data_as<int64_t>()[0] = v;
    return t;
  }
  static int64_t Value(const Tensor& t) { return t.data_as<int64_t>()[0]; }
  static nlohmann::json Digit(int d) { return {{"op", "AppendDigit"}, {"digit", d}}; }
};

// |observed - p| within 5 standard deviations of a binomial proportion.
void ExpectProportion(int hits, int n, double p, const std::string& what) {
  const double sd = std::sqrt(p * (1 - p) / n);
  EXPECT_NEAR(static_cast<double>(hits) / n, p, 5 * sd) << what << ": " << hits << " of " << n;
}

TEST_F(OpsTransformsTest, ComposeRunsOpsInOrderAndRoundTrips) {
  Tensor img = MatToTensor(SyntheticRgb(40, 60));
  const nlohmann::json resize = {{"op", "Resize"}, {"size", {20, 30}}};
  const nlohmann::json flip = {{"op", "RandomHorizontalFlip"}, {"p", 1.0}};
  auto op = Op({{"op", "Compose"}, {"transforms", {resize, flip}}});
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->is_random());  // the flip draws
  Tensor by_hand = RunOp(*Op(flip), RunOp(*Op(resize), img));
  EXPECT_TRUE(SameBytes(RunOp(*op, img), by_hand));
  auto again = Op(op->ToJson());
  EXPECT_EQ(again->ToJson(), op->ToJson());
  EXPECT_TRUE(SameBytes(RunOp(*again, img), by_hand));
  // Registered ops nest too, in order.
  EXPECT_EQ(Value(RunOp(*Op({{"op", "Compose"}, {"transforms", {Digit(1), Digit(2), Digit(3)}}}), Int(0))), 123);
  // A deterministic Compose says so.
  EXPECT_FALSE(Op({{"op", "Compose"}, {"transforms", {resize}}})->is_random());
}

TEST_F(OpsTransformsTest, BadCombinatorSpecsNameTheOp) {
  for (const char* name : {"Compose", "RandomApply", "RandomChoice", "RandomOrder"}) {
    auto missing = MakeOp({{"op", name}});
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.status().message().find(std::string(name) + ": parameter 'transforms' is required"),
              std::string::npos)
        << missing.status().message();
    auto empty = MakeOp({{"op", name}, {"transforms", nlohmann::json::array()}});
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.status().message().find("non-empty"), std::string::npos);
    auto bad_child = MakeOp({{"op", name}, {"transforms", {{{"op", "Resize"}, {"size", -3}}}}});
    ASSERT_FALSE(bad_child.ok());
    EXPECT_NE(bad_child.status().message().find(std::string(name) + ": Resize: parameter 'size'"), std::string::npos)
        << bad_child.status().message();
    auto typo = MakeOp({{"op", name}, {"transforms", {Digit(1)}}, {"probability", 0.5}});
    ASSERT_FALSE(typo.ok());
    EXPECT_NE(typo.status().message().find("unknown parameter 'probability'"), std::string::npos);
  }
  for (double p : {-0.1, 1.5}) {
    auto r = MakeOp({{"op", "RandomApply"}, {"transforms", {Digit(1)}}, {"prob", p}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("RandomApply: parameter 'prob' must be in [0, 1]"), std::string::npos);
  }
  // A child's runtime error names the combinator and the child.
  auto op = Op({{"op", "RandomChoice"}, {"transforms", {Digit(1)}}});
  std::mt19937_64 rng(0);
  auto r = op->Apply(MatToTensor(SyntheticRgb(4, 4)), rng);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("RandomChoice: AppendDigit: int64 only"), std::string::npos);
}

TEST_F(OpsTransformsTest, RandomApplyFollowsProbAndSeed) {
  auto op = Op({{"op", "RandomApply"}, {"transforms", {Digit(1), Digit(2)}}, {"prob", 0.3}});
  ASSERT_NE(op, nullptr);
  int applied = 0;
  const int n = 4000;
  for (int seed = 0; seed < n; ++seed) {
    const int64_t v = Value(RunOp(*op, Int(5), seed));
    ASSERT_TRUE(v == 5 || v == 512) << v;  // all of the transforms, in order, or none
    applied += v == 512;
    EXPECT_EQ(Value(RunOp(*op, Int(5), seed)), v);  // same seed, same choice
  }
  ExpectProportion(applied, n, 0.3, "RandomApply(prob=0.3)");
  EXPECT_EQ(Value(RunOp(*Op({{"op", "RandomApply"}, {"transforms", {Digit(1)}}, {"prob", 0.0}}), Int(5), 1)), 5);
  EXPECT_EQ(Value(RunOp(*Op({{"op", "RandomApply"}, {"transforms", {Digit(1)}}, {"prob", 1.0}}), Int(5), 1)), 51);
  // Default prob is MindSpore's 0.5.
  EXPECT_EQ(Op({{"op", "RandomApply"}, {"transforms", {Digit(1)}}})->ToJson()["prob"], 0.5);
}

TEST_F(OpsTransformsTest, RandomChoicePicksOneUniformly) {
  auto op = Op({{"op", "RandomChoice"}, {"transforms", {Digit(1), Digit(2), Digit(3)}}});
  std::map<int64_t, int> counts;
  const int n = 6000;
  for (int seed = 0; seed < n; ++seed) counts[Value(RunOp(*op, Int(0), seed))]++;
  ASSERT_EQ(counts.size(), 3u);
  for (int d = 1; d <= 3; ++d) ExpectProportion(counts[d], n, 1.0 / 3, "RandomChoice digit " + std::to_string(d));
}

TEST_F(OpsTransformsTest, RandomOrderRunsAllInEveryOrder) {
  auto op = Op({{"op", "RandomOrder"}, {"transforms", {Digit(1), Digit(2), Digit(3)}}});
  std::map<int64_t, int> counts;
  const int n = 6000;
  for (int seed = 0; seed < n; ++seed) counts[Value(RunOp(*op, Int(0), seed))]++;
  ASSERT_EQ(counts.size(), 6u);  // 123 132 213 231 312 321
  for (const auto& [v, c] : counts) {
    std::string digits = std::to_string(v);
    std::sort(digits.begin(), digits.end());
    EXPECT_EQ(digits, "123");
    ExpectProportion(c, n, 1.0 / 6, "RandomOrder " + std::to_string(v));
  }
}

TEST_F(OpsTransformsTest, CombinatorsNest) {
  // RandomApply(p=1) of [RandomChoice(1|2), Compose(3, 4)]: 13 4 or 2 34.
  auto op = Op({{"op", "RandomApply"},
                {"prob", 1.0},
                {"transforms",
                 {{{"op", "RandomChoice"}, {"transforms", {Digit(1), Digit(2)}}},
                  {{"op", "Compose"}, {"transforms", {Digit(3), Digit(4)}}}}}});
  std::map<int64_t, int> counts;
  for (int seed = 0; seed < 200; ++seed) counts[Value(RunOp(*op, Int(0), seed))]++;
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[134], 0);
  EXPECT_GT(counts[234], 0);
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST_F(OpsTransformsTest, UniformAugmentPicksInListOrderAndAppliesEachByACoin) {
  // num_ops = all three: each op runs with probability 1/2, in list order, so
  // the 8 increasing digit strings come out equally often.
  auto all = Op({{"op", "UniformAugment"}, {"transforms", {Digit(1), Digit(2), Digit(3)}}, {"num_ops", 3}});
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(all->is_random());
  std::map<int64_t, int> counts;
  const int n = 8000;
  for (int seed = 0; seed < n; ++seed) {
    const int64_t v = Value(RunOp(*all, Int(0), seed));
    ASSERT_EQ(Value(RunOp(*all, Int(0), seed)), v);  // same seed, same draws
    counts[v]++;
  }
  ASSERT_EQ(counts.size(), 8u);
  for (int64_t v : {0, 1, 2, 3, 12, 13, 23, 123}) ExpectProportion(counts[v], n, 1.0 / 8, std::to_string(v));
  // num_ops = 2 of 4: a pair picked uniformly (6 pairs), each picked op kept
  // with probability 1/2: digit d shows with probability 1/4, nothing with 1/4.
  auto two = Op({{"op", "UniformAugment"}, {"transforms", {Digit(1), Digit(2), Digit(3), Digit(4)}}});
  ASSERT_EQ(two->ToJson()["num_ops"], 2);  // MindSpore's default
  counts.clear();
  int shows[5] = {0, 0, 0, 0, 0};
  for (int seed = 0; seed < n; ++seed) {
    const int64_t v = Value(RunOp(*two, Int(0), seed));
    counts[v]++;
    const std::string digits = v ? std::to_string(v) : "";
    ASSERT_LE(digits.size(), 2u) << v;
    ASSERT_TRUE(std::is_sorted(digits.begin(), digits.end()) && std::adjacent_find(digits.begin(), digits.end()) ==
                                                                     digits.end())
        << v;
    for (char c : digits) shows[c - '0']++;
  }
  ExpectProportion(counts[0], n, 0.25, "none applied");
  for (int d = 1; d <= 4; ++d) ExpectProportion(shows[d], n, 0.25, "digit " + std::to_string(d));
  ExpectProportion(counts[13], n, 0.25 / 6, "the pair 1, 3 both applied");
  EXPECT_EQ(Op(two->ToJson())->ToJson(), two->ToJson());
  for (const nlohmann::json& num :
       {nlohmann::json(0), nlohmann::json(5), nlohmann::json(1.5), nlohmann::json(1e30), nlohmann::json("2")}) {
    auto r = MakeOp({{"op", "UniformAugment"}, {"transforms", {Digit(1), Digit(2), Digit(3), Digit(4)}},
                     {"num_ops", num}});
    ASSERT_FALSE(r.ok()) << num.dump();
    EXPECT_NE(r.status().message().find("UniformAugment: parameter 'num_ops'"), std::string::npos)
        << r.status().message();
  }
  auto empty = MakeOp({{"op", "UniformAugment"}, {"transforms", nlohmann::json::array()}});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("UniformAugment: parameter 'transforms'"), std::string::npos);
  // Image ops nest too: a flip kept or not, on a real image.
  Tensor img = MatToTensor(SyntheticRgb(10, 12));
  auto flip = Op({{"op", "UniformAugment"}, {"transforms", {{{"op", "RandomVerticalFlip"}, {"p", 1.0}}}}, {"num_ops", 1}});
  int flipped = 0;
  for (int seed = 0; seed < 400; ++seed) flipped += !SameBytes(RunOp(*flip, img, seed), img);
  ExpectProportion(flipped, 400, 0.5, "UniformAugment of one flip");
}

TEST_F(OpsTransformsTest, RandomSelectSubpolicyPicksOneAndAppliesStepsByProb) {
  auto step = [](int d, double p) { return nlohmann::json{{"transform", Digit(d)}, {"prob", p}}; };
  // Sub-policy A: 1 always, then 2 with p = 0.5; sub-policy B: 3 with p = 0.2.
  auto op = Op({{"op", "RandomSelectSubpolicy"}, {"policy", {{step(1, 1.0), step(2, 0.5)}, {step(3, 0.2)}}}});
  ASSERT_NE(op, nullptr);
  std::map<int64_t, int> counts;
  const int n = 8000;
  for (int seed = 0; seed < n; ++seed) counts[Value(RunOp(*op, Int(0), seed))]++;
  ASSERT_EQ(counts.size(), 4u);  // 1, 12, 3, 0
  ExpectProportion(counts[1], n, 0.25, "A without 2");
  ExpectProportion(counts[12], n, 0.25, "A with 2");
  ExpectProportion(counts[3], n, 0.1, "B with 3");
  ExpectProportion(counts[0], n, 0.4, "B without 3");
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
  // Steps are built one by one: Decode then Resize stay two steps (not fused).
  auto two = Op({{"op", "RandomSelectSubpolicy"},
                 {"policy", {{{{"transform", {{"op", "Decode"}}}, {"prob", 1.0}},
                              {{"transform", {{"op", "Resize"}, {"size", 4}}}, {"prob", 1.0}}}}}});
  EXPECT_EQ(two->ToJson()["policy"][0].size(), 2u);
  for (const nlohmann::json& bad :
       {nlohmann::json::array(), nlohmann::json{nlohmann::json::array()}, nlohmann::json{{step(1, 1.5)}},
        nlohmann::json{{{{"transform", Digit(1)}}}}, nlohmann::json{{Digit(1)}}}) {
    auto r = MakeOp({{"op", "RandomSelectSubpolicy"}, {"policy", bad}});
    EXPECT_FALSE(r.ok()) << bad.dump();
    if (!r.ok()) EXPECT_NE(r.status().message().find("RandomSelectSubpolicy"), std::string::npos);
  }
}

TEST_F(OpsTransformsTest, OneHotEncodesLabels) {
  auto op = Op({{"op", "OneHot"}, {"num_classes", 5}});
  ASSERT_NE(op, nullptr);
  Tensor scalar = Tensor::Make(TensorType::kInt32, {});
  scalar.mutable_data_as<int32_t>()[0] = 3;
  Tensor one = RunOp(*op, scalar);
  ASSERT_EQ(one.type(), TensorType::kInt32);
  ASSERT_EQ(one.shape(), (std::vector<int64_t>{5}));
  for (int k = 0; k < 5; ++k) EXPECT_EQ(one.data_as<int32_t>()[k], k == 3 ? 1 : 0);
  Tensor labels = Tensor::Make(TensorType::kInt64, {3});
  const int64_t values[] = {0, 4, 2};
  for (int i = 0; i < 3; ++i) labels.mutable_data_as<int64_t>()[i] = values[i];
  Tensor many = RunOp(*op, labels);
  ASSERT_EQ(many.shape(), (std::vector<int64_t>{3, 5}));
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 5; ++k) EXPECT_EQ(many.data_as<int64_t>()[i * 5 + k], k == values[i] ? 1 : 0);
  // Smoothing: float32 (1 - s) * onehot + s / K.
  Tensor smooth = RunOp(*Op({{"op", "OneHot"}, {"num_classes", 4}, {"smoothing_rate", 0.2}}), scalar);
  ASSERT_EQ(smooth.type(), TensorType::kFloat32);
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(smooth.data_as<float>()[k], k == 3 ? 0.85f : 0.05f);
  // Out of range, negative, non-integer input, bad parameters.
  scalar.mutable_data_as<int32_t>()[0] = 5;
  std::mt19937_64 rng(0);
  auto r = op->Apply(scalar, rng);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("OneHot: label 5"), std::string::npos);
  scalar.mutable_data_as<int32_t>()[0] = -1;
  EXPECT_FALSE(op->Apply(scalar, rng).ok());
  EXPECT_FALSE(op->Apply(Tensor::Make(TensorType::kFloat32, {2}), rng).ok());
  EXPECT_FALSE(op->Apply(Tensor::Make(TensorType::kInt32, {2, 2}), rng).ok());
  EXPECT_FALSE(MakeOp({{"op", "OneHot"}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "OneHot"}, {"num_classes", 0}}).ok());
  EXPECT_FALSE(MakeOp({{"op", "OneHot"}, {"num_classes", 3}, {"smoothing_rate", 1.5}}).ok());
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}


// ---- general tensor ops -------------------------------------------------------

template <typename T>
Tensor Vec(TensorType type, std::vector<int64_t> shape, const std::vector<T>& v) {
  Tensor t = Tensor::Make(type, shape);
  EXPECT_EQ(static_cast<size_t>(t.num_elements()), v.size());
  if (!v.empty()) std::memcpy(t.MutableData(), v.data(), v.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.num_elements());
}

std::vector<uint8_t> Bytes(const Tensor& t) { return std::vector<uint8_t>(t.data(), t.data() + t.size_bytes()); }

// The error of op(spec) on `in`; empty when it succeeds.
std::string ErrorOf(const nlohmann::json& spec, Tensor in) {
  auto op = MakeOp(spec);
  if (!op.ok()) return op.status().message();
  std::mt19937_64 rng(0);
  auto r = (*op)->Apply(std::move(in), rng);
  return r.ok() ? "" : r.status().message();
}

std::string SpecError(const nlohmann::json& spec) {
  auto op = MakeOp(spec);
  return op.ok() ? "" : op.status().message();
}

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(OpsTensorTest, FillConvertsTheValueToTheInputType) {
  const Tensor i32 = Vec<int32_t>(TensorType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor out = RunOp(*Op({{"op", "Fill"}, {"fill_value", 2.7}}), i32);
  ASSERT_EQ(out.type(), TensorType::kInt32);
  EXPECT_EQ(out.shape(), i32.shape());
  EXPECT_EQ(Values<int32_t>(out), std::vector<int32_t>(6, 2));  // static_cast truncates
  const Tensor u8 = Vec<uint8_t>(TensorType::kUInt8, {3}, {1, 2, 3});
  EXPECT_EQ(Values<uint8_t>(RunOp(*Op({{"op", "Fill"}, {"fill_value", 300}}), u8)), std::vector<uint8_t>(3, 44));
  EXPECT_EQ(Values<uint8_t>(RunOp(*Op({{"op", "Fill"}, {"fill_value", -1.5}}), u8)), std::vector<uint8_t>(3, 0));
  const Tensor f64 = Vec<double>(TensorType::kFloat64, {2}, {1, 2});
  EXPECT_EQ(Values<double>(RunOp(*Op({{"op", "Fill"}, {"fill_value", true}}), f64)), std::vector<double>(2, 1.0));
  Tensor nan = RunOp(*Op({{"op", "Fill"}, {"fill_value", {{"float", "nan"}}}}), f64);
  EXPECT_TRUE(std::isnan(nan.data_as<double>()[0]) && std::isnan(nan.data_as<double>()[1]));
  Tensor flags = RunOp(*Op({{"op", "Fill"}, {"fill_value", 0.25}}), Vec<uint8_t>(TensorType::kBool, {2}, {0, 0}));
  EXPECT_EQ(flags.type(), TensorType::kBool);
  EXPECT_EQ(Bytes(flags), (std::vector<uint8_t>{1, 1}));
  // Bytes are a uint8 array; a string value is one string.
  Tensor bytes = RunOp(*Op({{"op", "Fill"}, {"fill_value", 7}}), Tensor::FromString(TensorType::kBytes, "abc"));
  EXPECT_EQ(bytes.type(), TensorType::kUInt8);
  EXPECT_EQ(Values<uint8_t>(bytes), std::vector<uint8_t>(3, 7));
  Tensor text = RunOp(*Op({{"op", "Fill"}, {"fill_value", "xy"}}), Tensor::FromString(TensorType::kString, "abc"));
  EXPECT_EQ(text.type(), TensorType::kString);
  EXPECT_EQ(Bytes(text), (std::vector<uint8_t>{'x', 'y'}));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Fill"}, {"fill_value", "x"}}, i32), "Fill: fill_value is a string"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Fill"}, {"fill_value", 1}}, Tensor::FromString(TensorType::kString, "a")),
                  "Fill: fill_value 1 is not a string"));
  EXPECT_TRUE(Has(SpecError({{"op", "Fill"}}), "Fill: parameter 'fill_value' is required"));
  EXPECT_TRUE(Has(SpecError({{"op", "Fill"}, {"fill_value", {1, 2}}}), "Fill: parameter 'fill_value'"));
  EXPECT_TRUE(Has(SpecError({{"op", "Fill"}, {"fill_value", {{"float", "big"}}}}), "Fill: parameter 'fill_value'"));
  EXPECT_TRUE(Has(SpecError({{"op", "Fill"}, {"fill_value", 1}, {"value", 2}}), "unknown parameter 'value'"));
  for (const nlohmann::json& v : {nlohmann::json(3), nlohmann::json(-2.5), nlohmann::json(false),
                                  nlohmann::json("s"), nlohmann::json{{"float", "-inf"}}}) {
    auto op = Op({{"op", "Fill"}, {"fill_value", v}});
    EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
    EXPECT_EQ(op->ToJson()["fill_value"], v);
  }
}

TEST(OpsTensorTest, MaskComparesWithTheConstantInTheInputType) {
  const Tensor i32 = Vec<int32_t>(TensorType::kInt32, {2, 2}, {1, 2, 3, 4});
  auto mask = [&](const char* rel, const nlohmann::json& c, const Tensor& in, const char* dtype = "bool") {
    return RunOp(*Op({{"op", "Mask"}, {"operator", rel}, {"constant", c}, {"dtype", dtype}}), in);
  };
  Tensor ge = mask("GE", 2.5, i32);  // 2.5 -> int32 2
  ASSERT_EQ(ge.type(), TensorType::kBool);
  EXPECT_EQ(ge.shape(), i32.shape());
  EXPECT_EQ(Bytes(ge), (std::vector<uint8_t>{0, 1, 1, 1}));
  const Tensor f32 = Vec<float>(TensorType::kFloat32, {4}, {1.0f, 2.5f, 3.0f, -1.0f});
  const std::map<std::string, std::vector<uint8_t>> want = {
      {"EQ", {0, 1, 0, 0}}, {"NE", {1, 0, 1, 1}}, {"GT", {0, 0, 1, 0}},
      {"GE", {0, 1, 1, 0}}, {"LT", {1, 0, 0, 1}}, {"LE", {1, 1, 0, 1}}};
  for (const auto& [rel, bits] : want) EXPECT_EQ(Bytes(mask(rel.c_str(), 2.5, f32)), bits) << rel;
  Tensor as_int = mask("EQ", 3, i32, "int32");
  ASSERT_EQ(as_int.type(), TensorType::kInt32);
  EXPECT_EQ(Values<int32_t>(as_int), (std::vector<int32_t>{0, 0, 1, 0}));
  EXPECT_EQ(Values<float>(mask("LT", 3, i32, "float32")), (std::vector<float>{1, 1, 0, 0}));
  // uint8 input: 300 wraps to 44, as a C++ cast does.
  EXPECT_EQ(Bytes(mask("EQ", 300, Vec<uint8_t>(TensorType::kUInt8, {2}, {44, 45}))), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(Bytes(mask("EQ", true, Vec<uint8_t>(TensorType::kBool, {2}, {0, 1}))), (std::vector<uint8_t>{0, 1}));
  Tensor word = mask("GT", "abc", Tensor::FromString(TensorType::kString, "abd"));
  EXPECT_EQ(word.shape().size(), 0u);
  EXPECT_EQ(word.data()[0], 1);
  EXPECT_TRUE(Has(ErrorOf({{"op", "Mask"}, {"operator", "EQ"}, {"constant", "a"}}, i32),
                  "must both be numeric or both be strings"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Mask"}, {"operator", "EQ"}, {"constant", 1}},
                          Tensor::FromString(TensorType::kString, "a")),
                  "Mask: the input"));
  EXPECT_TRUE(Has(SpecError({{"op", "Mask"}, {"operator", "XX"}, {"constant", 1}}), "Mask: parameter 'operator'"));
  EXPECT_TRUE(Has(SpecError({{"op", "Mask"}, {"operator", "EQ"}}), "Mask: parameter 'constant' is required"));
  EXPECT_TRUE(Has(SpecError({{"op", "Mask"}, {"operator", "EQ"}, {"constant", 1}, {"dtype", "string"}}),
                  "Mask: parameter 'dtype' must be a numeric type"));
  auto op = Op({{"op", "Mask"}, {"operator", "LE"}, {"constant", 2.5}});
  EXPECT_EQ(op->ToJson()["dtype"], "bool");  // MindSpore's default
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST(OpsTensorTest, DuplicateAndUniqueGiveSeveralColumns) {
  std::mt19937_64 rng(0);
  auto dup = Op({{"op", "Duplicate"}});
  ASSERT_EQ(dup->num_inputs(), 1);
  ASSERT_EQ(dup->num_outputs(), 2);
  const Tensor x = Vec<int64_t>(TensorType::kInt64, {3}, {5, 6, 7});
  auto two = dup->ApplyColumns({x}, rng);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_TRUE(SameBytes((*two)[0], x) && SameBytes((*two)[1], x));
  EXPECT_NE((*two)[0].data(), (*two)[1].data());  // a copy: they do not alias
  EXPECT_TRUE(Has(ErrorOf({{"op", "Duplicate"}}, x), "output_columns"));  // one column out is not enough
  EXPECT_FALSE(dup->ApplyColumns({x, x}, rng).ok());

  auto uniq = Op({{"op", "Unique"}});
  ASSERT_EQ(uniq->num_outputs(), 3);
  auto r = uniq->ApplyColumns({Vec<int32_t>(TensorType::kInt32, {2, 3}, {0, 1, 2, 1, 2, 3})}, rng);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].type(), TensorType::kInt32);
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Values<int32_t>((*r)[1]), (std::vector<int32_t>{0, 1, 2, 1, 2, 3}));
  EXPECT_EQ(Values<int32_t>((*r)[2]), (std::vector<int32_t>{1, 2, 2, 1}));
  // First-occurrence order (not sorted); 0.0 and -0.0 are one value.
  auto f = uniq->ApplyColumns({Vec<double>(TensorType::kFloat64, {2, 2}, {3.5, -0.0, 0.0, 3.5})}, rng);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)[0].type(), TensorType::kFloat64);
  EXPECT_EQ(Values<double>((*f)[0]).size(), 2u);
  EXPECT_EQ(Values<double>((*f)[0])[0], 3.5);
  EXPECT_EQ(Values<int32_t>((*f)[1]), (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(Values<int32_t>((*f)[2]), (std::vector<int32_t>{2, 2}));
  auto one_d = uniq->ApplyColumns({x}, rng);
  ASSERT_FALSE(one_d.ok());
  EXPECT_TRUE(Has(one_d.status().message(), "Unique: input must be at least 2-D"));
  EXPECT_FALSE(uniq->ApplyColumns({Vec<uint8_t>(TensorType::kBool, {1, 2}, {0, 1})}, rng).ok());
  EXPECT_FALSE(uniq->ApplyColumns({Tensor::FromString(TensorType::kString, "ab")}, rng).ok());
  EXPECT_TRUE(Has(SpecError({{"op", "Unique"}, {"sorted", true}}), "Unique: unknown parameter 'sorted'"));
}

TEST(OpsTensorTest, SliceFollowsMindSporeIndexing) {
  const Tensor v = Vec<int32_t>(TensorType::kInt32, {5}, {0, 1, 2, 3, 4});
  auto slice = [](const nlohmann::json& slices, const Tensor& in) {
    return RunOp(*Op({{"op", "Slice"}, {"slices", slices}}), in);
  };
  auto range = [](int64_t a, int64_t b, int64_t c) { return nlohmann::json{{"start", a}, {"stop", b}, {"step", c}}; };
  auto only = [](const nlohmann::json& j) { return nlohmann::json::array({j}); };  // one dimension's entry
  Tensor one = slice({{1}}, v);  // an index keeps its dimension
  EXPECT_EQ(one.shape(), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values<int32_t>(one), (std::vector<int32_t>{1}));
  EXPECT_EQ(Values<int32_t>(slice({{-1, 0, 3}}, v)), (std::vector<int32_t>{4, 0, 3}));
  EXPECT_EQ(Values<int32_t>(slice(only(range(1, 4, 1)), v)), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(Values<int32_t>(slice(only(range(0, 5, 2)), v)), (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(Values<int32_t>(slice(only(range(-2, 100, 1)), v)), (std::vector<int32_t>{3, 4}));  // clamped
  EXPECT_EQ(Values<int32_t>(slice(only(range(4, 0, -1)), v)), (std::vector<int32_t>{4, 3, 2, 1}));
  EXPECT_EQ(Values<int32_t>(slice(only(range(9, -9, -2)), v)), (std::vector<int32_t>{4, 2}));  // stop clamps to 0
  EXPECT_EQ(slice(only(range(3, 1, 1)), v).shape(), (std::vector<int64_t>{0}));
  // A step past every int64: one index, no overflow.
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Values<int32_t>(slice(only(range(2, 5, big)), v)), (std::vector<int32_t>{2}));
  EXPECT_EQ(Values<int32_t>(slice(only(range(4, 0, std::numeric_limits<int64_t>::min())), v)),
            (std::vector<int32_t>{4}));
  EXPECT_TRUE(SameBytes(slice({true}, v), v));
  EXPECT_TRUE(SameBytes(slice(nlohmann::json::array(), v), v));
  // 2-D: rows 0 and 2, then every other column; a missing dimension stays whole.
  const Tensor m = Vec<float>(TensorType::kFloat32, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  Tensor sub = slice({{0, 2}, range(0, 4, 2)}, m);
  EXPECT_EQ(sub.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<float>(sub), (std::vector<float>{0, 2, 20, 22}));
  Tensor rows = slice(only(range(1, 3, 1)), m);
  EXPECT_EQ(rows.shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(Values<float>(rows), (std::vector<float>{10, 11, 12, 13, 20, 21, 22, 23}));
  Tensor col = slice({true, {-1}}, m);
  EXPECT_EQ(col.shape(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(Values<float>(col), (std::vector<float>{3, 13, 23}));
  Tensor bytes = slice(only(range(1, 3, 1)), Tensor::FromString(TensorType::kBytes, "abcd"));
  EXPECT_EQ(bytes.type(), TensorType::kUInt8);
  EXPECT_EQ(Bytes(bytes), (std::vector<uint8_t>{'b', 'c'}));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Slice"}, {"slices", {{5}}}}, v), "Slice: index 5 is out of bounds"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Slice"}, {"slices", {{-6}}}}, v), "out of bounds"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Slice"}, {"slices", {true, true}}}, v), "Slice: 2 slices for"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Slice"}, {"slices", {true}}}, Tensor::FromString(TensorType::kString, "ab")),
                  "Slice: a string value is a scalar"));
  EXPECT_TRUE(Has(SpecError({{"op", "Slice"}, {"slices", {false}}}), "selects nothing"));
  EXPECT_TRUE(Has(SpecError({{"op", "Slice"}, {"slices", {nlohmann::json::array()}}}), "empty list"));
  EXPECT_TRUE(Has(SpecError({{"op", "Slice"}, {"slices", only(range(0, 3, 0))}}), "step must not be 0"));
  EXPECT_TRUE(Has(SpecError({{"op", "Slice"}, {"slices", {{{"start", 1}}}}}), "needs integer start and stop"));
  EXPECT_TRUE(Has(SpecError({{"op", "Slice"}, {"slices", {{1.5}}}}), "indices must be int64 integers"));
  auto op = Op({{"op", "Slice"}, {"slices", {true, {1, -1}, {{"start", 0}, {"stop", 3}}}}});
  EXPECT_EQ(op->ToJson()["slices"][2]["step"], 1);
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST(OpsTensorTest, PadEndPadsOrCutsEachDimension) {
  const Tensor m = Vec<int32_t>(TensorType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto pad = [](const nlohmann::json& shape, const nlohmann::json& value, const Tensor& in) {
    return RunOp(*Op({{"op", "PadEnd"}, {"pad_shape", shape}, {"pad_value", value}}), in);
  };
  Tensor grown = pad({3, 2}, 7, m);
  EXPECT_EQ(grown.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<int32_t>(grown), (std::vector<int32_t>{1, 2, 4, 5, 7, 7}));
  EXPECT_EQ(Values<int32_t>(pad({nullptr, 4}, nullptr, m)), (std::vector<int32_t>{1, 2, 3, 0, 4, 5, 6, 0}));
  // 1.7 -> float32 -> int32 1 (truncated).
  EXPECT_EQ(Values<int32_t>(pad({2, 4}, 1.7, m)), (std::vector<int32_t>{1, 2, 3, 1, 4, 5, 6, 1}));
  // Through float32: 2^24 + 1 pads as 2^24.
  Tensor big = pad({3}, 16777217, Vec<int64_t>(TensorType::kInt64, {1}, {0}));
  EXPECT_EQ(Values<int64_t>(big), (std::vector<int64_t>{0, 16777216, 16777216}));
  EXPECT_TRUE(SameBytes(pad({2, 3}, 9, m), m));
  EXPECT_EQ(pad({2, 3}, 9, m).data(), m.data());  // nothing to pad: the input itself
  const Tensor scalar = Vec<float>(TensorType::kFloat32, {}, {1.5f});
  EXPECT_TRUE(SameBytes(pad({4}, 0, scalar), scalar));
  Tensor bytes = pad({4}, 120, Tensor::FromString(TensorType::kBytes, "ab"));
  EXPECT_EQ(bytes.type(), TensorType::kUInt8);
  EXPECT_EQ(Bytes(bytes), (std::vector<uint8_t>{'a', 'b', 'x', 'x'}));
  Tensor flags = pad({3}, 2, Vec<uint8_t>(TensorType::kBool, {1}, {0}));
  EXPECT_EQ(Bytes(flags), (std::vector<uint8_t>{0, 1, 1}));
  const Tensor word = Tensor::FromString(TensorType::kString, "ab");
  EXPECT_TRUE(SameBytes(pad({5}, "z", word), word));  // a string value is a scalar
  EXPECT_TRUE(Has(ErrorOf({{"op", "PadEnd"}, {"pad_shape", {5}}, {"pad_value", 1}}, word), "must both be numeric"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "PadEnd"}, {"pad_shape", {5}}, {"pad_value", "z"}}, m), "must both be numeric"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "PadEnd"}, {"pad_shape", {5}}}, m), "PadEnd: pad_shape [5] has 1 dimensions"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "PadEnd"}, {"pad_shape", {int64_t{1} << 40, 8}}}, m), "over 1 TiB"));
  EXPECT_TRUE(Has(SpecError({{"op", "PadEnd"}, {"pad_shape", {0}}}), "PadEnd: parameter 'pad_shape'"));
  EXPECT_TRUE(Has(SpecError({{"op", "PadEnd"}, {"pad_shape", {2.5}}}), "PadEnd: parameter 'pad_shape'"));
  EXPECT_TRUE(Has(SpecError({{"op", "PadEnd"}}), "PadEnd: parameter 'pad_shape'"));
  auto op = Op({{"op", "PadEnd"}, {"pad_shape", {nullptr, 3}}});
  EXPECT_TRUE(op->ToJson()["pad_value"].is_null());
  EXPECT_EQ(Op(op->ToJson())->ToJson(), op->ToJson());
}

TEST(OpsTensorTest, ConcatenateJoinsOneDimensionalColumns) {
  std::mt19937_64 rng(0);
  const nlohmann::json pre = {{"dtype", "int32"}, {"values", {-1, -2}}};
  const nlohmann::json post = {{"dtype", "int32"}, {"values", {9}}};
  auto op = Op({{"op", "Concatenate"}, {"prepend", pre}, {"append", post}});
  ASSERT_EQ(op->num_inputs(), -1);  // any number of columns
  auto r = op->ApplyColumns({Vec<int32_t>(TensorType::kInt32, {2}, {1, 2}), Vec<int32_t>(TensorType::kInt32, {1}, {3})},
                            rng);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{-1, -2, 1, 2, 3, 9}));
  EXPECT_EQ(Values<int32_t>(RunOp(*op, Vec<int32_t>(TensorType::kInt32, {0}, {}))), (std::vector<int32_t>{-1, -2, 9}));
  // Bytes count as uint8.
  Tensor joined = RunOp(*Op({{"op", "Concatenate"}, {"append", {{"dtype", "uint8"}, {"values", {33}}}}}),
                        Tensor::FromString(TensorType::kBytes, "hi"));
  EXPECT_EQ(Bytes(joined), (std::vector<uint8_t>{'h', 'i', '!'}));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Concatenate"}, {"prepend", pre}}, Vec<int64_t>(TensorType::kInt64, {1}, {1})),
                  "Concatenate: prepend is int32"));
  auto mixed = Op({{"op", "Concatenate"}})->ApplyColumns(
      {Vec<int32_t>(TensorType::kInt32, {1}, {1}), Vec<float>(TensorType::kFloat32, {1}, {1})}, rng);
  ASSERT_FALSE(mixed.ok());
  EXPECT_TRUE(Has(mixed.status().message(), "first input's type, int32"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Concatenate"}}, Vec<int32_t>(TensorType::kInt32, {1, 2}, {1, 2})),
                  "Concatenate: only 1-D inputs"));
  EXPECT_TRUE(Has(ErrorOf({{"op", "Concatenate"}}, Tensor::FromString(TensorType::kString, "ab")), "string value"));
  EXPECT_FALSE(Op({{"op", "Concatenate"}})->ApplyColumns({}, rng).ok());
  EXPECT_TRUE(Has(SpecError({{"op", "Concatenate"}, {"axis", 1}}), "Concatenate: parameter 'axis' must be 0 or -1"));
  EXPECT_TRUE(Has(SpecError({{"op", "Concatenate"}, {"prepend", {1, 2}}}), "Concatenate: parameter 'prepend'"));
  const nlohmann::json text_array = {{"dtype", "string"}, {"values", nlohmann::json::array()}};
  EXPECT_TRUE(Has(SpecError({{"op", "Concatenate"}, {"append", text_array}}), "dtype must be numeric"));
  // Floats JSON cannot hold round-trip as {"float": ...}.
  auto f = Op({{"op", "Concatenate"}, {"axis", -1},
               {"append", {{"dtype", "float32"}, {"values", {1.5, {{"float", "nan"}}, {{"float", "-inf"}}}}}}});
  Tensor fj = RunOp(*f, Vec<float>(TensorType::kFloat32, {1}, {0.0f}));
  ASSERT_EQ(fj.num_elements(), 4);
  EXPECT_TRUE(std::isnan(fj.data_as<float>()[2]));
  EXPECT_EQ(fj.data_as<float>()[3], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Op(f->ToJson())->ToJson(), f->ToJson());
  EXPECT_EQ(f->ToJson()["append"]["values"][1], (nlohmann::json{{"float", "nan"}}));
}

// Ops of any column count run inside Compose; a Compose's counts come from
// its first and last ops.
TEST(OpsTensorTest, ComposeChainsColumnCounts) {
  std::mt19937_64 rng(0);
  auto op = Op({{"op", "Compose"}, {"transforms", {{{"op", "Duplicate"}}, {{"op", "Concatenate"}}}}});
  ASSERT_EQ(op->num_inputs(), 1);
  ASSERT_EQ(op->num_outputs(), 1);
  Tensor twice = RunOp(*op, Vec<int64_t>(TensorType::kInt64, {2}, {4, 5}));
  EXPECT_EQ(Values<int64_t>(twice), (std::vector<int64_t>{4, 5, 4, 5}));
  auto any = Op({{"op", "Compose"}, {"transforms", {{{"op", "Concatenate"}}, {{"op", "Duplicate"}}}}});
  ASSERT_EQ(any->num_inputs(), -1);
  ASSERT_EQ(any->num_outputs(), 2);
  auto r = any->ApplyColumns({Vec<int64_t>(TensorType::kInt64, {1}, {1}), Vec<int64_t>(TensorType::kInt64, {1}, {2})},
                             rng);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(MakeOp({{"op", "Compose"}, {"transforms", {{{"op", "Duplicate"}}, {{"op", "Fill"}, {"fill_value", 1}}}}})
                   .ok());  // 2 columns into a 1-column op
}

}  // namespace
}  // namespace mindrecord
