// The dataset cache (a "cache" node; pipeline/nodes/cache_node.h) through
// Plan and Pipeline::Open: hit and miss counts, rows not transformed again
// once cached, the same rows, order and resume state as without the cache,
// the byte cap, a corrupt entry re-read from the dataset, a changed dataset
// or op chain missing, random ops refused, two processes filling one cache,
// a FIFO or link in place of an entry.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pipeline/cache/cache_entry.h"
#include "pipeline/nodes/cache_node.h"
#include "tests/pipeline/tree_test_util.h"

namespace mindrecord {
namespace {

using json = nlohmann::json;
using testing::BatchDigest;

class CacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::RegisterTestOps();
    testing::RegisterTreeTestOps();
  }
  void SetUp() override {
    root_ = testing::ProcessTempDir() + "/cache_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(root_);
    data_ = testing::WriteDataset("cache_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                                      ".mindrecord",
                                  200, 2);
  }

  // batch(cache?(map(leaf))): vec -> TestCount -> TestDouble (float64 2x),
  // globally shuffled.
  json Tree(bool cached, uint64_t size_bytes = 0, json ops = json()) const {
    json leaf = {{"node", "mindrecord"}, {"source", {data_}}, {"columns", {"id", "vec", "data"}},
                 {"sampler", {{"type", "shuffle"}, {"mode", "global"}}}};
    if (ops.is_null()) ops = json::array({{{"op", "TestCount"}}, {{"op", "TestDouble"}}});
    json node = {{"node", "map"}, {"input", leaf}, {"operations", ops}, {"input_columns", {"vec"}}};
    if (cached) {
      node = {{"node", "cache"}, {"input", node}, {"session_id", "s1"}, {"size_bytes", size_bytes}, {"dir", root_}};
    }
    return {{"node", "batch"}, {"input", node}, {"batch_size", 16}};
  }
  static Plan MakePlan(const json& tree, uint32_t workers, uint32_t depth = 3, uint64_t epochs = 3) {
    auto p = Plan::FromJson({{"tree", tree}, {"num_workers", workers}, {"queue_depth", depth}, {"seed", 11},
                             {"epochs", epochs}});
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p : Plan();
  }
  // Runs the plan to the end: the batches' digests, and the cache counters.
  static std::vector<uint64_t> Run(const Plan& p, CacheCounters* c = nullptr, const PipelineState* s = nullptr) {
    auto pipe = Pipeline::Open(p, s);
    EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
    if (!pipe.ok()) return {};
    std::vector<uint64_t> d;
    for (const auto& b : testing::Drain(pipe->get())) d.push_back(BatchDigest(b));
    if (c != nullptr) {
      const auto st = (*pipe)->stats();
      EXPECT_EQ(st.caches.size(), 1u);
      if (!st.caches.empty()) *c = st.caches[0];
    }
    return d;
  }
  // Runs the plan without the cache (its batches into *expected), then fills
  // the cache with the same plan; its 200 entry files, sorted, into *files.
  void FillCache(std::vector<uint64_t>* expected, std::vector<std::string>* files) const {
    *expected = Run(MakePlan(Tree(false), 2, 3, 1));
    ASSERT_EQ(Run(MakePlan(Tree(true), 2, 3, 1)), *expected);
    *files = EntryFiles();
    ASSERT_EQ(files->size(), 200u);
    std::sort(files->begin(), files->end());
  }
  std::vector<std::string> EntryFiles() const {
    std::vector<std::string> out;
    for (const auto& s : std::filesystem::recursive_directory_iterator(root_)) {
      if (s.is_regular_file() && s.path().parent_path().filename() == "e" && s.path().filename().string()[0] != '.')
        out.push_back(s.path().string());
    }
    return out;
  }

  std::string root_, data_;
};

