// The execution tree through Plan and Pipeline::Open: node JSON round trips,
// each node's semantics, filters with the consumer's counts, per_batch_map,
// pad shapes, mixing, determinism across worker counts and exact resume.
#include <algorithm>
#include <numeric>
#include <set>

#include "pipeline/nodes/tree_spec.h"
#include "tests/pipeline/tree_test_util.h"

namespace mindrecord {
namespace {

using json = nlohmann::json;
using testing::BatchDigest;
using testing::Ints;
using testing::Names;

class TreeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTreeTestOps();
    a_ = new std::string(testing::WriteDataset("tree_a.mindrecord", 200, 1));
    b_ = new std::string(testing::WriteDataset("tree_b.mindrecord", 30, 1, 7, 1000));  // ids 1000..1029
    ten_ = new std::string(testing::WriteDataset("tree_ten.mindrecord", 10, 1));
  }
  static void TearDownTestSuite() {
    delete a_;
    delete b_;
    delete ten_;
  }

  static json Leaf(const std::string& path, std::vector<std::string> cols = {"id", "label"},
                   json sampler = {{"type", "sequential"}}) {
    return {{"node", "mindrecord"}, {"source", {path}}, {"columns", cols}, {"sampler", sampler}};
  }
  static json Node(const std::string& type, json input, json params = json::object()) {
    params["node"] = type;
    params["input"] = std::move(input);
    return params;
  }
  static json Batch(json input, uint64_t bs, bool drop = false, json more = json::object()) {
    more["batch_size"] = bs;
    more["drop_remainder"] = drop;
    return Node("batch", std::move(input), more);
  }
  static json Filter(json input, int64_t mod, int64_t rem = 0) {
    return Node("filter", std::move(input),
                {{"predicate", {{"op", "TestKeepMod"}, {"mod", mod}, {"rem", rem}}}, {"input_columns", {"id"}}});
  }
  static Plan TreePlan(const json& tree, uint32_t workers = 3, uint64_t epochs = 1) {
    auto p = Plan::FromJson({{"tree", tree}, {"num_workers", workers}, {"queue_depth", 3}, {"seed", 7},
                             {"epochs", epochs}});
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p : Plan();
  }
  static std::vector<mindrecord::Batch> Run(const Plan& p, const PipelineState* s = nullptr) {
    auto pipe = Pipeline::Open(p, s);
    EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
    if (!pipe.ok()) return {};
    return testing::Drain(pipe->get());
  }
  static Status OpenError(const json& tree) {
    auto p = Plan::FromJson({{"tree", tree}});
    if (!p.ok()) return p.status();
    auto pipe = Pipeline::Open(*p);
    return pipe.ok() ? Status::OK() : pipe.status();
  }
  static std::vector<uint64_t> Digests(const std::vector<mindrecord::Batch>& bs) {
    std::vector<uint64_t> d;
    for (const auto& b : bs) d.push_back(BatchDigest(b));
    return d;
  }
  // For each k: k batches, then a pipeline resumed from that state gives
  // exactly the rest of the uninterrupted run (with another worker count).
  static void ExpectExactResume(const Plan& plan, std::initializer_list<size_t> cuts) {
    const auto full = Digests(Run(plan));
    ASSERT_FALSE(full.empty());
    for (size_t k : cuts) {
      if (k >= full.size()) continue;
      auto pipe = Pipeline::Open(plan);
      ASSERT_TRUE(pipe.ok());
      auto head = testing::Drain(pipe->get(), k);
      const PipelineState s = (*pipe)->state();
      Plan other = plan;
      other.num_workers = plan.num_workers == 1 ? 4 : 1;
      auto rest = Digests(Run(other, &s));
      std::vector<uint64_t> joined = Digests(head);
      joined.insert(joined.end(), rest.begin(), rest.end());
      EXPECT_EQ(joined, full) << "resumed after " << k << " batches, state " << s.ToJson().dump();
    }
  }
  static std::string* a_;
  static std::string* b_;
  static std::string* ten_;
};
std::string* TreeTest::a_ = nullptr;
std::string* TreeTest::b_ = nullptr;
std::string* TreeTest::ten_ = nullptr;

std::vector<int64_t> Range(int64_t b, int64_t e, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t i = b; i < e; i += step) v.push_back(i);
  return v;
}

