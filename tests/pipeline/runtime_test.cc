// The worker runtime through the Pipeline facade: order, determinism across
// worker counts, exact resume, batching, bounded queues, statistics, sinks.
#include <fstream>
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <thread>

#include "mindrecord/direct_file.h"
#include "pipeline/sampler.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::BatchDigest;
using testing::Drain;
using testing::RowIds;

class RuntimeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTestOps();
    path_ = new std::string(testing::WriteDataset("rt.mindrecord", 600, 3));
  }
  static void TearDownTestSuite() { delete path_; }

  static Plan BasePlan() {
    Plan p;
    p.source = {*path_};
    p.batch.batch_size = 16;
    p.num_workers = 3;
    p.queue_depth = 3;
    p.seed = 2024;
    return p;
  }
  static std::unique_ptr<Pipeline> Open(const Plan& p, const PipelineState* s = nullptr) {
    auto r = Pipeline::Open(p, s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  static uint64_t Digest(const std::vector<Batch>& bs) {
    uint64_t h = 0;
    for (const auto& b : bs) h = h * 31 + BatchDigest(b);
    return h;
  }
  static std::string* path_;
};
std::string* RuntimeTest::path_ = nullptr;

// A column's last op writes each row straight into its place in the batch
// (every row but a batch's first, which sizes the batch buffer): no copy of
// the row into the batch, and the batch holds exactly the op's results.
TEST_F(RuntimeTest, LastOpWritesRowsStraightIntoTheBatch) {
  for (uint32_t workers : {1u, 3u}) {
    Plan p = BasePlan();
    p.num_workers = workers;
    p.columns = {"id", "vec"};
    p.ops["vec"] = {{{"op", "TestDouble"}}};
    p.batch.batch_size = 16;
    testing::g_slot_writes = 0;
    auto pipe = Open(p);
    ASSERT_NE(pipe, nullptr);
    const auto batches = Drain(pipe.get());
    uint64_t rows = 0;
    for (const auto& b : batches) {
      const BatchColumn* vec = b.column("vec");
      ASSERT_TRUE(vec && !vec->is_list());
      ASSERT_EQ(vec->data.shape(), (std::vector<int64_t>{static_cast<int64_t>(b.size()), 4}));
      const BatchColumn* id = b.column("id");
      ASSERT_TRUE(id && !id->is_list());
      for (size_t i = 0; i < b.size(); ++i) {
        const float k = static_cast<float>(id->data.data_as<int64_t>()[i]);
        for (int j = 0; j < 4; ++j) ASSERT_EQ(vec->data.data_as<double>()[i * 4 + j], 2.0 * (k + 0.25f * j));
      }
      rows += b.size();
    }
    EXPECT_EQ(rows, 600u);
    // One worker writes every row but each batch's first in place; with more,
    // rows transformed by a helping worker are copied as before.
    if (workers == 1) EXPECT_EQ(testing::g_slot_writes.load(), 600u - batches.size());
    else EXPECT_GT(testing::g_slot_writes.load(), 300u);
  }
}

// Workers with nothing left to claim transform rows of the batches still in
// progress (a run's last batch is not left to one worker), with the same
// output as one worker.
TEST_F(RuntimeTest, IdleWorkersShareTheRowsOfTheLastBatch) {
  std::vector<uint64_t> ids(48);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = 7 * i;
  std::map<uint32_t, uint64_t> digests;
  for (uint32_t workers : {1u, 2u, 3u}) {
    Plan p = BasePlan();
    p.num_workers = workers;
    p.sampler = {{"type", "subset"}, {"indices", ids}};
    p.batch.batch_size = 48;  // one batch: one task
    p.ops["id"] = {{{"op", "TestSlowTag"}, {"ms", 2}}};
    {
      std::lock_guard<std::mutex> lock(testing::g_tag_mu);
      testing::g_tag_threads.clear();
    }
    auto pipe = Open(p);
    ASSERT_NE(pipe, nullptr);
    const auto batches = Drain(pipe.get());
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_EQ(RowIds(batches), ids);
    digests[workers] = Digest(batches);
    std::lock_guard<std::mutex> lock(testing::g_tag_mu);
    EXPECT_EQ(testing::g_tag_threads.size(), workers) << workers << " workers";
  }
  EXPECT_EQ(digests[2], digests[1]);
  EXPECT_EQ(digests[3], digests[1]);
}

TEST_F(RuntimeTest, SequentialMatchesReader) {
  auto reader = ShardReader::Open(*path_);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // mmap, pread and direct; with pread and direct, short runs go row by row and
  // long ones scan pages.
  for (auto [io, bs] : std::vector<std::pair<std::string, uint64_t>>{
           {"auto", 7}, {"pread", 7}, {"pread", 128}, {"direct", 7}, {"direct", 128}}) {
    SCOPED_TRACE(io + " batch " + std::to_string(bs));
    Plan p = BasePlan();
    p.read.io_mode = *ParseIoMode(io);
    p.batch.batch_size = bs;
    auto pipe = Open(p);
    ASSERT_TRUE(pipe);
    auto batches = Drain(pipe.get());
    ASSERT_EQ(batches.size(), (600u + bs - 1) / bs);
    EXPECT_EQ(batches.back().size(), 600u % bs);
    uint64_t next = 0;
    for (const auto& b : batches) {
      const BatchColumn* id = b.column("id");
      const BatchColumn* vec = b.column("vec");
      const BatchColumn* data = b.column("data");
      ASSERT_TRUE(id && vec && data);
      EXPECT_EQ(vec->data.shape(), (std::vector<int64_t>{static_cast<int64_t>(b.size()), 4}));
      ASSERT_TRUE(data->is_list());
      for (size_t i = 0; i < b.size(); ++i, ++next) {
        ASSERT_EQ(b.row_ids[i], next);
        auto row = (*reader)->ReadRow(next);
        ASSERT_TRUE(row.ok());
        EXPECT_EQ(id->data.data_as<int64_t>()[i], row->Get("id").as_int());
        EXPECT_EQ(vec->data.data_as<float>()[i * 4 + 1], row->Get("vec").ArrayAs<float>()[1]);
        const Tensor& got = data->list[i];
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(got.data()), got.size_bytes()), row->Get("data").bytes());
      }
    }
    EXPECT_EQ(next, 600u);
  }
}