TEST_F(CacheTest, LaterEpochsAndJobsServeCachedRowsWithoutTransformingThem) {
  const auto expected = Run(MakePlan(Tree(false), 3));
  ASSERT_EQ(expected.size(), 3u * 13u);
  // One worker, one task at a time: every row of epoch 0 is stored before
  // epoch 1 resolves, so the counts are exact.
  testing::g_transformed = 0;
  CacheCounters c;
  EXPECT_EQ(Run(MakePlan(Tree(true), 1, 1), &c), expected);
  EXPECT_EQ(testing::g_transformed.load(), 200u);
  EXPECT_EQ(c.misses, 200u);
  EXPECT_EQ(c.hits, 400u);
  EXPECT_EQ(c.stored, 200u);
  EXPECT_EQ(c.entries, 200u);
  EXPECT_EQ(EntryFiles().size(), 200u);
  // A second job (a new pipeline, any worker count) starts warm.
  testing::g_transformed = 0;
  EXPECT_EQ(Run(MakePlan(Tree(true), 4), &c), expected);
  EXPECT_EQ(testing::g_transformed.load(), 0u);
  EXPECT_EQ(c.hits, 600u);
  EXPECT_EQ(c.misses, 0u);
}

TEST_F(CacheTest, ManyWorkersGiveTheSameRowsAndResumeAcrossCachedAndUncached) {
  const Plan plain = MakePlan(Tree(false), 2);
  const Plan cached = MakePlan(Tree(true), 4);
  const auto expected = Run(plain);
  CacheCounters c;
  EXPECT_EQ(Run(cached, &c), expected);
  EXPECT_EQ(c.hits + c.misses, 600u);
  EXPECT_EQ(c.entries, 200u);
  EXPECT_EQ(plain.SequenceFingerprint(), cached.SequenceFingerprint());
  // A state taken with the cache resumes without it, and the other way round.
  for (const auto& [first, second] : {std::pair{&cached, &plain}, std::pair{&plain, &cached}}) {
    auto pipe = Pipeline::Open(*first);
    ASSERT_TRUE(pipe.ok());
    std::vector<uint64_t> joined;
    for (const auto& b : testing::Drain(pipe->get(), 20)) joined.push_back(BatchDigest(b));
    const PipelineState s = (*pipe)->state();
    const auto rest = Run(*second, nullptr, &s);
    joined.insert(joined.end(), rest.begin(), rest.end());
    EXPECT_EQ(joined, expected);
  }
}

TEST_F(CacheTest, CapIsRespectedAndRowsPastItAreComputed) {
  // Each entry holds id (8), vec as float64 (32), data (< 210) and headers:
  // well under 1 KiB; a 20 KiB cap holds some rows, not all.
  const uint64_t cap = 20 << 10;
  const auto expected = Run(MakePlan(Tree(false), 2));
  CacheCounters c;
  // Filled by one worker, one task at a time (no row is put twice, so the
  // entries stored are exactly those that fitted in turn).
  EXPECT_EQ(Run(MakePlan(Tree(true, cap), 1, 1), &c), expected);
  EXPECT_LE(c.bytes, cap);
  EXPECT_GT(c.entries, 10u);
  EXPECT_LT(c.entries, 200u);
  EXPECT_GT(c.rejected, 0u);
  uint64_t on_disk = 0;
  for (const auto& f : EntryFiles()) on_disk += std::filesystem::file_size(f);
  EXPECT_EQ(on_disk, c.bytes);
  EXPECT_EQ(EntryFiles().size(), c.entries);
  const uint64_t entries = c.entries;
  // Warm: exactly the stored rows hit, every epoch; the rest are computed.
  testing::g_transformed = 0;
  EXPECT_EQ(Run(MakePlan(Tree(true, cap), 3), &c), expected);
  EXPECT_EQ(c.hits, 3 * entries);
  EXPECT_EQ(c.misses, 3 * (200 - entries));
  EXPECT_EQ(testing::g_transformed.load(), 3 * (200 - entries));
  EXPECT_EQ(c.entries, entries);
}

