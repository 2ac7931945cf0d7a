// Batches a source gathers (Source::FixedRows / Gather, e.g. in-memory
// arrays): the same batches, state and errors as the same rows read one by
// one, and the cases that must not gather.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "pipeline/nodes/source_registry.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::Drain;

std::atomic<int> g_gathers{0}, g_reads{0};

// Row i: "v" = float32[3] {i, i + 0.25, i + 0.5}, "id" = int64 i. With
// `gather`, the rows are also offered as fixed slices (FixedRows / Gather).
class ArraySource : public Source {
 public:
  ArraySource(uint64_t rows, bool gather) : rows_(rows), gather_(gather) {}
  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return rows_; }
  DatasetLayout Layout() const override { return DatasetLayout::Uniform(rows_, 1); }
  std::string Where(uint64_t id) const override { return "array row " + std::to_string(id); }
  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    g_reads++;
    for (size_t i = 0; i < ids.size(); ++i) {
      Tensor v = Tensor::Make(TensorType::kFloat32, {3});
      Tensor id = Tensor::Make(TensorType::kInt64, {});
      Fill(ids[i], v.mutable_data_as<float>(), id.mutable_data_as<int64_t>());
      MR_RETURN_IF_ERROR(fn(i, Status::OK(), {v, id}, 20));
    }
    return Status::OK();
  }
  std::vector<RowSpec> FixedRows() const override {
    if (!gather_) return {};
    return {RowSpec{TensorType::kFloat32, {3}, 12}, RowSpec{TensorType::kInt64, {}, 8}};
  }
  Status Gather(const std::vector<uint64_t>& ids, const std::vector<uint8_t*>& out) const override {
    g_gathers++;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= rows_) return Status::InvalidArgument(Where(ids[i]) + ": past the last row");
      Fill(ids[i], reinterpret_cast<float*>(out[0]) + 3 * i, reinterpret_cast<int64_t*>(out[1]) + i);
    }
    return Status::OK();
  }

 private:
  static void Fill(uint64_t id, float* v, int64_t* n) {
    v[0] = static_cast<float>(id);
    v[1] = static_cast<float>(id) + 0.25f;
    v[2] = static_cast<float>(id) + 0.5f;
    *n = static_cast<int64_t>(id);
  }
  std::vector<std::string> names_{"v", "id"};
  uint64_t rows_;
  bool gather_;
};

class GatherRowsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (bool gather : {true, false}) {
      RegisterSource(gather ? "gather_arrays" : "row_arrays", [gather](const nlohmann::json& node) {
        return Result<std::unique_ptr<Source>>(
            std::unique_ptr<Source>(new ArraySource(node["rows"].get<uint64_t>(), gather)));
      });
    }
  }
  void SetUp() override {
    g_gathers = 0;
    g_reads = 0;
  }
  static Plan MakePlan(const std::string& kind, uint64_t rows, nlohmann::json batch = nlohmann::json::object(),
                       nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json leaf = {{"node", "source"}, {"kind", kind}, {"columns", {"v", "id"}}, {"rows", rows},
                           {"sampler", {{"type", "shuffle"}, {"mode", "global"}, {"num_samples", 0}}}};
    nlohmann::json node = {{"node", "batch"}, {"batch_size", 4}, {"drop_remainder", false}, {"input", leaf}};
    node.update(batch);
    nlohmann::json j = {{"tree", node}, {"num_workers", 2}, {"seed", 11}, {"epochs", 2}};
    j.update(extra);
    auto p = Plan::FromJson(j);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return *p;
  }
};

// Every field of two batch streams, and the state after each batch.
void ExpectSameStream(const Plan& a, const Plan& b) {
  auto pa = Pipeline::Open(a);
  auto pb = Pipeline::Open(b);
  ASSERT_TRUE(pa.ok() && pb.ok());
  for (size_t k = 0;; ++k) {
    Batch ba, bb;
    auto ra = (*pa)->Next(&ba);
    auto rb = (*pb)->Next(&bb);
    ASSERT_TRUE(ra.ok() && rb.ok());
    ASSERT_EQ(*ra, *rb) << "batch " << k;
    if (!*ra) break;
    EXPECT_EQ(ba.epoch, bb.epoch);
    EXPECT_EQ(ba.row_ids, bb.row_ids);
    EXPECT_EQ(ba.positions, bb.positions);
    ASSERT_EQ(ba.columns.size(), bb.columns.size());
    for (size_t c = 0; c < ba.columns.size(); ++c) {
      EXPECT_EQ(ba.columns[c].name, bb.columns[c].name);
      EXPECT_EQ(ba.columns[c].data.shape(), bb.columns[c].data.shape());
      EXPECT_EQ(ba.columns[c].data.type(), bb.columns[c].data.type());
      ASSERT_EQ(ba.columns[c].data.size_bytes(), bb.columns[c].data.size_bytes());
      EXPECT_EQ(0, std::memcmp(ba.columns[c].data.data(), bb.columns[c].data.data(), ba.columns[c].data.size_bytes()));
    }
    // (The fingerprints differ: the two sources are of different kinds.)
    const PipelineState sa = (*pa)->state(), sb = (*pb)->state();
    EXPECT_EQ(sa.epoch, sb.epoch);
    EXPECT_EQ(sa.position, sb.position);
    EXPECT_EQ(sa.rows, sb.rows);
  }
}