TEST_F(TreeTest, PlanJsonRoundTripsEveryNode) {
  json leaf = Leaf("/d/a.mindrecord");
  leaf["seed"] = 5;
  leaf["padded"] = {{"count", 1}, {"row", {{"id", 1}, {"label", 2}}}};
  json mix = {{"node", "mix"}, {"inputs", {leaf, Leaf("/d/b.mindrecord")}}, {"weights", {2, 1.5}}, {"policy", "drop"}};
  json zip = {{"node", "zip"},
              {"inputs", {Node("rename", mix, {{"input_columns", {"id"}}, {"output_columns", {"a"}}}),
                          Node("project", Leaf("/d/c"), {{"columns", {"id"}}})}}};
  json concat = {{"node", "concat"}, {"inputs", {zip, zip}}};
  json t = Node("shard", Node("shuffle", Node("repeat", concat, {{"count", 2}}), {{"buffer_size", 8}}),
                {{"num_shards", 2}, {"shard_id", 1}});
  t = Node("skip", Node("take", t, {{"count", 9}}), {{"count", 1}});
  t = Node("filter", t, {{"predicate", {{"op", "PyFunc"}, {"name", "f"}, {"_ref", 3}}}});
  t = Node("ops", t, {{"ops", {{"a", {{{"op", "Decode"}}}}}}});
  t = Node("map", t, {{"operations", {{{"op", "TestSum"}}}}, {"input_columns", {"a", "label"}}, {"output_columns", {"s"}}});
  t = Batch(t, 4, true, {{"ragged", {{"s", {{"pad", 0}, {"shape", {-1, 3}}}}}},
                         {"per_batch_map", {{"map", "PyBatchMap"}, {"_ref", 2}}}});
  t = Node("map", t, {{"operations", {{{"op", "TestSwap"}}}}});
  const Plan p = TreePlan(t);
  const std::string text = p.ToString();
  auto q = Plan::Parse(text);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->ToString(), text);
  EXPECT_EQ(q->SequenceFingerprint(), p.SequenceFingerprint());
  // Normalized: defaults filled in, and normalizing again changes nothing.
  const json tree = q->ToJson()["tree"];
  EXPECT_EQ(*NormalizeTree(tree), tree);
  EXPECT_EQ(tree["input"]["input"]["input_columns"], json::array({"a", "label"}));
  EXPECT_EQ(tree["input"]["input"]["input"]["input"]["input"]["input"]["input"]["split"], "round_robin");
  EXPECT_FALSE(tree["input"].contains("input_columns"));  // a batch's are printed only when given
  // Handles ('_' keys of op and batch map specs) do not change the fingerprint; the ops do.
  json other = t;
  other["input"]["per_batch_map"]["_ref"] = 9;
  EXPECT_EQ(TreePlan(other).SequenceFingerprint(), p.SequenceFingerprint());
  other["input"]["batch_size"] = 5;
  EXPECT_NE(TreePlan(other).SequenceFingerprint(), p.SequenceFingerprint());
  // The flat keys belong to nodes, not beside a tree.
  auto both = Plan::FromJson({{"tree", Leaf("/d/a")}, {"columns", {"id"}}});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("'columns' belongs to a node"), std::string::npos);
}

TEST_F(TreeTest, BadTreesAreRefusedNamingThePlace) {
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"node", "mindrecord"}}, "needs 'source'"},
      {{{"node", "nope"}}, "unknown node type 'nope'"},
      {Node("map", Leaf("/d/a"), {{"operations", json::array()}}), "tree: needs 'operations'"},
      {Node("map", Leaf("/d/a"), {{"operations", {{{"name", "x"}}}}}), "op spec"},
      {Node("take", Leaf("/d/a"), {{"cuont", 1}}), "unknown key 'cuont'"},
      {Node("rename", Leaf("/d/a"), {{"input_columns", {"a", "b"}}, {"output_columns", {"c"}}}), "differ in length"},
      {Node("repeat", Leaf("/d/a"), {{"count", 0}}), "'count' must be an integer >= 1"},
      {{{"node", "mix"}, {"inputs", {Leaf("/d/a")}}, {"weights", {1, 2}}}, "one number per input"},
      {{{"node", "mix"}, {"inputs", {Leaf("/d/a")}}, {"weights", {1}}, {"policy", "loop"}}, "'policy'"},
      {{{"node", "mix"}, {"inputs", {Leaf("/d/a")}}, {"weights", {1}}, {"policy", 3}}, "'policy'"},
      {{{"node", "map"}, {"input", 7}}, "tree.input: a node must be an object"},
      {Node("shard", Leaf("/d/a"), {{"num_shards", 2}, {"split", 1}}), "'split'"},
      {Node("batch", Leaf("/d/a"), {{"ragged", {{"x", {{"pad", 0}, {"shape", {0}}}}}}}), "'shape' must be a list"},
      {{{"node", "zip"}, {"inputs", json::array()}}, "non-empty list"},
      {Batch(Leaf("/d/a"), 2, false, {{"input_columns", {"id"}}}), "go with a 'per_batch_map'"},
      {Node("shard", Leaf("/d/a"), {{"num_shards", 2}, {"shard_id", 2}}), "'shard_id' must be below"},
      {Node("project", {{"node", "map"}, {"operations", {{{"op", "x"}}}}}, {{"columns", {"id"}}}),
       "tree.input: needs an 'input' node"},
  };
  for (const auto& [tree, want] : bad) {
    auto p = Plan::FromJson({{"tree", tree}});
    ASSERT_FALSE(p.ok()) << tree.dump();
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(p.status().message().find(want), std::string::npos) << p.status().message() << " / want " << want;
  }
}

TEST_F(TreeTest, FlatPlanRunsExactlyAsItsTree) {
  Plan flat;
  flat.source = {*a_};
  flat.columns = {"id", "vec"};
  flat.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  flat.ops["vec"] = {{{"op", "TestJitter"}}};
  flat.batch.batch_size = 16;
  flat.seed = 11;
  flat.epochs = 2;
  Plan tree = flat;
  tree.tree = *NormalizeTree(FlatPlanTree(flat));
  const auto a = Run(flat), b = Run(tree);
  ASSERT_EQ(a.size(), 26u);
  EXPECT_EQ(Digests(a), Digests(b));  // the same rows, order and random ops
}

