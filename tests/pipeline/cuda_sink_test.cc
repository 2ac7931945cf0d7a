// The CUDA device sink on a real GPU: every contiguous batch column's device
// copy equals the host batch byte for byte, stays valid for the documented
// number of Next() calls, and bad sink settings are refused. Compiled only
// with -DMINDRECORD_WITH_CUDA=ON; each test skips, saying why, when no CUDA
// device is visible (the no-CUDA fallback is RuntimeTest.CudaSinkFallback).
#ifdef MINDRECORD_HAVE_CUDA

#include <cuda_runtime.h>

#include <atomic>
#include <deque>
#include <string>
#include <vector>

#include "pipeline/device_sink.h"
#include "pipeline/pinned_pool.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::BatchDigest;
using testing::RowData;

class CudaSinkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTestOps();
    path_ = new std::string(WriteCudaDataset("cuda_sink", kRows));
  }
  static void TearDownTestSuite() {
    delete path_;
    path_ = nullptr;
  }
  void SetUp() override {
    std::string why;
    if (!CudaSinkAvailable(&why)) GTEST_SKIP() << "no CUDA device visible, so nothing to test here: " << why;
  }

  static constexpr uint64_t kRows = 301;  // not a multiple of the batch size: a short last batch

  // Rows k: id = k, data = RowData(k) (bytes: a list column, stays on the
  // host), big = float32[4096] (16 KiB a row), var = int32[k % 50 + 1]
  // (padded: the column's size changes from batch to batch, so the sink's
  // buffers grow while earlier batches are still in flight).
  static std::string WriteCudaDataset(const std::string& name, uint64_t rows) {
    const std::string dir = testing::ProcessTempDir() + "/cuda";
    std::filesystem::create_directories(dir);
    auto schema = Schema::FromUserJson(nlohmann::json::parse(
        R"({"id": {"type": "int64"}, "data": {"type": "bytes"},
            "big": {"type": "float32", "shape": [4096]}, "var": {"type": "int32", "shape": [-1]}})"));
    EXPECT_TRUE(schema.ok()) << schema.status().ToString();
    WriterOptions wo;
    wo.shard_count = 2;
    wo.overwrite = true;
    auto w = ShardWriter::Create(dir + "/" + name, *schema, wo);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    std::vector<Row> batch;
    for (uint64_t k = 0; k < rows; ++k) {
      std::vector<float> big(4096);
      for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(k * 4096 + i) * 0.5f;
      std::vector<int32_t> var(k % 50 + 1);
      for (size_t i = 0; i < var.size(); ++i) var[i] = static_cast<int32_t>(k * 1000 + i);
      batch.push_back(Row{{"id", Value::Int(static_cast<int64_t>(k))},
                          {"data", Value::Bytes(RowData(k))},
                          {"big", Value::ArrayOf<float>(DataType::kFloat32, big)},
                          {"var", Value::ArrayOf<int32_t>(DataType::kInt32, var)}});
      if (batch.size() == 32 || k + 1 == rows) {
        EXPECT_TRUE((*w)->WriteRows(batch).ok());
        batch.clear();
      }
    }
    EXPECT_TRUE((*w)->Commit().ok());
    return (*w)->shard_paths()[0];
  }

  static Plan CudaPlan(uint32_t buffers, uint32_t workers) {
    Plan p;
    p.source = {*path_};
    p.columns = {"id", "data", "big", "var"};
    p.batch.batch_size = 16;
    p.batch.ragged["var"] = {RaggedMode::kPad, -7};
    p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
    p.num_workers = workers;
    p.queue_depth = 3;
    p.seed = 7;
    p.epochs = 2;
    p.sink.kind = SinkSpec::Kind::kCuda;
    p.sink.buffers = buffers;
    return p;
  }

  // Copies every contiguous column's device copy back with cudaMemcpy and
  // compares it with the host bytes; list columns must have no device copy.
  static void ExpectDeviceMatchesHost(const Batch& b, const std::string& what) {
    for (const auto& c : b.columns) {
      if (c.is_list()) {
        EXPECT_EQ(c.device_data, nullptr) << what << " column " << c.name;
        continue;
      }
      ASSERT_NE(c.device_data, nullptr) << what << " column " << c.name;
      cudaPointerAttributes attr{};
      ASSERT_EQ(cudaPointerGetAttributes(&attr, c.device_data), cudaSuccess) << what;
      EXPECT_EQ(attr.type, cudaMemoryTypeDevice) << what << " column " << c.name;
      const size_t n = c.data.size_bytes();
      std::vector<uint8_t> back(n + 1, 0xA5);  // one guard byte
      ASSERT_EQ(cudaMemcpy(back.data(), c.device_data, n, cudaMemcpyDeviceToHost), cudaSuccess) << what;
      ASSERT_EQ(std::memcmp(back.data(), c.data.data(), n), 0) << what << " column " << c.name << ": device "
                                                               << "copy differs from the host batch (" << n << " bytes)";
      EXPECT_EQ(back[n], 0xA5);
    }
  }

  // Drains `pipe`, checking each batch's device copy right after the Next()
  // that returned it (later it may be reused, by contract).
  static std::vector<Batch> DrainChecked(Pipeline* pipe, const std::string& what, Status* error = nullptr) {
    std::vector<Batch> out;
    for (;;) {
      Batch b;
      auto more = pipe->Next(&b);
      if (!more.ok()) {
        if (error) *error = more.status();
        else ADD_FAILURE() << more.status().ToString();
        break;
      }
      if (!*more) break;
      ExpectDeviceMatchesHost(b, what + " batch " + std::to_string(out.size()));
      out.push_back(std::move(b));
    }
    return out;
  }

  static bool IsPinnedHost(const void* p) {
    cudaPointerAttributes attr{};
    return cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeHost;
  }

  static std::string* path_;
};
std::string* CudaSinkTest::path_ = nullptr;