TEST_F(GatherRowsTest, GatheredBatchesAreTheRowsBatchedOneByOne) {
  // 2 epochs of 10 rows in batches of 4 (a short last batch per epoch).
  const Plan gathered = MakePlan("gather_arrays", 10);
  ExpectSameStream(gathered, MakePlan("row_arrays", 10));
  EXPECT_GT(g_gathers.load(), 0);
  auto pipe = Pipeline::Open(gathered);
  ASSERT_TRUE(pipe.ok());
  const auto batches = Drain(pipe->get());
  ASSERT_EQ(batches.size(), 6u);
  EXPECT_EQ((*pipe)->stats().batches_gathered, 6u);
  const Batch& b = batches[2];  // epoch 0's last batch: 2 rows
  ASSERT_EQ(b.size(), 2u);
  const float* v = b.column("v")->data.data_as<float>();
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(v[3 * i], static_cast<float>(b.row_ids[i]));
    EXPECT_EQ(v[3 * i + 2], static_cast<float>(b.row_ids[i]) + 0.5f);
    EXPECT_EQ(b.column("id")->data.data_as<int64_t>()[i], static_cast<int64_t>(b.row_ids[i]));
  }
}

TEST_F(GatherRowsTest, ResumesWhereTheRowByRowPathWould) {
  // Each plan stopped after 4 batches and resumed from its state: the rest
  // is the same rows, and what the whole run gives after those 4 batches.
  std::vector<std::vector<uint64_t>> rests;
  for (const char* kind : {"gather_arrays", "row_arrays"}) {
    const Plan plan = MakePlan(kind, 10);
    auto whole = Pipeline::Open(plan);
    ASSERT_TRUE(whole.ok());
    const auto all = Drain(whole->get());
    auto first = Pipeline::Open(plan);
    ASSERT_TRUE(first.ok());
    Drain(first->get(), 4);
    const PipelineState state = (*first)->state();
    auto rest = Pipeline::Open(plan, &state);
    ASSERT_TRUE(rest.ok()) << rest.status().ToString();
    rests.push_back(testing::RowIds(Drain(rest->get())));
    EXPECT_EQ(rests.back(), testing::RowIds(std::vector<Batch>(all.begin() + 4, all.end())));
  }
  EXPECT_EQ(rests[0], rests[1]);
  EXPECT_EQ(rests[0].size(), 6u);
}

TEST_F(GatherRowsTest, OpsSkipPolicyAndPaddingReadRowByRow) {
  // A map, on_error skip, and padding each keep the rows' own path.
  nlohmann::json leaf = {{"node", "source"}, {"kind", "gather_arrays"}, {"columns", {"v", "id"}}, {"rows", 8}};
  nlohmann::json map = {{"node", "map"},
                        {"input", leaf},
                        {"operations", {{{"op", "TypeCast"}, {"type", "float32"}}}},
                        {"input_columns", {"v"}}};
  std::vector<Plan> plans;
  plans.push_back(*Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 4}, {"input", map}}}}));
  plans.push_back(MakePlan("gather_arrays", 8, nlohmann::json::object(), {{"on_error", "skip"}}));
  plans.push_back(MakePlan("gather_arrays", 8, {{"ragged", {{"v", {{"pad", 0}, {"shape", {4}}}}}}}));
  for (const Plan& p : plans) {
    g_gathers = 0;
    auto pipe = Pipeline::Open(p);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    const auto batches = Drain(pipe->get());
    EXPECT_FALSE(batches.empty());
    EXPECT_EQ(g_gathers.load(), 0) << p.ToString(-1);
    EXPECT_EQ((*pipe)->stats().batches_gathered, 0u);
  }
}

TEST_F(GatherRowsTest, ABatchOverMaxBatchBytesIsAnErrorNamingItsFirstRow) {
  const Plan plan = MakePlan("gather_arrays", 10, nlohmann::json::object(), {{"max_batch_bytes", uint64_t{50}}});
  auto pipe = Pipeline::Open(plan);
  ASSERT_TRUE(pipe.ok());
  Status err;
  Drain(pipe->get(), SIZE_MAX, &err);
  EXPECT_FALSE(err.ok());
  EXPECT_NE(err.ToString().find("max_batch_bytes"), std::string::npos) << err.ToString();
  EXPECT_NE(err.ToString().find("array row "), std::string::npos) << err.ToString();
}

}  // namespace
}  // namespace mindrecord