TEST_F(TreeTest, MultiColumnMapFollowsMindSporesColumnOrder) {
  const json leaf = Leaf(*a_, {"id", "label", "vec"});
  auto run = [&](json params) {
    params["operations"] = params["ops_"];
    params.erase("ops_");
    auto bs = Run(TreePlan(Batch(Node("map", leaf, params), 50)));
    EXPECT_EQ(bs.size(), 4u);
    return bs;
  };
  const auto ids = Range(0, 200);
  std::vector<int64_t> labels, sums;
  for (int64_t k : ids) {
    labels.push_back(k % 7);
    sums.push_back(k + k % 7);
  }
  // Fewer outputs than inputs: the outputs first, then the other columns in order.
  auto b = run({{"ops_", {{{"op", "TestSum"}}}}, {"input_columns", {"id", "label"}}, {"output_columns", {"s"}}});
  EXPECT_EQ(Names(b[0]), (std::vector<std::string>{"s", "vec"}));
  EXPECT_EQ(Ints(b, "s"), sums);
  // As many outputs as inputs: they take the inputs' places (renamed).
  b = run({{"ops_", {{{"op", "TestSwap"}}}}, {"input_columns", {"id", "label"}}, {"output_columns", {"x", "y"}}});
  EXPECT_EQ(Names(b[0]), (std::vector<std::string>{"x", "y", "vec"}));
  EXPECT_EQ(Ints(b, "x"), labels);
  EXPECT_EQ(Ints(b, "y"), ids);
  b = run({{"ops_", {{{"op", "TestSwap"}}}}, {"input_columns", {"label", "id"}}});  // names kept in place
  EXPECT_EQ(Names(b[0]), (std::vector<std::string>{"id", "label", "vec"}));
  EXPECT_EQ(Ints(b, "id"), labels);
  // More outputs than inputs: outputs first.
  b = run({{"ops_", {{{"op", "TestDup"}}}}, {"input_columns", {"label"}}, {"output_columns", {"l1", "l2"}}});
  EXPECT_EQ(Names(b[0]), (std::vector<std::string>{"l1", "l2", "id", "vec"}));
  EXPECT_EQ(Ints(b, "l2"), labels);
  // Each op takes what the previous gave: 1 -> 2 -> 1.
  b = run({{"ops_", {{{"op", "TestDup"}}, {{"op", "TestSum"}}}}, {"input_columns", {"id"}}, {"output_columns", {"d"}}});
  EXPECT_EQ(Names(b[0]), (std::vector<std::string>{"d", "label", "vec"}));
  std::vector<int64_t> twice;
  for (int64_t k : ids) twice.push_back(2 * k);
  EXPECT_EQ(Ints(b, "d"), twice);
  // Counts that cannot match are refused before anything runs, naming the op.
  Status st = OpenError(Node("map", leaf, {{"operations", {{{"op", "TestSum"}}}}, {"input_columns", {"id"}}}));
  EXPECT_NE(st.message().find("op TestSum takes 2 column(s), it is given 1"), std::string::npos) << st.ToString();
  st = OpenError(Node("map", leaf, {{"operations", {{{"op", "TestSwap"}}}}, {"input_columns", {"id", "label"}},
                                   {"output_columns", {"x"}}}));
  EXPECT_NE(st.message().find("output_columns names 1"), std::string::npos) << st.ToString();
  st = OpenError(Node("map", leaf, {{"operations", {{{"op", "TestSum"}}}}, {"input_columns", {"id", "nope"}}}));
  EXPECT_NE(st.message().find("column 'nope' is not a column of its input"), std::string::npos) << st.ToString();
  st = OpenError(Node("map", leaf, {{"operations", {{{"op", "TestSum"}}}}, {"input_columns", {"id", "label"}},
                                   {"output_columns", {"vec"}}}));
  EXPECT_NE(st.message().find("name 'vec' twice"), std::string::npos) << st.ToString();
}

TEST_F(TreeTest, MapProjectRenameAfterBatchSeeWholeBatches) {
  json t = Batch(Leaf(*a_, {"id", "label", "vec"}), 8);
  t = Node("map", t, {{"operations", {{{"op", "TestSwap"}}}}, {"input_columns", {"id", "label"}}});
  t = Node("rename", t, {{"input_columns", {"vec"}}, {"output_columns", {"v"}}});
  t = Node("project", t, {{"columns", {"v", "id"}}});
  const auto bs = Run(TreePlan(t));
  ASSERT_EQ(bs.size(), 25u);
  EXPECT_EQ(Names(bs[0]), (std::vector<std::string>{"v", "id"}));
  EXPECT_EQ(bs[0].column("id")->data.shape(), (std::vector<int64_t>{8}));
  EXPECT_EQ(Ints(bs, "id")[10], 10 % 7);  // the swapped label column
  EXPECT_EQ(bs[0].column("v")->data.shape(), (std::vector<int64_t>{8, 4}));
}