TEST_F(RuntimeTest, SameSequenceForAnyWorkerCount) {
  Plan p = BasePlan();
  p.sampler = {{"type", "random"}};
  p.ops["vec"] = {{{"op", "TestJitter"}}};
  p.epochs = 2;
  std::set<uint64_t> digests;
  std::vector<uint64_t> ids;
  for (uint32_t workers : {1u, 2u, 4u}) {
    p.num_workers = workers;
    p.queue_depth = workers == 4 ? 2 : 5;
    auto pipe = Open(p);
    ASSERT_TRUE(pipe);
    auto batches = Drain(pipe.get());
    ASSERT_EQ(batches.size(), 2 * ((600 + 15) / 16));
    digests.insert(Digest(batches));
    if (ids.empty()) ids = RowIds(batches);
  }
  // Direct I/O reads the same rows.
  p.read.io_mode = IoMode::kDirect;
  p.num_workers = 3;
  auto direct = Open(p);
  ASSERT_TRUE(direct);
  digests.insert(Digest(Drain(direct.get())));
  EXPECT_EQ(digests.size(), 1u);
  // Two epochs, each a permutation, different from each other.
  std::vector<uint64_t> e0(ids.begin(), ids.begin() + 600), e1(ids.begin() + 600, ids.end());
  EXPECT_NE(e0, e1);
  std::sort(e0.begin(), e0.end());
  std::sort(e1.begin(), e1.end());
  EXPECT_EQ(e0, e1);
  EXPECT_EQ(std::set<uint64_t>(e0.begin(), e0.end()).size(), 600u);
  // Another seed gives another stream.
  p.seed = 7;
  auto other = Open(p);
  EXPECT_NE(Digest(Drain(other.get())), *digests.begin());
}

// The plan's files come from `source`; reader options naming files are
// refused rather than ignored.
TEST_F(RuntimeTest, ReaderShardPathsAreRefused) {
  Plan p = BasePlan();
  p.read.shard_paths = {"elsewhere.mindrecord"};
  auto pipe = Pipeline::Open(p);
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("read.shard_paths"), std::string::npos) << pipe.status().ToString();
}