// The same plan through the host sink: the reference batches.
std::vector<uint64_t> HostDigests(Plan p) {
  p.sink.kind = SinkSpec::Kind::kHost;
  auto pipe = Pipeline::Open(p);
  EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::vector<uint64_t> out;
  if (!pipe.ok()) return out;
  for (const auto& b : testing::Drain(pipe->get())) out.push_back(BatchDigest(b));
  return out;
}

class CudaSinkBuffers : public CudaSinkTest, public ::testing::WithParamInterface<std::tuple<uint32_t, uint32_t>> {};

// Device copies equal the host batch, and batch k's device copy still holds
// its bytes after buffers - 2 more Next() calls (it is documented to stay
// valid until Next() has been called buffers - 1 more times). Host batches
// equal those of the host sink.
TEST_P(CudaSinkBuffers, DeviceCopiesMatchHostAndStayValid) {
  const auto [buffers, workers] = GetParam();
  const Plan plan = CudaPlan(buffers, workers);
  const std::vector<uint64_t> want = HostDigests(plan);
  ASSERT_EQ(want.size(), 2 * ((kRows + 15) / 16));
  auto pipe = Pipeline::Open(plan);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::deque<Batch> live;  // the batches whose device copies must still be valid
  size_t k = 0;
  for (;; ++k) {
    Batch b;
    auto more = (*pipe)->Next(&b);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ASSERT_LT(k, want.size());
    EXPECT_EQ(BatchDigest(b), want[k]) << "batch " << k;
    live.push_back(std::move(b));
    while (live.size() > buffers - 1) live.pop_front();
    for (size_t i = 0; i < live.size(); ++i) {
      ExpectDeviceMatchesHost(live[i], "batch " + std::to_string(k + 1 - live.size() + i) + " checked after batch " +
                                           std::to_string(k));
    }
  }
  EXPECT_EQ(k, want.size());
  Batch b;
  EXPECT_FALSE((*pipe)->Next(&b).value());  // stays at the end
  const PipelineStats st = (*pipe)->stats();
  EXPECT_GT(st.sink_s, 0.0);
  EXPECT_GT(st.sink_bytes, 0u);
  // Batches were built in pinned memory and went to the device by DMA, with
  // no staging copy; only the columns under PinnedPool::kMinBytes ("id",
  // "var": < 2% of the bytes) were staged.
  EXPECT_LT(st.sink_staged_bytes * 50, st.sink_bytes) << st.sink_staged_bytes << " of " << st.sink_bytes;
  EXPECT_TRUE(IsPinnedHost(live.back().column("big")->data.data()));
  EXPECT_EQ(st.ToJson()["sink_bytes"], st.sink_bytes);
}