TEST_F(TreeTest, PositionalNodes) {
  auto ids = [&](const json& t) { return Ints(Run(TreePlan(Batch(t, 7))), "id"); };
  EXPECT_EQ(ids(Node("take", Node("skip", Leaf(*a_), {{"count", 5}}), {{"count", 10}})), Range(5, 15));
  EXPECT_EQ(ids(Node("skip", Leaf(*a_), {{"count", 500}})).size(), 0u);
  json concat = {{"node", "concat"},
                 {"inputs", {Node("take", Leaf(*a_), {{"count", 3}}), Node("take", Leaf(*b_), {{"count", 2}})}}};
  EXPECT_EQ(ids(concat), (std::vector<int64_t>{0, 1, 2, 1000, 1001}));
  EXPECT_EQ(ids(Node("repeat", Node("take", Leaf(*a_), {{"count", 3}}), {{"count", 2}})),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  // zip: side by side, as long as the shortest.
  json zip = {{"node", "zip"},
              {"inputs", {Node("project", Leaf(*a_), {{"columns", {"id"}}}),
                          Node("rename", Leaf(*b_), {{"input_columns", {"id", "label"}},
                                                     {"output_columns", {"bid", "blabel"}}})}}};
  auto z = Run(TreePlan(Batch(zip, 7)));
  EXPECT_EQ(Names(z[0]), (std::vector<std::string>{"id", "bid", "blabel"}));
  EXPECT_EQ(Ints(z, "id"), Range(0, 30));
  EXPECT_EQ(Ints(z, "bid"), Range(1000, 1030));
  json same = {{"node", "zip"}, {"inputs", {Leaf(*a_), Leaf(*b_)}}};
  EXPECT_NE(OpenError(same).message().find("zip: rename the inputs' columns apart first"), std::string::npos);
  json mismatch = {{"node", "concat"}, {"inputs", {Leaf(*a_), Leaf(*b_, {"label", "id"})}}};
  EXPECT_NE(OpenError(mismatch).message().find("same columns in every input"), std::string::npos);
  // shuffle: a permutation, new each epoch, the same for any worker count.
  json sh = Node("shuffle", concat, {{"buffer_size", 100}});
  auto p = TreePlan(Batch(Node("repeat", sh, {{"count", 2}}), 3), 1, 1);
  auto s1 = Ints(Run(p), "id");
  p.num_workers = 4;
  EXPECT_EQ(Ints(Run(p), "id"), s1);
  std::vector<int64_t> first(s1.begin(), s1.begin() + 5), second(s1.begin() + 5, s1.end());
  EXPECT_NE(first, second);
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(first, (std::vector<int64_t>{0, 1, 2, 1000, 1001}));
  EXPECT_EQ(second, first);
  // shard: ranks of a concat are disjoint and cover it.
  std::multiset<int64_t> all;
  json both = {{"node", "concat"}, {"inputs", {Leaf(*a_), Leaf(*b_)}}};
  for (int r = 0; r < 3; ++r) {
    for (int64_t v : ids(Node("shard", both, {{"num_shards", 3}, {"shard_id", r}}))) all.insert(v);
  }
  std::vector<int64_t> want = Range(0, 200);
  for (int64_t v : Range(1000, 1030)) want.push_back(v);
  EXPECT_EQ(std::vector<int64_t>(all.begin(), all.end()), want);
}

TEST_F(TreeTest, FilterDropsRowsBatchesStayFullAnyWorkerCount) {
  const json t = Batch(Filter(Leaf(*a_, {"id", "label"}, {{"type", "shuffle"}, {"mode", "global"}}), 3), 8);
  std::vector<uint64_t> first;
  for (uint32_t w : {1u, 3u}) {
    auto pipe = Pipeline::Open(TreePlan(t, w));
    ASSERT_TRUE(pipe.ok());
    const auto bs = testing::Drain(pipe->get());
    auto v = Ints(bs, "id");
    ASSERT_EQ(v.size(), 67u);
    for (int64_t k : v) EXPECT_EQ(k % 3, 0);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, Range(0, 200, 3));
    for (size_t i = 0; i + 1 < bs.size(); ++i) EXPECT_EQ(bs[i].size(), 8u);
    EXPECT_EQ((*pipe)->stats().rows_filtered, 133u);
    if (first.empty()) first = Digests(bs);
    else EXPECT_EQ(Digests(bs), first);
  }
}

TEST_F(TreeTest, FilterResumesExactlyMidEpoch) {
  json t = Node("filter", Leaf(*a_, {"id", "vec"}, {{"type", "shuffle"}, {"mode", "global"}}),
                {{"predicate", {{"op", "TestKeepRandom"}}}, {"input_columns", {"id"}}});
  t = Node("map", t, {{"operations", {{{"op", "TestJitter"}}}}, {"input_columns", {"vec"}}});
  ExpectExactResume(TreePlan(Batch(t, 6), 3, 2), {1, 4, 9, 17, 20});
}

