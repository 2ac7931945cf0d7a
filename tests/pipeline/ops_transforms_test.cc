// Ops over ops (Compose, RandomApply, RandomChoice, RandomOrder,
// UniformAugment, RandomSelectSubpolicy) and OneHot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

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

}  // namespace
}  // namespace mindrecord