// io_mode "auto" reads a dataset that fits in memory with mmap and one above
// auto_direct_above directly (pread where O_DIRECT is refused); stats and the
// output say so and do not change. Random orders read each task's rows with
// one ReadRows call.
TEST_F(RuntimeTest, AutoIoModeIsReportedAndKeepsTheOutput) {
  Plan p = BasePlan();
  p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  p.epochs = 2;
  auto base = Open(p);
  ASSERT_TRUE(base);
  const uint64_t digest = Digest(Drain(base.get()));
  const PipelineStats st = base->stats();
  EXPECT_EQ(st.io_mode, "mmap");
  EXPECT_EQ(st.shard_io_modes, (std::vector<std::string>{"mmap", "mmap", "mmap"}));
  EXPECT_EQ(st.ToJson()["io_mode"], "mmap");

  const bool direct_ok = DirectFile::Open(*path_).ok();
  const std::string big = direct_ok ? "direct" : "pread";
  for (auto [io, above, fallback, want] : std::vector<std::tuple<std::string, uint64_t, bool, std::string>>{
           {"auto", 1, false, big}, {"auto", 1ull << 50, false, "mmap"}, {"pread", 1, false, "pread"},
           {"direct", 0, true, big}}) {
    SCOPED_TRACE(io + " above " + std::to_string(above));
    Plan q = p;
    q.read.io_mode = *ParseIoMode(io);
    q.read.auto_direct_above = above;
    q.read.direct_fallback = fallback;
    q.num_workers = 2;
    auto pipe = Open(q);
    ASSERT_TRUE(pipe);
    EXPECT_EQ(Digest(Drain(pipe.get())), digest);
    EXPECT_EQ(pipe->stats().io_mode, want);
    EXPECT_EQ(pipe->stats().shard_io_modes.size(), 3u);
  }
}

TEST_F(RuntimeTest, ResumeYieldsExactlyTheRest) {
  Plan p = BasePlan();
  p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  p.ops["vec"] = {{{"op", "TestJitter"}}};
  p.batch.batch_size = 24;
  p.epochs = 3;
  auto full_pipe = Open(p);
  auto full = Drain(full_pipe.get());
  ASSERT_EQ(full.size(), 3 * 25u);
  std::mt19937_64 rng(5);
  std::vector<size_t> cuts = {0, 1, 24, 25, 26, full.size() - 1, full.size()};
  for (int i = 0; i < 4; ++i) cuts.push_back(UniformBelow(rng, full.size()));
  for (size_t cut : cuts) {
    auto first = Open(p);
    auto head = Drain(first.get(), cut);
    ASSERT_EQ(head.size(), cut);
    const std::string saved = first->state().ToJson().dump();
    first.reset();
    auto state = PipelineState::FromJson(nlohmann::json::parse(saved));
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    Plan q = p;
    q.num_workers = 1 + cut % 4;  // any worker count
    auto second = Open(q, &*state);
    ASSERT_TRUE(second);
    auto tail = Drain(second.get());
    ASSERT_EQ(head.size() + tail.size(), full.size()) << "cut " << cut;
    for (size_t k = 0; k < tail.size(); ++k) {
      EXPECT_EQ(BatchDigest(tail[k]), BatchDigest(full[cut + k])) << "cut " << cut << " batch " << k;
    }
  }
  // A state from another plan is refused.
  auto s = Open(p)->state();
  Plan other = p;
  other.seed = 1;
  EXPECT_FALSE(Pipeline::Open(other, &s).ok());
}

TEST_F(RuntimeTest, DropRemainderAndEpochs) {
  Plan p = BasePlan();
  p.batch.batch_size = 64;
  p.batch.drop_remainder = true;
  p.epochs = 2;
  auto pipe = Open(p);
  auto batches = Drain(pipe.get());
  ASSERT_EQ(batches.size(), 2 * (600u / 64));
  for (const auto& b : batches) EXPECT_EQ(b.size(), 64u);
  EXPECT_EQ(batches[9].epoch, 1u);
  EXPECT_EQ(batches[9].row_ids[0], 0u);
}

TEST_F(RuntimeTest, RaggedColumnPaddedOrListed) {
  Plan p = BasePlan();
  p.columns = {"data", "label"};
  p.batch.ragged["data"] = {RaggedMode::kPad, 0};
  auto pipe = Open(p);
  Batch b;
  ASSERT_TRUE(pipe->Next(&b).value());
  ASSERT_EQ(b.columns.size(), 2u);
  EXPECT_EQ(b.columns[0].name, "data");
  ASSERT_FALSE(b.columns[0].is_list());
  EXPECT_EQ(b.columns[0].data.shape()[0], 16);
  EXPECT_EQ(b.columns[0].row_shapes.size(), 16u);
  EXPECT_EQ(b.columns[1].data.type(), TensorType::kInt32);
}