TEST_F(TreeTest, TakeAndSkipOfFilteredRowsAreCountedByTheConsumer) {
  // take(25) of the even ids, batched by 4: every epoch the same 25 rows.
  const json take = Batch(Node("take", Filter(Leaf(*a_), 2), {{"count", 25}}), 4);
  auto pipe = Pipeline::Open(TreePlan(take, 2, 2));
  ASSERT_TRUE(pipe.ok());
  const auto bs = testing::Drain(pipe->get());
  ASSERT_EQ(bs.size(), 14u);
  EXPECT_EQ(bs[6].size(), 1u);
  EXPECT_EQ(bs[7].epoch, 1u);
  auto v = Ints(bs, "id");
  std::vector<int64_t> want = Range(0, 50, 2);
  want.insert(want.end(), want.begin(), want.end());
  EXPECT_EQ(v, want);
  // The epoch's tasks past the take are not read (a few read ahead at most).
  EXPECT_LT((*pipe)->stats().rows_filtered, 100u);
  ExpectExactResume(TreePlan(take, 2, 2), {2, 6, 7, 9});
  // skip, and take after skip, both counted over the surviving rows.
  const json skip = Batch(Node("take", Node("skip", Filter(Leaf(*a_), 2), {{"count", 90}}), {{"count", 6}}), 4);
  EXPECT_EQ(Ints(Run(TreePlan(skip)), "id"), Range(180, 192, 2));
  ExpectExactResume(TreePlan(skip, 3, 3), {1, 2, 3});
  // A map above the counted take still runs per row.
  const json mapped = Batch(Node("map", Node("take", Filter(Leaf(*a_), 2), {{"count", 5}}),
                                 {{"operations", {{{"op", "TestSum"}}}}, {"input_columns", {"id", "label"}},
                                  {"output_columns", {"s"}}}),
                            2);
  EXPECT_EQ(Ints(Run(TreePlan(mapped)), "s"), (std::vector<int64_t>{0, 4, 8, 12, 9}));  // id + id % 7
}

TEST_F(TreeTest, ShapesThatCannotBeExactAfterAFilterAreRefused) {
  const json f = Filter(Leaf(*a_), 2);
  EXPECT_NE(OpenError({{"node", "zip"}, {"inputs", {f, Leaf(*b_, {"data"})}}}).message().find("zip of a filtered"),
            std::string::npos);
  EXPECT_NE(OpenError({{"node", "mix"}, {"inputs", {f, Leaf(*b_)}}, {"weights", {1, 1}}}).message().find(
                "mix of a filtered"),
            std::string::npos);
  Status st = OpenError({{"node", "concat"}, {"inputs", {Node("take", f, {{"count", 3}}), Leaf(*b_)}}});
  EXPECT_NE(st.message().find("take of a filtered dataset is supported only on the way to the batch"),
            std::string::npos)
      << st.ToString();
  st = OpenError(Filter(Node("take", f, {{"count", 3}}), 3));  // the take is counted before the filter
  EXPECT_NE(st.message().find("take of a filtered dataset is supported only on the way to the batch"),
            std::string::npos);
  st = OpenError(Node("take", Node("repeat", Batch(f, 2), {{"count", 2}}), {{"count", 1}}));
  EXPECT_NE(st.message().find("above a repeat above the batch"), std::string::npos) << st.ToString();
}

TEST_F(TreeTest, DropRemainderEndsTheEpochAtItsLastFullBatch) {
  // 10 rows, batch 4, drop_remainder: each epoch is 2 batches, and after an
  // epoch's last batch the state is the next epoch's start.
  for (bool filtered : {false, true}) {
    json rows = Leaf(*ten_);
    if (filtered) rows = Filter(rows, 1);  // keeps every row, but rows could go missing
    auto pipe = Pipeline::Open(TreePlan(Batch(rows, 4, true), 2, 3));
    ASSERT_TRUE(pipe.ok());
    std::vector<std::pair<uint64_t, uint64_t>> states;
    mindrecord::Batch b;
    while ((*pipe)->Next(&b).value()) {
      EXPECT_EQ(b.size(), 4u);
      states.push_back({(*pipe)->state().epoch, (*pipe)->state().position});
    }
    EXPECT_EQ(states.size(), 6u) << filtered;
    // Without a filter the remainder is known and never read; with one, it
    // is read, found short and dropped, and the state moves on then.
    if (!filtered) {
      EXPECT_EQ(states[1], (std::pair<uint64_t, uint64_t>{1, 0}));
      EXPECT_EQ(states[3], (std::pair<uint64_t, uint64_t>{2, 0}));
    }
    EXPECT_EQ((*pipe)->state().epoch, 3u);
    EXPECT_EQ((*pipe)->state().position, 0u);
  }
  // A resume from inside the dropped remainder starts the next epoch.
  Plan p = TreePlan(Batch(Leaf(*ten_), 4, true), 2, 2);
  PipelineState s;
  s.seed = p.seed;
  s.fingerprint = p.SequenceFingerprint();
  s.position = 9;
  const auto rest = Run(p, &s);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].epoch, 1u);
}

