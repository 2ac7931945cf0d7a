// Read and transform errors: policy fail (names shard and row) and skip
// (counted, reported, remaining order unchanged, batches kept full).
#include <chrono>
#include <set>
#include <thread>

#include "pipeline/sampler.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::Drain;
using testing::RowIds;

class RuntimeErrorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTestOps();
    path_ = new std::string(testing::WriteDataset("bad.mindrecord", 300, 2));
    auto reader = ShardReader::Open(*path_);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    // Find the global row id of the row written as k = 101, then break it.
    bad_id_ = new uint64_t(UINT64_MAX);
    for (uint64_t id = 0; id < (*reader)->num_rows(); ++id) {
      if ((*reader)->ReadRow(id)->Get("id").as_int() == 101) *bad_id_ = id;
    }
    ASSERT_NE(*bad_id_, UINT64_MAX);
    ASSERT_TRUE(testing::CorruptRow((*reader)->shard_paths(), 101));
    // The reader may refuse more than that row (e.g. a page checksum covers
    // the whole page): the rows it refuses now are the bad ones.
    auto after = ShardReader::Open(*path_);
    ASSERT_TRUE(after.ok());
    bad_ = new std::set<uint64_t>();
    for (uint64_t id = 0; id < (*after)->num_rows(); ++id) {
      if (!(*after)->ReadRow(id).ok()) bad_->insert(id);
    }
    ASSERT_TRUE(bad_->count(*bad_id_));
  }
  static void TearDownTestSuite() {
    delete path_;
    delete bad_id_;
    delete bad_;
  }
  static Plan BasePlan(ErrorPolicy policy) {
    Plan p;
    p.source = {*path_};
    p.batch.batch_size = 10;
    p.num_workers = 2;
    p.queue_depth = 2;
    p.on_error = policy;
    return p;
  }
  static std::string* path_;
  static uint64_t* bad_id_;
  static std::set<uint64_t>* bad_;
};
std::set<uint64_t>* RuntimeErrorsTest::bad_ = nullptr;
std::string* RuntimeErrorsTest::path_ = nullptr;
uint64_t* RuntimeErrorsTest::bad_id_ = nullptr;

TEST_F(RuntimeErrorsTest, FailNamesShardAndRow) {
  for (const char* sampler : {"sequential", "random"}) {
    Plan p = BasePlan(ErrorPolicy::kFail);
    p.sampler = {{"type", sampler}};
    auto pipe = Pipeline::Open(p);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    Status err;
    auto batches = Drain(pipe->get(), SIZE_MAX, &err);
    ASSERT_FALSE(err.ok()) << sampler;
    EXPECT_EQ(err.code(), StatusCode::kCorruption) << err.ToString();
    auto reader = ShardReader::Open(*path_);
    auto order = (*MakeSampler(p.sampler, LayoutOf(**reader)))->Epoch(p.seed, 0).value();
    uint64_t first_bad = 0;
    for (uint64_t id : order) {
      if (bad_->count(id)) {
        first_bad = id;
        break;
      }
    }
    EXPECT_NE(err.message().find("row " + std::to_string(first_bad) + " "), std::string::npos) << err.ToString();
    EXPECT_NE(err.message().find("shard"), std::string::npos) << err.ToString();
    // Every batch before the bad row's batch came out, in order.
    auto ids = RowIds(batches);
    for (uint64_t id : ids) EXPECT_EQ(bad_->count(id), 0u);
    EXPECT_EQ(ids.size() % 10, 0u);
    Batch b;
    auto again = (*pipe)->Next(&b);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().message(), err.message());
  }
}

TEST_F(RuntimeErrorsTest, SkipKeepsOrderAndFullBatches) {
  for (const char* sampler : {"sequential", "random"}) {
    Plan clean = BasePlan(ErrorPolicy::kSkip);
    clean.sampler = {{"type", sampler}};
    clean.seed = 3;
    // The expected order: the sampler's, minus the bad row.
    auto reader = ShardReader::Open(*path_);
    auto sampler_obj = MakeSampler(clean.sampler, LayoutOf(**reader));
    std::vector<uint64_t> want;
    for (uint64_t e = 0; e < 2; ++e) {
      const std::vector<uint64_t> order = (*sampler_obj)->Epoch(clean.seed, e).value();
      for (uint64_t id : order) {
        if (!bad_->count(id)) want.push_back(id);
      }
    }
    clean.epochs = 2;
    for (uint32_t workers : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(sampler) + " workers " + std::to_string(workers));
      clean.num_workers = workers;
      clean.read.io_mode = workers == 1 ? IoMode::kPread : workers == 2 ? IoMode::kDirect : IoMode::kMmap;
      
      auto pipe = Pipeline::Open(clean);
      ASSERT_TRUE(pipe.ok());
      auto batches = Drain(pipe->get());
      EXPECT_EQ(RowIds(batches), want) << sampler;
      // Full batches, but for each epoch's last one.
      const uint64_t good = 300 - bad_->size();
      const uint64_t per_epoch = (good + 9) / 10;
      ASSERT_EQ(batches.size(), 2 * per_epoch);
      for (size_t i = 0; i < batches.size(); ++i) {
        EXPECT_EQ(batches[i].size(), i % per_epoch == per_epoch - 1 && good % 10 ? good % 10 : 10u) << i;
        EXPECT_EQ(batches[i].epoch, i / per_epoch);
      }
      const PipelineStats s = (*pipe)->stats();
      EXPECT_EQ(s.rows_skipped, 2 * bad_->size());
      ASSERT_FALSE(s.skipped_errors.empty());
      EXPECT_NE(s.skipped_errors[0].find("shard"), std::string::npos);
    }
  }
}

