// The pipeline's byte caps: batches prepared ahead stay within queue_bytes,
// and a batch whose rows inflate past max_batch_bytes stops the pipeline with
// an error naming the row and shard (a decompression bomb cannot take the
// process's memory).
#include <thread>

#include "pipeline/pipeline.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::BatchDigest;
using testing::Drain;

class ByteCapsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTestOps();
    path_ = new std::string(testing::WriteDataset("caps.mindrecord", 400, 1));
  }
  static void TearDownTestSuite() { delete path_; }
  static Plan BasePlan() {
    Plan p;
    p.source = {*path_};
    p.columns = {"id", "vec"};  // 8 + 16 bytes a row: 192 bytes a batch of 8
    p.batch.batch_size = 8;
    p.num_workers = 3;
    p.seed = 7;
    p.sampler = {{"type", "random"}};
    return p;
  }
  static std::string* path_;
};
std::string* ByteCapsTest::path_ = nullptr;

uint64_t Digest(const std::vector<Batch>& bs) {
  uint64_t h = 0;
  for (const auto& b : bs) h = h * 31 + BatchDigest(b);
  return h;
}

// A slow consumer lets the workers run as far ahead as the caps allow.
std::vector<Batch> DrainSlowly(Pipeline* pipe) {
  std::vector<Batch> out;
  Batch b;
  for (;;) {
    auto more = pipe->Next(&b);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    out.push_back(std::move(b));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return out;
}

TEST_F(ByteCapsTest, QueueBytesBoundBatchesPreparedAhead) {
  Plan wide = BasePlan();
  wide.queue_depth = 32;
  auto a = Pipeline::Open(wide);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const auto expected = DrainSlowly(a->get());
  ASSERT_EQ(expected.size(), 50u);
  // Only the depth limits it: the workers fill many slots.
  EXPECT_GT((*a)->stats().max_in_flight, 8u);

  Plan capped = wide;
  capped.queue_bytes = 1000;  // five batches of 192 bytes
  auto b = Pipeline::Open(capped);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const auto got = DrainSlowly(b->get());
  const PipelineStats s = (*b)->stats();
  EXPECT_EQ(s.queue_bytes, 1000u);
  EXPECT_LE(s.max_bytes_in_queue, 1000u);
  EXPECT_GE(s.max_bytes_in_queue, 192u);
  EXPECT_LE(s.max_in_flight, 5u);
  EXPECT_GT(s.workers_blocked_s, 0.0);
  // The cap changes when work happens, never what comes out.
  EXPECT_EQ(Digest(got), Digest(expected));
}

TEST_F(ByteCapsTest, BatchLargerThanTheQueueCapStillGoesThroughAlone) {
  for (uint32_t workers : {1u, 3u}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    Plan p = BasePlan();
    p.num_workers = workers;
    p.queue_depth = 8;
    p.queue_bytes = 1;
    auto pipe = Pipeline::Open(p);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    const auto got = DrainSlowly(pipe->get());
    EXPECT_EQ(got.size(), 50u);
    // One batch at a time once a batch's size is known; before that, one
    // per worker.
    EXPECT_LE((*pipe)->stats().max_in_flight, workers);
    EXPECT_LE((*pipe)->stats().max_bytes_in_queue, workers * 192u);
    Plan free = BasePlan();
    auto ref = Pipeline::Open(free);
    ASSERT_TRUE(ref.ok());
    EXPECT_EQ(Digest(got), Digest(Drain(ref->get())));
  }
}

// Rows stored as a few hundred bytes of zstd that inflate to 1 MiB each.
std::string WriteInflatingDataset() {
  const std::string dir = testing::ProcessTempDir() + "/caps";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/bomb.mindrecord";
  auto schema = Schema::FromUserJson(nlohmann::json::parse(R"({"id": {"type": "int64"}, "data": {"type": "bytes"}})"));
  EXPECT_TRUE(schema.ok());
  WriterOptions wo;
  wo.overwrite = true;
  wo.header_size = kMinHeaderSize;
  wo.page_size = 4 * kMiB;
  wo.compression.codec = Codec::kZstd;
  auto w = ShardWriter::Create(path, *schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::vector<Row> rows;
  for (int64_t k = 0; k < 32; ++k) {
    rows.push_back(Row{{"id", Value::Int(k)}, {"data", Value::Bytes(std::string(1 << 20, static_cast<char>(k)))}});
  }
  EXPECT_TRUE((*w)->WriteRows(rows).ok());
  EXPECT_TRUE((*w)->Commit().ok());
  return path;
}

TEST_F(ByteCapsTest, RowsInflatingPastMaxBatchBytesStopThePipeline) {
  const std::string path = WriteInflatingDataset();
  {
    auto reader = ShardReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto stored = (*reader)->StoredBytes(2);
    ASSERT_TRUE(stored.ok());
    EXPECT_LT(*stored, 16u * 1024);  // stored small, 1 MiB once read
  }
  for (const char* io : {"pread", "mmap"}) {
    for (uint64_t workers : {1u, 3u}) {
      SCOPED_TRACE(std::string(io) + " workers " + std::to_string(workers));
      Plan p;
      p.source = {path};
      p.read.io_mode = *ParseIoMode(io);
      p.batch.batch_size = 16;
      p.num_workers = static_cast<uint32_t>(workers);
      p.max_batch_bytes = 3 * kMiB;
      p.on_error = ErrorPolicy::kSkip;  // a batch limit is not a row to skip
      auto pipe = Pipeline::Open(p);
      ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
      Status err;
      const auto got = Drain(pipe->get(), SIZE_MAX, &err);
      EXPECT_TRUE(got.empty());
      ASSERT_EQ(err.code(), StatusCode::kInvalidArgument) << err.ToString();
      EXPECT_NE(err.message().find("max_batch_bytes (3145728)"), std::string::npos) << err.ToString();
      EXPECT_NE(err.message().find("once read at row 2 (shard 0 '" + path + "', local row 2)"), std::string::npos)
          << err.ToString();
    }
  }
  // The same rows within the limit read back whole.
  Plan ok;
  ok.source = {path};
  ok.batch.batch_size = 2;
  ok.max_batch_bytes = 3 * kMiB;
  auto pipe = Pipeline::Open(ok);
  ASSERT_TRUE(pipe.ok());
  Status err;
  const auto got = Drain(pipe->get(), SIZE_MAX, &err);
  EXPECT_TRUE(err.ok()) << err.ToString();
  ASSERT_EQ(got.size(), 16u);
  const BatchColumn* data = got[15].column("data");
  ASSERT_TRUE(data != nullptr && !data->is_list());  // equal lengths: one [2, 1 MiB] tensor
  EXPECT_EQ(data->data.size_bytes(), 2u << 20);
  EXPECT_EQ(data->data.data()[(1 << 20) + 5], 31);
}

TEST_F(ByteCapsTest, TransformedTensorsCountAgainstMaxBatchBytes) {
  // vec is float32[4]: 16 bytes (+ 8 of accounting) a row as read, 32 once
  // cast to float64. A batch of 8 reads 192 bytes and transforms into 256.
  Plan p = BasePlan();
  p.columns = {"vec"};
  p.sampler = {{"type", "sequential"}};
  p.ops["vec"] = {{{"op", "TypeCast"}, {"type", "float64"}}};
  p.max_batch_bytes = 200;
  auto pipe = Pipeline::Open(p);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  Status err;
  Drain(pipe->get(), SIZE_MAX, &err);
  ASSERT_EQ(err.code(), StatusCode::kInvalidArgument) << err.ToString();
  EXPECT_NE(err.message().find("positions [0, 8) holds 224 bytes once transformed at row 6"), std::string::npos)
      << err.ToString();
  // Without the cast the same batches fit.
  p.ops.clear();
  auto fits = Pipeline::Open(p);
  ASSERT_TRUE(fits.ok());
  err = Status::OK();
  EXPECT_EQ(Drain(fits->get(), SIZE_MAX, &err).size(), 50u);
  EXPECT_TRUE(err.ok()) << err.ToString();
}

TEST_F(ByteCapsTest, PlanKeysRoundTripAndRefuseZero) {
  Plan p = BasePlan();
  p.queue_bytes = 12345;
  p.max_batch_bytes = 678;
  auto q = Plan::Parse(p.ToString());
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->queue_bytes, 12345u);
  EXPECT_EQ(q->max_batch_bytes, 678u);
  // Memory caps never change the sequence.
  EXPECT_EQ(q->SequenceFingerprint(), BasePlan().SequenceFingerprint());
  auto d = *Plan::Parse(R"({"source": "x"})");
  EXPECT_EQ(d.queue_bytes, 1ull << 30);
  EXPECT_EQ(d.max_batch_bytes, 2ull << 30);
  for (const char* bad : {R"({"source": "x", "queue_bytes": 0})", R"({"source": "x", "max_batch_bytes": -1})",
                          R"({"source": "x", "queue_bytes": "1G"})"}) {
    auto r = Plan::Parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("must be a byte count >= 1"), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace mindrecord