TEST_F(TreeTest, PerBatchMapGetsMindSporesBatchInfo) {
  for (bool batched : {false, true}) {
    for (bool filtered : {false, true}) {
      json rows = Node("take", Leaf(*a_), {{"count", 10}});
      if (filtered) rows = Filter(Leaf(*a_), 1);  // every row kept; the consumer numbers the batches
      if (filtered) rows = Node("take", rows, {{"count", 10}});
      const json t = Batch(rows, 4, false,
                           {{"per_batch_map", {{"map", "TestInfo"}, {"batched", batched}}},
                            {"input_columns", {"id"}}, {"output_columns", {"id", "info"}}});
      const Plan p = TreePlan(t, 2, 2);
      const auto bs = Run(p);
      ASSERT_EQ(bs.size(), 6u);
      // Outputs first (counts differ), then the other input columns.
      EXPECT_EQ(Names(bs[0]), (std::vector<std::string>{"id", "info", "label"}));
      EXPECT_EQ(Ints(bs, "info"), (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2,
                                                        1000, 1000, 1000, 1000, 1001, 1001, 1001, 1001, 1002, 1002}));
      EXPECT_EQ(Ints(bs, "id"), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
      ExpectExactResume(p, {1, 2, 4});
    }
  }
  EXPECT_NE(OpenError(Batch(Leaf(*a_), 2, false, {{"per_batch_map", {{"map", "Nope"}}}})).message().find(
                "no batch map named 'Nope'"),
            std::string::npos);
}

TEST_F(TreeTest, PadShapePadsEveryRowToIt) {
  json t = Batch(Leaf(*a_, {"data", "vec"}), 4, false, {{"ragged", {{"data", {{"pad", 0}, {"shape", {256}}}},
                                                                   {"vec", {{"pad", -1}, {"shape", {6}}}}}}});
  const auto bs = Run(TreePlan(t));
  ASSERT_EQ(bs.size(), 50u);
  EXPECT_EQ(bs[0].column("data")->data.shape(), (std::vector<int64_t>{4, 256}));
  const BatchColumn* vec = bs[0].column("vec");
  ASSERT_EQ(vec->data.shape(), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(vec->data.data_as<float>()[6 + 1], 1.25f);  // row 1: [1, 1.25, 1.5, 1.75, -1, -1]
  EXPECT_EQ(vec->data.data_as<float>()[6 + 4], -1.0f);
  EXPECT_EQ(vec->row_shapes[1], (std::vector<int64_t>{4}));
  t["ragged"]["data"]["shape"] = {16};  // rows are longer
  auto pipe = Pipeline::Open(TreePlan(t));
  ASSERT_TRUE(pipe.ok());
  Status err;
  testing::Drain(pipe->get(), SIZE_MAX, &err);
  EXPECT_NE(err.message().find("batch column 'data': a row of shape up to"), std::string::npos) << err.ToString();
}

TEST_F(TreeTest, MixDrawsByWeightWithEachPolicy) {
  const json a = Leaf(*a_, {"id", "label"}, {{"type", "shuffle"}, {"mode", "global"}});
  const json b = Leaf(*b_);
  auto mix = [&](json weights, const std::string& policy, uint64_t n = 0) {
    return json{{"node", "mix"}, {"inputs", {a, b}}, {"weights", weights}, {"policy", policy}, {"num_samples", n}};
  };
  auto split = [](const std::vector<int64_t>& v) {
    std::vector<int64_t> fa, fb;
    for (int64_t k : v) (k >= 1000 ? fb : fa).push_back(k);
    return std::make_pair(fa, fb);
  };
  // drop: every row of both, each input in its own order, the rest renormalised.
  auto pipe = Pipeline::Open(TreePlan(Batch(mix({3, 1}, "drop"), 10)));
  ASSERT_TRUE(pipe.ok());
  auto v = Ints(testing::Drain(pipe->get()), "id");
  ASSERT_EQ(v.size(), 230u);
  auto [fa, fb] = split(v);
  EXPECT_EQ(fb, Range(1000, 1030));
  std::sort(fa.begin(), fa.end());
  EXPECT_EQ(fa, Range(0, 200));
  EXPECT_EQ((*pipe)->stats().mix_rows, (std::vector<std::vector<uint64_t>>{{200, 30}}));
  // Weights: about 3 of 4 draws from input 0 while both last (binomial, 4 sd).
  auto first = split(std::vector<int64_t>(v.begin(), v.begin() + 100)).first;
  EXPECT_NEAR(static_cast<double>(first.size()), 75.0, 18.0);
  // stop: the epoch ends when a drawn input has run out.
  v = Ints(Run(TreePlan(Batch(mix({1, 1}, "stop"), 10))), "id");
  EXPECT_EQ(split(v).second.size(), 30u);
  EXPECT_LT(v.size(), 230u);
  // restart: an input that runs out starts a new pass (a new shuffle).
  v = Ints(Run(TreePlan(Batch(mix({1, 0}, "restart", 450), 10))), "id");
  ASSERT_EQ(v.size(), 450u);
  std::vector<int64_t> p0(v.begin(), v.begin() + 200), p1(v.begin() + 200, v.begin() + 400);
  EXPECT_NE(p0, p1);
  std::sort(p0.begin(), p0.end());
  std::sort(p1.begin(), p1.end());
  EXPECT_EQ(p0, Range(0, 200));
  EXPECT_EQ(p1, p0);
  // Deterministic for any worker count, and resumable mid-epoch.
  const Plan p = TreePlan(Batch(mix({2, 1}, "restart", 300), 7), 1, 2);
  Plan w4 = p;
  w4.num_workers = 4;
  EXPECT_EQ(Digests(Run(p)), Digests(Run(w4)));
  ExpectExactResume(p, {1, 20, 43, 50});
}

TEST_F(TreeTest, RepeatAndTakeAboveTheBatch) {
  // repeat after batch: each pass batched on its own.
  auto bs = Run(TreePlan(Node("repeat", Batch(Node("take", Leaf(*a_), {{"count", 10}}), 4), {{"count", 2}})));
  std::vector<size_t> sizes;
  for (const auto& b : bs) sizes.push_back(b.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2, 4, 4, 2}));
  // take / skip of batches: positional without a filter, counted with one.
  EXPECT_EQ(Ints(Run(TreePlan(Node("take", Node("skip", Batch(Leaf(*a_), 4), {{"count", 2}}), {{"count", 3}}))), "id"),
            Range(8, 20));
  const json counted = Node("take", Node("skip", Batch(Filter(Leaf(*a_), 2), 4), {{"count", 2}}), {{"count", 3}});
  const Plan p = TreePlan(counted, 3, 2);
  auto v = Ints(Run(p), "id");
  std::vector<int64_t> want = Range(16, 40, 2);
  want.insert(want.end(), want.begin(), want.end());
  EXPECT_EQ(v, want);
  ExpectExactResume(p, {1, 2, 3, 4});
}