TEST_F(RuntimeErrorsTest, ResumeAcrossASkippedRow) {
  Plan p = BasePlan(ErrorPolicy::kSkip);
  p.sampler = {{"type", "random"}};
  auto full = Drain(Pipeline::Open(p)->get());
  for (size_t cut : {1, 5, 13, 20, 29}) {
    auto first = Pipeline::Open(p);
    auto head = Drain(first->get(), cut);
    const PipelineState s = (*first)->state();
    auto second = Pipeline::Open(p, &s);
    ASSERT_TRUE(second.ok());
    auto tail = Drain(second->get());
    ASSERT_EQ(head.size() + tail.size(), full.size()) << cut;
    for (size_t k = 0; k < tail.size(); ++k) EXPECT_EQ(tail[k].row_ids, full[cut + k].row_ids) << cut;
  }
}

TEST_F(RuntimeErrorsTest, TransformErrorsFollowThePolicy) {
  Plan p = BasePlan(ErrorPolicy::kFail);
  p.source = {*path_};
  p.columns = {"id"};
  p.sampler = {{"type", "subset"}, {"indices", {0, 1, 2, 3}}};
  p.batch.batch_size = 2;
  // The id value of row 2.
  auto reader = ShardReader::Open(*path_);
  const int64_t v = (*reader)->ReadRow(2)->Get("id").as_int();
  p.ops["id"] = {{{"op", "TestFailOn"}, {"value", v}}};
  Status err;
  auto batches = Drain(Pipeline::Open(p)->get(), SIZE_MAX, &err);
  EXPECT_EQ(batches.size(), 1u);
  EXPECT_NE(err.message().find("TestFailOn"), std::string::npos) << err.ToString();
  EXPECT_NE(err.message().find("row 2"), std::string::npos) << err.ToString();
  p.on_error = ErrorPolicy::kSkip;
  batches = Drain(Pipeline::Open(p)->get());
  EXPECT_EQ(RowIds(batches), (std::vector<uint64_t>{0, 1, 3}));
}

// An op that throws (a C++ user's op may) fails its row as an op's error
// does, on any worker (the row's own or a helping one), instead of
// terminating the process.
TEST_F(RuntimeErrorsTest, AnOpsExceptionIsItsRowsError) {
  auto reader = ShardReader::Open(*path_);
  const int64_t v = (*reader)->ReadRow(2)->Get("id").as_int();
  for (uint32_t workers : {1u, 2u}) {
    SCOPED_TRACE(workers);
    Plan p = BasePlan(ErrorPolicy::kFail);
    p.source = {*path_};
    p.columns = {"id"};
    p.num_workers = workers;
    p.sampler = {{"type", "subset"}, {"indices", {0, 1, 2, 3}}};
    p.batch.batch_size = 2;
    p.ops["id"] = {{{"op", "TestThrowOn"}, {"value", v}}};
    Status err;
    auto batches = Drain(Pipeline::Open(p)->get(), SIZE_MAX, &err);
    EXPECT_EQ(batches.size(), 1u);
    EXPECT_NE(err.message().find("an op threw an exception: TestThrowOn hit " + std::to_string(v)), std::string::npos)
        << err.ToString();
    EXPECT_NE(err.message().find("row 2"), std::string::npos) << err.ToString();
    p.on_error = ErrorPolicy::kSkip;
    batches = Drain(Pipeline::Open(p)->get());
    EXPECT_EQ(RowIds(batches), (std::vector<uint64_t>{0, 1, 3}));
  }
}

// After a task fails, the workers claim no further task: the consumer never
// gets past the error, so their batches would be work thrown away.
TEST_F(RuntimeErrorsTest, NoTaskIsClaimedAfterOneFails) {
  Plan p = BasePlan(ErrorPolicy::kFail);
  p.columns = {"id"};
  p.num_workers = 1;
  p.queue_depth = 16;
  p.batch.batch_size = 2;
  auto reader = ShardReader::Open(*path_);
  p.ops["id"] = {{{"op", "TestFailOn"}, {"value", (*reader)->ReadRow(0)->Get("id").as_int()}}};
  auto pipe = Pipeline::Open(p);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  Batch b;
  auto first = (*pipe)->Next(&b);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.status().message().find("TestFailOn"), std::string::npos) << first.status().ToString();
  // Time for the worker to claim the whole queue's depth if it went on.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ((*pipe)->stats().max_in_flight, 1u);
  EXPECT_EQ((*pipe)->Next(&b).status().message(), first.status().message());
}

}  // namespace
}  // namespace mindrecord