TEST_F(CacheTest, CorruptEntryIsDetectedReReadAndReplaced) {
  std::vector<uint64_t> expected;
  std::vector<std::string> files;
  ASSERT_NO_FATAL_FAILURE(FillCache(&expected, &files));
  CacheCounters c;
  {  // one byte of the payload flipped, one entry cut short
    std::fstream f(files[3], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  std::filesystem::resize_file(files[7], 30);
  EXPECT_EQ(Run(MakePlan(Tree(true), 2, 3, 1), &c), expected);
  EXPECT_EQ(c.corrupt, 2u);
  EXPECT_EQ(c.misses, 2u);
  EXPECT_EQ(c.hits, 198u);
  // The re-read rows replaced the bad entries.
  EXPECT_EQ(Run(MakePlan(Tree(true), 2, 3, 1), &c), expected);
  EXPECT_EQ(c.corrupt, 0u);
  EXPECT_EQ(c.hits, 200u);
}

// The cache folder is untrusted: a FIFO where an entry should be is not
// waited on (the read would block forever), a link is not followed; both
// rows are read from the dataset again and the entries replaced.
TEST_F(CacheTest, FifoOrLinkInPlaceOfAnEntryIsReReadNotWaitedOn) {
  std::vector<uint64_t> expected;
  std::vector<std::string> files;
  ASSERT_NO_FATAL_FAILURE(FillCache(&expected, &files));
  CacheCounters c;
  ASSERT_EQ(std::remove(files[3].c_str()), 0);
  ASSERT_EQ(::mkfifo(files[3].c_str(), 0644), 0);
  ASSERT_EQ(std::remove(files[7].c_str()), 0);
  std::filesystem::create_symlink(files[8], files[7]);
  EXPECT_EQ(Run(MakePlan(Tree(true), 2, 3, 1), &c), expected);
  EXPECT_EQ(c.corrupt, 2u);
  EXPECT_EQ(c.hits, 198u);
  EXPECT_EQ(Run(MakePlan(Tree(true), 2, 3, 1), &c), expected);
  EXPECT_EQ(c.hits, 200u);
}

TEST_F(CacheTest, ChangedOpChainOrDatasetMisses) {
  CacheCounters c;
  Run(MakePlan(Tree(true), 2, 3, 1), &c);
  ASSERT_EQ(c.misses, 200u);
  // Another op chain: a new cache, nothing stale read.
  const json ops = json::array({{{"op", "TestDouble"}}});
  const auto other = Run(MakePlan(Tree(false, 0, ops), 2, 3, 1));
  EXPECT_EQ(Run(MakePlan(Tree(true, 0, ops), 2, 3, 1), &c), other);
  EXPECT_EQ(c.hits, 0u);
  EXPECT_EQ(c.misses, 200u);
  // The same path rewritten with other rows: a new cache too.
  testing::WriteDataset("cache_ChangedOpChainOrDatasetMisses.mindrecord", 200, 2, 7, 5000);
  const auto fresh = Run(MakePlan(Tree(false), 2, 3, 1));
  EXPECT_EQ(Run(MakePlan(Tree(true), 2, 3, 1), &c), fresh);
  EXPECT_EQ(c.hits, 0u);
  EXPECT_EQ(c.misses, 200u);
}

TEST_F(CacheTest, RandomOpsAndUnsupportedInputsAreRefused) {
  json t = Tree(true, 0, json::array({{{"op", "TestJitter"}}}));
  auto p = Plan::FromJson({{"tree", t}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto pipe = Pipeline::Open(*p);
  ASSERT_FALSE(pipe.ok());
  EXPECT_EQ(pipe.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pipe.status().message().find("random op TestJitter"), std::string::npos) << pipe.status().ToString();
  // A cache over a shuffle node.
  json leaf = {{"node", "mindrecord"}, {"source", {data_}}};
  json shuffled = {{"node", "shuffle"}, {"input", leaf}, {"buffer_size", 4}};
  p = Plan::FromJson({{"tree", {{"node", "cache"}, {"input", shuffled}, {"session_id", "x"}, {"dir", root_}}}});
  ASSERT_TRUE(p.ok());
  pipe = Pipeline::Open(*p);
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("a cache over a 'shuffle' node"), std::string::npos) << pipe.status().ToString();
  // Bad names and unknown keys.
  p = Plan::FromJson({{"tree", {{"node", "cache"}, {"input", leaf}, {"session_id", "../x"}, {"dir", root_}}}});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(Pipeline::Open(*p).ok());
  p = Plan::FromJson({{"tree", {{"node", "cache"}, {"input", leaf}, {"session_id", 3}, {"spilling", true}}}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("unknown key 'spilling'"), std::string::npos);
}

TEST_F(CacheTest, TwoProcessesFillOneCacheConcurrently) {
  const Plan plain = MakePlan(Tree(false), 2, 3, 2);
  const Plan cached = MakePlan(Tree(true), 3, 3, 2);
  const auto expected = Run(plain);
  std::vector<pid_t> kids;
  for (int k = 0; k < 2; ++k) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<uint64_t> d;
      {  // the pipeline is closed (its threads joined) before the child exits
        auto pipe = Pipeline::Open(cached);
        if (!pipe.ok()) ::_exit(2);
        for (const auto& b : testing::Drain(pipe->get())) d.push_back(BatchDigest(b));
      }
      ::_exit(d == expected ? 0 : 1);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit status " << status;
  }
  CacheCounters c;
  EXPECT_EQ(Run(cached, &c), expected);
  EXPECT_EQ(c.entries, 200u);
  EXPECT_EQ(c.hits, 400u);
  EXPECT_EQ(c.misses, 0u);
  uint64_t on_disk = 0;
  for (const auto& f : EntryFiles()) on_disk += std::filesystem::file_size(f);
  EXPECT_EQ(on_disk, c.bytes);
  EXPECT_EQ(EntryFiles().size(), 200u);
}

// The entry format: a round trip, and every single-byte change of an entry
// is refused (checksums), as is every truncation.
TEST(CacheEntryTest, RoundTripsAndRefusesEveryFlippedByteAndTruncation) {
  Tensor img = Tensor::Make(TensorType::kUInt8, {3, 5, 3});
  for (int i = 0; i < 45; ++i) img.mutable_data_as<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
  Tensor label = Tensor::Make(TensorType::kInt64, {});
  *label.mutable_data_as<int64_t>() = -9;
  Tensor flags = Tensor::Make(TensorType::kBool, {2});
  flags.MutableData()[0] = 1;
  flags.MutableData()[1] = 0;
  const std::string e =
      EncodeCacheEntry(77, 5, {img, label, Tensor::FromString(TensorType::kBytes, "abc"), flags});
  auto bytes = [](const std::string& s) { return std::make_shared<std::vector<uint8_t>>(s.begin(), s.end()); };
  auto back = DecodeCacheEntry(bytes(e), 77, 5, 4, "e");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0].shape(), img.shape());
  EXPECT_EQ(0, std::memcmp((*back)[0].data(), img.data(), 45));
  EXPECT_EQ(*(*back)[1].data_as<int64_t>(), -9);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>((*back)[2].data()), 3), "abc");
  EXPECT_EQ((*back)[3].type(), TensorType::kBool);
  EXPECT_EQ((*back)[3].data()[0], 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*back)[0].data()) % 16, 0u);  // columns start 16-byte aligned
  EXPECT_FALSE(DecodeCacheEntry(bytes(e), 78, 5, 4, "e").ok());  // another cache
  EXPECT_FALSE(DecodeCacheEntry(bytes(e), 77, 6, 4, "e").ok());  // another row
  EXPECT_FALSE(DecodeCacheEntry(bytes(e), 77, 5, 3, "e").ok());  // other columns
  for (size_t i = 0; i < e.size(); ++i) {
    std::string bad = e;
    bad[i] ^= 0x10;
    EXPECT_FALSE(DecodeCacheEntry(bytes(bad), 77, 5, 4, "e").ok()) << "byte " << i;
    auto cut = DecodeCacheEntry(bytes(e.substr(0, i)), 77, 5, 4, "e");
    EXPECT_EQ(cut.status().code(), StatusCode::kCorruption) << "cut at " << i;
  }
}

}  // namespace
}  // namespace mindrecord