// MindSpore's bucket_batch_by_length: each row to the bucket of its length,
// a bucket batched once full, the buckets' remainders at the epoch's end.
TEST_F(TreeTest, BucketBatchesByLengthAndResumesExactly) {
  const json shuffled = Leaf(*a_, {"id", "label", "data"}, {{"type", "shuffle"}, {"mode", "global"}});
  // Lengths: label's value (0..6), then data's first dimension (20..209).
  const json by_label = {{"column", "label"}, {"length", "value"}, {"boundaries", {2, 5}}, {"batch_sizes", {3, 2, 4}}};
  const json by_data = {{"column", "data"}, {"boundaries", {60, 120, 180}}, {"batch_sizes", {5, 1, 3, 2}},
                        {"pad_to_boundary", true}};
  auto bucketed = [](json input, json bucket, bool drop = false, json ragged = json::object()) {
    return Node("batch", std::move(input), {{"bucket", bucket}, {"drop_remainder", drop}, {"ragged", ragged}});
  };
  // What a plain model of the op gives over the same rows.
  const auto rows = Run(TreePlan(Batch(shuffled, 1)));
  auto model = [&](const std::vector<uint64_t>& bounds, const std::vector<size_t>& sizes, bool by_value, bool drop) {
    std::vector<std::vector<int64_t>> buckets(sizes.size()), out;
    for (const auto& r : rows) {
      const int64_t len = by_value ? Ints({r}, "label")[0] : r.column("data")->list[0].shape()[0];
      const size_t b = std::upper_bound(bounds.begin(), bounds.end(), static_cast<uint64_t>(len)) - bounds.begin();
      buckets[b].push_back(Ints({r}, "id")[0]);
      if (buckets[b].size() == sizes[b]) out.push_back(std::move(buckets[b])), buckets[b].clear();
    }
    for (auto& b : buckets)
      if (!drop && !b.empty()) out.push_back(b);
    return out;
  };
  for (bool drop : {false, true}) {
    for (uint32_t w : {1u, 4u}) {
      std::vector<std::vector<int64_t>> got;
      for (const auto& b : Run(TreePlan(bucketed(shuffled, by_label, drop), w))) got.push_back(Ints({b}, "id"));
      EXPECT_EQ(got, model({2, 5}, {3, 2, 4}, true, drop)) << "drop " << drop << ", workers " << w;
    }
  }
  // A length map (the Python binding's element_length_function) called per
  // row by the consumer: here the label's value, so the same batches.
  const json by_map = {{"length_map", {{"map", "TestValue"}}}, {"input_columns", {"label"}},
                       {"boundaries", {2, 5}}, {"batch_sizes", {3, 2, 4}}};
  EXPECT_EQ(Digests(Run(TreePlan(bucketed(shuffled, by_map), 3))), Digests(Run(TreePlan(bucketed(shuffled, by_label)))));
  ExpectExactResume(TreePlan(bucketed(Filter(shuffled, 3), by_map), 2, 2), {2, 9, 15});
  // pad_to_boundary: data padded to its bucket's bound - 1 (last bucket: an error).
  const json pad = {{"data", {{"pad", 0}, {"shape", {-1}}}}};
  const auto padded = Run(TreePlan(bucketed(Node("filter", shuffled, {{"predicate", {{"op", "TestKeepMod"}, {"mod", 190},
                                                                                       {"rem", 0}}}, {"input_columns", {"id"}}}),
                                            by_data, false, pad)));
  ASSERT_FALSE(padded.empty());  // ids 0 and 190: data of 20 and 10 + 7030 % 190 bytes
  for (const auto& b : padded) EXPECT_EQ(b.column("data")->data.shape()[1], 59);
  auto pipe = Pipeline::Open(TreePlan(bucketed(shuffled, by_data, false, pad)));
  ASSERT_TRUE(pipe.ok());
  Status error;
  testing::Drain(pipe->get(), SIZE_MAX, &error);
  EXPECT_NE(error.message().find("last bucket"), std::string::npos) << error.ToString();
  // Exact resume from inside an epoch: with a filter, a take of its rows and
  // a skip of batches the consumer counts, over two epochs.
  const json counted = Node("skip", bucketed(Node("take", Filter(shuffled, 3), {{"count", 50}}), by_label), {{"count", 1}});
  ExpectExactResume(TreePlan(counted, 3, 2), {1, 3, 5, 8, 12, 20});
  ExpectExactResume(TreePlan(bucketed(shuffled, by_data), 2, 2), {1, 2, 7, 30, 77});
  // Bad specs name what is wrong.
  for (const auto& [bucket, want] : std::vector<std::pair<json, std::string>>{
           {{{"column", "id"}, {"boundaries", {3, 3}}, {"batch_sizes", {1, 1, 1}}}, "strictly increasing"},
           {{{"column", "id"}, {"boundaries", {3}}, {"batch_sizes", {1}}}, "one size per bucket"},
           {{{"column", "id"}, {"boundaries", {3}}, {"batch_sizes", {1, 0}}}, "integers in [1"},
           {{{"column", "id"}, {"boundaries", {3}}, {"batch_sizes", {1, 1}}, {"lenght", "value"}}, "unknown key 'lenght'"},
           {{{"column", "id"}, {"boundaries", {3}}, {"batch_sizes", {1, 1}}, {"length", "max"}}, "'length' must be"},
           {{{"length_map", {{"map", "TestValue"}}}, {"boundaries", {3}}, {"batch_sizes", {1, 1}}}, "'input_columns'"},
           {{{"length_map", {{"map", "TestValue"}}}, {"input_columns", {"id"}}, {"column", "id"}, {"boundaries", {3}},
             {"batch_sizes", {1, 1}}}, "not 'column'"}}) {
    auto p = Plan::FromJson({{"tree", bucketed(shuffled, bucket)}});
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.status().message().find(want), std::string::npos) << p.status().message();
  }
  EXPECT_FALSE(Plan::FromJson({{"tree", Batch(shuffled, 4, false, {{"bucket", by_label}})}}).ok());  // batch_size beside it
  EXPECT_NE(OpenError(bucketed(shuffled, {{"column", "nope"}, {"boundaries", {3}}, {"batch_sizes", {1, 1}}}))
                .message().find("nope"), std::string::npos);
}