TEST_F(RuntimeTest, QueueDepthBoundsWorkInFlight) {
  Plan p = BasePlan();
  p.num_workers = 4;
  p.queue_depth = 2;
  p.batch.batch_size = 8;
  p.columns = {"id"};
  p.ops["id"] = {{{"op", "TestCount"}}};
  testing::g_transformed = 0;
  auto pipe = Open(p);
  uint64_t consumed = 0, max_ahead = 0;
  Batch b;
  while (pipe->Next(&b).value()) {
    consumed += b.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow consumer
    max_ahead = std::max<uint64_t>(max_ahead, testing::g_transformed.load() - consumed);
  }
  EXPECT_EQ(consumed, 600u);
  const PipelineStats s = pipe->stats();
  EXPECT_LE(s.max_in_flight, 2u);
  EXPECT_GE(s.max_in_flight, 1u);
  EXPECT_LE(max_ahead, 2u * 8u);  // at most queue_depth batches prepared ahead
  EXPECT_GT(s.workers_blocked_s, 0.0);
}

// The batch a Next() call overwrites is released by a worker, not on the
// consumer's thread (a training loop's); the batches it kept stay intact; a
// batch holding more of its own buffers than the spent cap (a quarter of
// queue_bytes) is released by the consumer at once.
TEST_F(RuntimeTest, BatchesTheConsumerIsDoneWithAreReleasedByWorkers) {
  std::mutex mu;
  std::vector<std::thread::id> released;  // the thread that freed each batch buffer
  auto alloc = [&](TensorType type, const std::vector<int64_t>& shape) -> Result<Tensor> {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    auto* buf = new uint8_t[static_cast<size_t>(n) * TensorTypeSize(type)];
    std::shared_ptr<void> owner(buf, [&](void* q) {
      delete[] static_cast<uint8_t*>(q);
      std::lock_guard<std::mutex> lock(mu);
      released.push_back(std::this_thread::get_id());
    });
    return Tensor::Wrap(type, shape, std::move(owner), buf);
  };
  auto run = [&](uint64_t queue_bytes, size_t* on_consumer) {
    released.clear();
    Plan p = BasePlan();
    p.columns = {"id"};
    p.num_workers = 2;
    p.queue_depth = 4;
    p.queue_bytes = queue_bytes;
    auto r = Pipeline::Open(p, nullptr, alloc);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto pipe = std::move(r).value();
    Batch b, first;
    uint64_t rows = 0, batches = 0;
    while (pipe->Next(&b).value()) {
      if (batches++ == 0) first = b;  // shares the buffer: kept alive by the consumer
      rows += b.size();
    }
    EXPECT_EQ(rows, 600u);
    const auto* ids = first.column("id");
    ASSERT_NE(ids, nullptr);
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(reinterpret_cast<const int64_t*>(ids->data.data())[i], static_cast<int64_t>(first.row_ids[i]));
    }
    b = Batch();
    first = Batch();
    pipe.reset();
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(released.size(), batches);
    *on_consumer = static_cast<size_t>(std::count(released.begin(), released.end(), std::this_thread::get_id()));
  };
  size_t on_consumer = 0;
  run(Plan().queue_bytes, &on_consumer);
  // 38 batches: all but the last few (handed out once every task was
  // claimed, or kept by the test) are released by workers.
  EXPECT_LE(on_consumer, 10u) << released.size() << " batches";
  run(400, &on_consumer);  // a batch's 16 ids (128 bytes) are over a quarter of 400 bytes
  EXPECT_EQ(on_consumer, released.size());
}

// Resident memory stays flat over many epochs (nothing accumulates per epoch).
TEST_F(RuntimeTest, MemoryFlatOverEpochs) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan keeps freed memory in its quarantine (up to 256 MiB), so RSS grows by design";
#endif
  auto rss_kib = [] {
    std::ifstream f("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    f >> size >> resident;
    return resident * (static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 1024);
  };
  Plan p = BasePlan();
  p.sampler = {{"type", "random"}};
  p.epochs = 40;
  auto pipe = Open(p);
  Batch b;
  uint64_t batches = 0, after_warmup = 0;
  while (pipe->Next(&b).value()) {
    if (++batches == 3 * 38) after_warmup = rss_kib();  // after 3 epochs
  }
  EXPECT_EQ(pipe->stats().rows, 40u * 600u);
  const uint64_t end = rss_kib();
  EXPECT_LT(end, after_warmup + 32 * 1024) << "RSS grew from " << after_warmup << " KiB to " << end << " KiB";
}