// With the consumer's own allocator (pageable memory here), batches are
// staged through the sink's pinned buffers and still arrive intact.
TEST_F(CudaSinkTest, ConsumerAllocatorIsStaged) {
  const Plan plan = CudaPlan(3, 2);
  const std::vector<uint64_t> want = HostDigests(plan);
  std::atomic<int> calls{0};
  BatchAllocator alloc = [&calls](TensorType type, const std::vector<int64_t>& shape) -> Result<Tensor> {
    calls++;
    return Tensor::Make(type, shape);
  };
  auto pipe = Pipeline::Open(plan, nullptr, alloc);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  auto got = DrainChecked(pipe->get(), "consumer-allocated");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(BatchDigest(got[i]), want[i]) << "batch " << i;
  EXPECT_GT(calls.load(), 0);
  EXPECT_FALSE(IsPinnedHost(got[0].column("big")->data.data()));
  const PipelineStats st = (*pipe)->stats();
  EXPECT_GT(st.sink_bytes, 0u);
  EXPECT_EQ(st.sink_staged_bytes, st.sink_bytes);
}

// Host batches in pinned memory outlive the pipeline (their blocks keep the
// pool alive); only the device copies end with it.
TEST_F(CudaSinkTest, PinnedBatchesOutliveThePipeline) {
  const Plan plan = CudaPlan(2, 3);
  const std::vector<uint64_t> want = HostDigests(plan);
  std::vector<Batch> kept;
  {
    auto pipe = Pipeline::Open(plan);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    kept = DrainChecked(pipe->get(), "kept");
  }
  ASSERT_EQ(kept.size(), want.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(BatchDigest(kept[i]), want[i]) << "batch " << i;
  kept.clear();  // the blocks go back to the process-wide pool
}

// A pipeline opened after another reuses its pinned blocks (cudaHostAlloc
// costs milliseconds per block and stalls the sink's copies).
TEST_F(CudaSinkTest, PipelinesReusePinnedBlocks) {
  const Plan plan = CudaPlan(2, 2);
  auto run = [&] {
    auto pipe = Pipeline::Open(plan);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    EXPECT_EQ(DrainChecked(pipe->get(), "reuse").size(), 2 * ((kRows + 15) / 16));
  };
  run();
  const uint64_t before = PinnedPool::Shared().blocks_allocated();
  EXPECT_GT(before, 0u);
  run();
  EXPECT_LE(PinnedPool::Shared().blocks_allocated() - before, 2u);
  EXPECT_EQ(PinnedPool::Shared().fallbacks(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Sets, CudaSinkBuffers,
                         ::testing::Combine(::testing::Values(2u, 3u, 5u), ::testing::Values(1u, 4u)),
                         [](const auto& info) {
                           return "buffers" + std::to_string(std::get<0>(info.param)) + "_workers" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Resuming a CUDA pipeline from state() continues exactly where the batches
// handed out stopped (the batch copied ahead is not skipped).
TEST_F(CudaSinkTest, ResumeContinuesAfterTheBatchesHandedOut) {
  const Plan plan = CudaPlan(3, 2);
  const std::vector<uint64_t> want = HostDigests(plan);
  PipelineState state;
  {
    auto pipe = Pipeline::Open(plan);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    for (int i = 0; i < 5; ++i) {
      Batch b;
      ASSERT_TRUE((*pipe)->Next(&b).value());
      ExpectDeviceMatchesHost(b, "first-run batch " + std::to_string(i));
    }
    state = (*pipe)->state();
  }
  auto pipe = Pipeline::Open(plan, &state);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  auto rest = DrainChecked(pipe->get(), "resumed");
  ASSERT_EQ(rest.size() + 5, want.size());
  for (size_t i = 0; i < rest.size(); ++i) EXPECT_EQ(BatchDigest(rest[i]), want[i + 5]) << "batch " << i + 5;
}

// A read error stops the pipeline after the batches before it were handed out
// with their device copies, and is returned again afterwards.
TEST_F(CudaSinkTest, ReadErrorAfterGoodBatches) {
  const std::string bad = testing::WriteDataset("cuda_sink_bad", 400, 1);
  {
    auto reader = ShardReader::Open(bad);
    ASSERT_TRUE(reader.ok());
    ASSERT_TRUE(testing::CorruptRow((*reader)->shard_paths(), 300));
  }
  // The reader may refuse more than that row (a page checksum covers the
  // whole page): the first row it refuses decides where the batches stop.
  auto reader = ShardReader::Open(bad);
  ASSERT_TRUE(reader.ok());
  uint64_t first_bad = 0;
  while (first_bad < 400 && (*reader)->ReadRow(first_bad).ok()) ++first_bad;
  ASSERT_LE(first_bad, 300u);
  Plan p;
  p.source = {bad};
  p.batch.batch_size = 16;
  p.num_workers = 2;
  p.sink.kind = SinkSpec::Kind::kCuda;
  p.sink.buffers = 2;
  auto pipe = Pipeline::Open(p);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  Status error;
  auto got = DrainChecked(pipe->get(), "before the error", &error);
  EXPECT_FALSE(error.ok());
  EXPECT_NE(error.ToString().find("cuda_sink_bad"), std::string::npos) << error.ToString();
  EXPECT_EQ(got.size(), first_bad / 16);
  Batch b;
  auto again = (*pipe)->Next(&b);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().ToString(), error.ToString());
}

// A CUDA error in the sink (here: device memory exhausted, so cudaMalloc of
// the batch's device buffer fails) stops the pipeline like a read error: Next
// returns it, naming the CUDA call, and keeps returning it after the cause is
// gone (no batch is skipped silently).
TEST_F(CudaSinkTest, SinkErrorIsSticky) {
  auto pipe = Pipeline::Open(CudaPlan(2, 2));
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::vector<void*> hog;
  for (size_t chunk : {size_t{1} << 30, size_t{64} << 20, size_t{2} << 20, size_t{64} << 10}) {
    void* p = nullptr;
    while (cudaMalloc(&p, chunk) == cudaSuccess) hog.push_back(p);
    (void)cudaGetLastError();  // the expected out-of-memory
  }
  Batch b;
  auto r = (*pipe)->Next(&b);
  for (void* p : hog) cudaFree(p);
  ASSERT_FALSE(r.ok()) << "the sink found device memory after " << hog.size() << " allocations";
  EXPECT_NE(r.status().message().find("cudaMalloc"), std::string::npos) << r.status().ToString();
  auto again = (*pipe)->Next(&b);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().ToString(), r.status().ToString());
}

TEST_F(CudaSinkTest, BadDeviceIsRefused) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  Plan p = CudaPlan(3, 1);
  p.sink.device = count;
  auto pipe = Pipeline::Open(p);
  ASSERT_FALSE(pipe.ok());
  EXPECT_EQ(pipe.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pipe.status().message().find("device " + std::to_string(count) + " does not exist"), std::string::npos)
      << pipe.status().ToString();
  p.sink.device = -1;
  EXPECT_EQ(Pipeline::Open(p).status().code(), StatusCode::kInvalidArgument);
  p.sink.device = 0;
  p.sink.buffers = 1;
  pipe = Pipeline::Open(p);
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("buffers"), std::string::npos) << pipe.status().ToString();
  // The same through the JSON plan: an out-of-range device is an error, not device 0.
  auto plan = Plan::FromJson(nlohmann::json{{"source", {*path_}}, {"sink", {{"type", "cuda"}, {"device", count + 3}}}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Pipeline::Open(*plan).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mindrecord

#endif  // MINDRECORD_HAVE_CUDA