// MindSpore's batch(batch_size=callable): a batch size map asked per batch;
// the consumer cuts the batches, so workers, filters and resume do not
// change them.
TEST_F(TreeTest, BatchSizeMapSizesEachBatch) {
  const json sizes = {{"map", "TestSizes"}, {"base", 2}};
  const json shuffled = Leaf(*a_, {"id", "label"}, {{"type", "shuffle"}, {"mode", "global"}});
  auto sized = [&](json input, bool drop, json map = json()) {
    return Node("batch", std::move(input),
                {{"batch_size", 16}, {"drop_remainder", drop}, {"batch_size_map", map.is_null() ? sizes : map}});
  };
  for (bool drop : {false, true}) {
    std::vector<size_t> got;
    std::vector<int64_t> ids;
    for (const auto& b : Run(TreePlan(Node("repeat", sized(Node("take", shuffled, {{"count", 21}}), drop),
                                           {{"count", 2}}), 3))) {
      got.push_back(b.size());
      for (int64_t id : Ints({b}, "id")) ids.push_back(id);
    }
    // Each pass of the repeat numbers its batches from 0 (in epoch 0, as a
    // per_batch_map's BatchInfo): 2 + 3 + 4 + 2 + 3 + 4 + 2 rows, then 1 of 3.
    std::vector<size_t> pass = {2, 3, 4, 2, 3, 4, 2};
    if (!drop) pass.push_back(1);
    std::vector<size_t> want = pass;
    want.insert(want.end(), pass.begin(), pass.end());
    EXPECT_EQ(got, want) << "drop " << drop;
    EXPECT_EQ(ids.size(), drop ? 40u : 42u);
  }
  for (uint32_t w : {1u, 4u}) {
    EXPECT_EQ(Digests(Run(TreePlan(sized(Filter(shuffled, 3), false), w))),
              Digests(Run(TreePlan(sized(Filter(shuffled, 3), false), 2))));
  }
  ExpectExactResume(TreePlan(sized(Filter(shuffled, 3), false), 3, 2), {1, 2, 7, 20, 30});
  ExpectExactResume(TreePlan(sized(shuffled, true), 2, 2), {1, 5, 66, 70});
  // A size outside [1, 2^31 - 1] stops the run naming the map and the batch.
  auto pipe = Pipeline::Open(TreePlan(sized(shuffled, false, {{"map", "TestSizes"}, {"base", -1}})));
  ASSERT_TRUE(pipe.ok());
  Status error;
  testing::Drain(pipe->get(), SIZE_MAX, &error);
  EXPECT_NE(error.message().find("batch_size TestSizes (epoch 0, batch 0) gave -1"), std::string::npos)
      << error.ToString();
  EXPECT_FALSE(Plan::FromJson({{"tree", Node("batch", shuffled, {{"batch_size_map", 3}})}}).ok());
}

}  // namespace
}  // namespace mindrecord