TEST_F(RuntimeTest, StatsAndStateReadableWhileRunning) {
  Plan p = BasePlan();
  p.sampler = {{"type", "random"}};
  p.epochs = 3;
  auto pipe = Open(p);
  std::atomic<bool> done{false};
  std::thread poller([&] {
    while (!done) {
      PipelineStats s = pipe->stats();
      PipelineState st = pipe->state();
      EXPECT_LE(s.in_flight, 3u);
      EXPECT_LE(st.position, 600u);
      std::this_thread::yield();
    }
  });
  auto batches = Drain(pipe.get());
  done = true;
  poller.join();
  const PipelineStats s = pipe->stats();
  EXPECT_EQ(s.rows, 1800u);
  EXPECT_EQ(s.batches, batches.size());
  EXPECT_GT(s.rows_per_s, 0.0);
  EXPECT_GT(s.io_s, 0.0);
  EXPECT_EQ(s.num_workers, 3u);
  const auto j = s.ToJson();
  EXPECT_TRUE(j.contains("consumer_wait_s"));
  EXPECT_EQ(pipe->state().epoch, 3u);
  EXPECT_EQ(pipe->state().position, 0u);
}

// A forked child (a DataLoader worker) holding a copy of a running pipeline:
// Next() there fails at once (the workers are the parent's), destroying the
// copy returns (nothing is joined), and the parent's pipeline goes on intact.
TEST_F(RuntimeTest, ForkedCopyFailsAndIsDestroyedWithoutTouchingTheParent) {
  Plan p = BasePlan();
  p.queue_depth = 2;
  const auto expected = Drain(Open(p).get());
  for (bool call_next : {true, false}) {
    SCOPED_TRACE(call_next ? "Next then destroy" : "destroy");
    auto pipe = Open(p);
    ASSERT_TRUE(pipe);
    std::vector<Batch> got(1);
    auto first = pipe->Next(&got[0]);
    ASSERT_TRUE(first.ok() && *first);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      if (call_next) {
        Batch b;
        auto r = pipe->Next(&b);
        if (r.ok() || r.status().message().find("another process") == std::string::npos) code = 3;
      }
      pipe.reset();
      ::_exit(code);
    }
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 300 && done == 0; ++i) {
      done = ::waitpid(pid, &status, WNOHANG);
      if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (done == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "the forked child hung";
    } else {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit status " << status;
    }
    for (;;) {
      Batch b;
      auto r = pipe->Next(&b);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (!*r) break;
      got.push_back(std::move(b));
    }
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(BatchDigest(got[i]), BatchDigest(expected[i]));
  }
}

TEST_F(RuntimeTest, PKSamplerAgainstIndex) {
  auto reader = ShardReader::Open(*path_);
  ASSERT_TRUE(reader.ok());
  auto groups = (*reader)->GroupByIndexField("label");
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  ASSERT_EQ(groups->size(), 7u);
  Plan p = BasePlan();
  p.columns = {"label"};
  p.sampler = {{"type", "pk"}, {"field", "label"}, {"k", 5}, {"num_classes", 4}, {"shuffle", true}};
  p.batch.batch_size = 5;
  auto pipe = Open(p);
  auto batches = Drain(pipe.get());
  ASSERT_EQ(batches.size(), 4u);
  std::set<int32_t> labels;
  for (const auto& b : batches) {
    const int32_t label = b.columns[0].data.data_as<int32_t>()[0];
    labels.insert(label);
    std::set<uint64_t> ids(b.row_ids.begin(), b.row_ids.end());
    EXPECT_EQ(ids.size(), 5u);
    const auto& members = (*groups)[label].second;
    for (size_t i = 0; i < b.size(); ++i) {
      EXPECT_EQ(b.columns[0].data.data_as<int32_t>()[i], label);
      EXPECT_TRUE(std::binary_search(members.begin(), members.end(), b.row_ids[i]));
    }
  }
  EXPECT_EQ(labels.size(), 4u);
}

TEST_F(RuntimeTest, DistributedRanksCoverDataset) {
  std::vector<uint64_t> all;
  for (uint64_t rank = 0; rank < 4; ++rank) {
    Plan p = BasePlan();
    p.columns = {"id"};
    p.sampler = {{"type", "distributed"}, {"num_shards", 4}, {"shard_id", rank}, {"shuffle", "files"}};
    auto pipe = Open(p);
    auto ids = RowIds(Drain(pipe.get()));
    EXPECT_EQ(ids.size(), 150u);
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  for (uint64_t i = 0; i < 600; ++i) ASSERT_EQ(all[i], i);
}

TEST_F(RuntimeTest, PaddedRowsAreSampledAfterTheDataset) {
  // 600 rows + 4 padded = 604 = 4 x 151; shuffled across ranks, transformed like real rows.
  nlohmann::json row = {{"id", -1}, {"vec", {{"shape", {4}}, {"hex", "0000803f000000400000404000008040"}}}};
  std::vector<uint64_t> all;
  for (uint64_t rank = 0; rank < 4; ++rank) {
    Plan p = BasePlan();
    p.columns = {"id", "vec"};
    p.padded = {{"count", 4}, {"row", row}};
    p.sampler = {{"type", "distributed"}, {"num_shards", 4}, {"shard_id", rank}, {"shuffle", "global"}};
    auto pipe = Open(p);
    ASSERT_TRUE(pipe);
    auto batches = Drain(pipe.get());
    for (const auto& b : batches) {
      const auto* id = b.column("id")->data.data_as<int64_t>();
      const auto* vec = b.column("vec")->data.data_as<float>();
      for (size_t i = 0; i < b.size(); ++i) {
        if (b.row_ids[i] >= 600) {
          EXPECT_EQ(id[i], -1);
          EXPECT_EQ(vec[4 * i + 3], 4.0f);
        } else {
          EXPECT_GE(id[i], 0);
          EXPECT_EQ(vec[4 * i], static_cast<float>(id[i]));
        }
      }
    }
    auto ids = RowIds(batches);
    EXPECT_EQ(ids.size(), 151u);
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  for (uint64_t i = 0; i < 604; ++i) ASSERT_EQ(all[i], i);

  Plan bad = BasePlan();
  bad.columns = {"id"};
  bad.padded = {{"count", 1}, {"row", {{"id", "x"}}}};
  EXPECT_EQ(Pipeline::Open(bad).status().code(), StatusCode::kInvalidArgument);
  bad.padded = {{"count", 1}, {"row", {{"id", 1}, {"vec", row["vec"]}}}};
  EXPECT_EQ(Pipeline::Open(bad).status().code(), StatusCode::kInvalidArgument);  // vec is not read
  bad.padded = {{"count", 1}, {"row", {{"id", UINT64_MAX}}}};  // not clamped to INT64_MAX
  auto too_big = Pipeline::Open(bad);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_big.status().message().find("18446744073709551615"), std::string::npos) << too_big.status().message();
}

TEST_F(RuntimeTest, CudaSinkFallback) {
  Plan p = BasePlan();
  p.sink.kind = SinkSpec::Kind::kCuda;
  auto pipe = Pipeline::Open(p);
#ifdef MINDRECORD_HAVE_CUDA
  if (pipe.ok()) {  // a GPU is present: batches carry device copies
    Batch b;
    ASSERT_TRUE((*pipe)->Next(&b).value());
    EXPECT_NE(b.column("vec")->device_data, nullptr);
    return;
  }
  EXPECT_NE(pipe.status().message().find("no CUDA device"), std::string::npos) << pipe.status().ToString();
#else
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("-DMINDRECORD_WITH_CUDA=ON"), std::string::npos);
#endif
  EXPECT_EQ(pipe.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(pipe.status().message().find("host sink"), std::string::npos);
  p.sink.kind = SinkSpec::Kind::kHost;
  auto host = Open(p);
  Batch b;
  EXPECT_TRUE(host->Next(&b).value());
}

TEST_F(RuntimeTest, BadPlansAreRefused) {
  Plan p = BasePlan();
  p.columns = {"nope"};
  EXPECT_FALSE(Pipeline::Open(p).ok());
  p = BasePlan();
  p.columns = {"id"};
  p.ops["vec"] = {{{"op", "TestJitter"}}};
  auto r = Pipeline::Open(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("vec"), std::string::npos);
  p = BasePlan();
  p.sampler = {{"type", "subset"}, {"indices", {600}}};
  EXPECT_FALSE(Pipeline::Open(p).ok());
  p = BasePlan();
  p.source = {"/nonexistent/x.mindrecord"};
  EXPECT_FALSE(Pipeline::Open(p).ok());
}

}  // namespace
}  // namespace mindrecord
