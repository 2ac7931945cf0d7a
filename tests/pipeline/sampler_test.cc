// Samplers: coverage, determinism, distribution and spec round trips.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "pipeline/sampler.h"
#include "pipeline/shuffle_mode.h"

namespace mindrecord {
namespace {

std::vector<uint64_t> Ids(const nlohmann::json& spec, const DatasetLayout& layout, uint64_t seed, uint64_t epoch) {
  auto s = MakeSampler(spec, layout);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  auto ids = (*s)->Epoch(seed, epoch);
  EXPECT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(ids->size(), (*s)->size());
  return ids.ok() ? ids.value() : std::vector<uint64_t>{};
}

bool IsPermutation(std::vector<uint64_t> v, uint64_t n) {
  std::sort(v.begin(), v.end());
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (v[i] != i) return false;
  }
  return v.size() == n;
}

// Pearson chi-square of `counts` against uniform.
double ChiSquare(const std::vector<uint64_t>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double expect = total / counts.size();
  double x = 0;
  for (uint64_t c : counts) x += (c - expect) * (c - expect) / expect;
  return x;
}

DatasetLayout Layout3() {
  DatasetLayout l;
  l.shard_rows = {40, 25, 35};
  return l;
}

TEST(SamplerTest, SequentialStartAndCount) {
  auto l = Layout3();
  auto ids = Ids({{"type", "sequential"}}, l, 1, 0);
  ASSERT_EQ(ids.size(), 100u);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(ids[i], i);
  ids = Ids({{"type", "sequential"}, {"start", 90}, {"num_samples", 5}}, l, 1, 0);
  EXPECT_EQ(ids, (std::vector<uint64_t>{90, 91, 92, 93, 94}));
  EXPECT_FALSE(MakeSampler({{"type", "sequential"}, {"start", 101}}, l).ok());
}

TEST(SamplerTest, RandomIsSeededPermutationNewEachEpoch) {
  auto l = Layout3();
  nlohmann::json spec = {{"type", "random"}};
  auto a = Ids(spec, l, 7, 0), a2 = Ids(spec, l, 7, 0), b = Ids(spec, l, 7, 1), c = Ids(spec, l, 8, 0);
  EXPECT_TRUE(IsPermutation(a, 100));
  EXPECT_TRUE(IsPermutation(b, 100));
  EXPECT_EQ(a, a2);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  auto part = Ids({{"type", "random"}, {"num_samples", 10}}, l, 7, 0);
  EXPECT_EQ(part, std::vector<uint64_t>(a.begin(), a.begin() + 10));
}

TEST(SamplerTest, RandomFirstPositionIsUniform) {
  DatasetLayout l = DatasetLayout::Uniform(20, 1);
  std::vector<uint64_t> counts(20);
  for (uint64_t e = 0; e < 4000; ++e) counts[Ids({{"type", "random"}}, l, 3, e)[0]]++;
  // df = 19: mean 19, sd ~6.2; 60 is > 6 sd away.
  EXPECT_LT(ChiSquare(counts), 60.0);
}

TEST(SamplerTest, RandomWithReplacementDistribution) {
  DatasetLayout l = DatasetLayout::Uniform(50, 2);
  auto ids = Ids({{"type", "random"}, {"replacement", true}, {"num_samples", 100000}}, l, 11, 0);
  ASSERT_EQ(ids.size(), 100000u);
  std::vector<uint64_t> counts(100);
  for (uint64_t id : ids) counts.at(id)++;
  EXPECT_LT(ChiSquare(counts), 99 + 10 * 14.1);  // df = 99
  std::set<uint64_t> distinct(ids.begin(), ids.begin() + 200);
  EXPECT_LT(distinct.size(), 200u);  // repeats happen
}

TEST(SamplerTest, ShuffleModes) {
  auto l = Layout3();
  // off
  auto off = Ids({{"type", "shuffle"}, {"mode", "off"}}, l, 5, 0);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(off[i], i);
  // global
  auto g = Ids({{"type", "shuffle"}, {"mode", "global"}}, l, 5, 0);
  EXPECT_TRUE(IsPermutation(g, 100));
  EXPECT_NE(g, off);
  // files: each shard's rows contiguous and ascending; shard order differs over epochs
  std::set<std::vector<uint64_t>> shard_orders;
  for (uint64_t e = 0; e < 12; ++e) {
    auto f = Ids({{"type", "shuffle"}, {"mode", "files"}}, l, 5, e);
    ASSERT_TRUE(IsPermutation(f, 100));
    std::vector<uint64_t> order;
    for (size_t i = 0; i < f.size(); ++i) {
      const uint64_t shard = f[i] < 40 ? 0 : f[i] < 65 ? 1 : 2;
      if (order.empty() || order.back() != shard) order.push_back(shard);
      else EXPECT_EQ(f[i], f[i - 1] + 1) << "a shard's rows out of order";
    }
    EXPECT_EQ(order.size(), 3u);
    shard_orders.insert(order);
  }
  EXPECT_GT(shard_orders.size(), 1u);
  // infile: shard order kept, rows permuted inside each shard
  auto in = Ids({{"type", "shuffle"}, {"mode", "infile"}}, l, 5, 0);
  ASSERT_TRUE(IsPermutation(in, 100));
  for (size_t i = 0; i < 40; ++i) EXPECT_LT(in[i], 40u);
  for (size_t i = 40; i < 65; ++i) EXPECT_TRUE(in[i] >= 40 && in[i] < 65);
  for (size_t i = 65; i < 100; ++i) EXPECT_GE(in[i], 65u);
  EXPECT_NE(in, off);
  // partial: each block of 16 consecutive positions holds one block of ids
  auto p = Ids({{"type", "shuffle"}, {"mode", "partial"}, {"block_size", 16}}, l, 5, 0);
  ASSERT_TRUE(IsPermutation(p, 100));
  size_t at = 0;
  while (at < p.size()) {
    const uint64_t block = p[at] / 16;
    const size_t len = std::min<uint64_t>(16, 100 - block * 16);
    for (size_t k = at; k < at + len; ++k) EXPECT_EQ(p[k] / 16, block);
    at += len;
  }
  EXPECT_NE(p, off);
  // adaptive = global at this size
  EXPECT_EQ(Ids({{"type", "shuffle"}, {"mode", "adaptive"}}, l, 5, 0), g);
  EXPECT_FALSE(MakeSampler({{"type", "shuffle"}, {"mode", "sideways"}}, l).ok());
}

TEST(SamplerTest, DistributedCoverage) {
  for (uint64_t rows : {1, 7, 100, 101}) {
    for (uint64_t n : {1, 3, 4, 8}) {
      for (const char* split : {"round_robin", "contiguous"}) {
        for (bool pad : {true, false}) {
          for (const char* shuffle : {"off", "global", "files", "infile"}) {
            DatasetLayout l;
            l.shard_rows = {rows / 2, rows - rows / 2};
            std::vector<uint64_t> seen(rows, 0);
            std::set<size_t> sizes;
            uint64_t total = 0;
            for (uint64_t r = 0; r < n; ++r) {
              auto ids = Ids({{"type", "distributed"}, {"num_shards", n}, {"shard_id", r}, {"split", split},
                              {"pad", pad}, {"shuffle", shuffle}},
                             l, 42, 3);
              sizes.insert(ids.size());
              total += ids.size();
              for (uint64_t id : ids) seen.at(id)++;
            }
            const std::string what = "rows=" + std::to_string(rows) + " n=" + std::to_string(n) + " " + split +
                                     (pad ? " pad " : " nopad ") + shuffle;
            for (uint64_t id = 0; id < rows; ++id) EXPECT_GE(seen[id], 1u) << what << " misses " << id;
            if (pad) {
              EXPECT_EQ(sizes.size(), 1u) << what;
              EXPECT_EQ(total, (rows + n - 1) / n * n) << what;
              uint64_t extra = 0;
              for (uint64_t c : seen) extra += c - 1;
              EXPECT_EQ(extra, total - rows) << what;
            } else {
              EXPECT_EQ(total, rows) << what;
              for (uint64_t c : seen) EXPECT_EQ(c, 1u) << what;
              EXPECT_LE(*sizes.rbegin() - *sizes.begin(), 1u) << what;
            }
          }
        }
      }
    }
  }
}

TEST(SamplerTest, DistributedSharedSeedAndEpochs) {
  auto l = Layout3();
  auto spec = [](uint64_t r) {
    return nlohmann::json{{"type", "distributed"}, {"num_shards", 2}, {"shard_id", r}, {"shuffle", true}};
  };
  auto a0 = Ids(spec(0), l, 9, 0), a1 = Ids(spec(1), l, 9, 0);
  std::set<uint64_t> both(a0.begin(), a0.end());
  both.insert(a1.begin(), a1.end());
  EXPECT_EQ(both.size(), 100u);
  EXPECT_NE(Ids(spec(0), l, 9, 1), a0);
  EXPECT_FALSE(MakeSampler({{"type", "distributed"}, {"num_shards", 2}, {"shard_id", 2}}, l).ok());
  EXPECT_FALSE(MakeSampler({{"type", "distributed"}, {"num_shards", 0}}, l).ok());
}

TEST(SamplerTest, DistributedWorkersTakeWholeBatchesInTurn) {
  // A rank's ids cut into batches of B dealt to W workers: interleaving the
  // workers' batches in turn gives the rank's sequence back (size() agrees,
  // checked by Ids), and only the last batch is short.
  auto l = Layout3();
  for (uint64_t b : {1, 4, 7, 200}) {
    for (uint64_t w : {1, 2, 3, 5}) {
      const nlohmann::json rank_spec = {{"type", "distributed"}, {"num_shards", 3}, {"shard_id", 1},
                                        {"shuffle", true}, {"pad", false}};
      const auto rank = Ids(rank_spec, l, 5, 2);
      std::vector<std::vector<uint64_t>> mine(w);
      for (uint64_t id = 0; id < w; ++id) {
        nlohmann::json spec = rank_spec;
        spec["worker_count"] = w;
        spec["worker_id"] = id;
        spec["worker_batch"] = b;
        mine[id] = Ids(spec, l, 5, 2);
      }
      std::vector<uint64_t> turns;
      for (uint64_t k = 0; turns.size() < rank.size() && k < 10000; ++k) {
        const auto& m = mine[k % w];
        const uint64_t at = (k / w) * b;
        for (uint64_t i = at; i < std::min<uint64_t>(at + b, m.size()); ++i) turns.push_back(m[i]);
      }
      EXPECT_EQ(turns, rank) << "batch " << b << " workers " << w;
    }
  }
  EXPECT_FALSE(MakeSampler({{"type", "distributed"}, {"num_shards", 1}, {"shard_id", 0}, {"worker_count", 2},
                            {"worker_id", 2}},
                           l)
                   .ok());
  EXPECT_FALSE(MakeSampler({{"type", "distributed"}, {"num_shards", 1}, {"shard_id", 0}, {"worker_batch", 0}}, l).ok());
}

TEST(SamplerTest, SubsetAndSubsetRandom) {
  auto l = Layout3();
  std::vector<uint64_t> idx = {5, 3, 99, 42};
  EXPECT_EQ(Ids({{"type", "subset"}, {"indices", idx}}, l, 1, 0), idx);
  auto r0 = Ids({{"type", "subset_random"}, {"indices", idx}}, l, 1, 0);
  std::multiset<uint64_t> a(r0.begin(), r0.end()), b(idx.begin(), idx.end());
  EXPECT_EQ(a, b);
  std::set<std::vector<uint64_t>> orders;
  for (uint64_t e = 0; e < 20; ++e) orders.insert(Ids({{"type", "subset_random"}, {"indices", idx}}, l, 1, e));
  EXPECT_GT(orders.size(), 5u);
  EXPECT_FALSE(MakeSampler({{"type", "subset"}, {"indices", {100}}}, l).ok());
}

TEST(SamplerTest, WeightedRandomDistribution) {
  DatasetLayout l = DatasetLayout::Uniform(10, 1);
  std::vector<double> w = {1, 2, 3, 4, 0, 0, 0, 0, 0, 10};
  auto ids = Ids({{"type", "weighted_random"}, {"weights", w}, {"num_samples", 200000}}, l, 4, 0);
  std::vector<uint64_t> counts(10);
  for (uint64_t id : ids) counts.at(id)++;
  for (int z = 4; z < 9; ++z) EXPECT_EQ(counts[z], 0u);
  double x = 0;
  for (int i : {0, 1, 2, 3, 9}) {
    const double e = 200000.0 * w[i] / 20.0;
    x += (counts[i] - e) * (counts[i] - e) / e;
  }
  EXPECT_LT(x, 4 + 10 * 2.9);  // df = 4
  // Without replacement: distinct, only positive weights, heavy rows first more often.
  auto nr = Ids({{"type", "weighted_random"}, {"weights", w}, {"num_samples", 5}, {"replacement", false}}, l, 4, 0);
  std::set<uint64_t> s(nr.begin(), nr.end());
  EXPECT_EQ(s, (std::set<uint64_t>{0, 1, 2, 3, 9}));
  uint64_t first_heavy = 0;
  for (uint64_t e = 0; e < 500; ++e) {
    first_heavy += Ids({{"type", "weighted_random"}, {"weights", w}, {"num_samples", 1}, {"replacement", false}},
                       l, 4, e)[0] == 9;
  }
  EXPECT_GT(first_heavy, 150u);  // expected 250
  EXPECT_LT(first_heavy, 350u);
  EXPECT_FALSE(MakeSampler({{"type", "weighted_random"}, {"weights", {0, 0}}}, l).ok());
  EXPECT_FALSE(MakeSampler({{"type", "weighted_random"}, {"weights", {-1}}}, l).ok());
}

TEST(SamplerTest, PKFromIndexGroups) {
  DatasetLayout l = DatasetLayout::Uniform(30, 2);
  // label = id % 4, but class 3 holds only 2 rows.
  l.group_by = [](const std::string& field) -> Result<IndexGroups> {
    if (field != "label") return Status::NotFound("no index field " + field);
    IndexGroups g(4);
    for (int c = 0; c < 4; ++c) g[c].first = Value::Int(c);
    for (uint64_t id = 0; id < 60; ++id) {
      if (id % 4 != 3 || id < 8) g[id % 4].second.push_back(id);
    }
    return g;
  };
  auto ids = Ids({{"type", "pk"}, {"field", "label"}, {"k", 3}}, l, 1, 0);
  EXPECT_EQ(ids, (std::vector<uint64_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 3}));
  for (uint64_t e = 0; e < 5; ++e) {
    auto s = Ids({{"type", "pk"}, {"field", "label"}, {"k", 3}, {"num_classes", 3}, {"shuffle", true}}, l, 1, e);
    ASSERT_EQ(s.size(), 9u);
    std::set<uint64_t> classes;
    for (size_t blk = 0; blk < 3; ++blk) {
      const uint64_t c = s[blk * 3] % 4;
      classes.insert(c);
      std::set<uint64_t> members;
      for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(s[blk * 3 + k] % 4, c);
        members.insert(s[blk * 3 + k]);
      }
      if (c != 3) EXPECT_EQ(members.size(), 3u);  // distinct when the class is big enough
    }
    EXPECT_EQ(classes.size(), 3u);
  }
  EXPECT_FALSE(MakeSampler({{"type", "pk"}, {"field", "nope"}, {"k", 2}}, l).ok());
  EXPECT_FALSE(MakeSampler({{"type", "pk"}, {"field", "label"}, {"k", 0}}, l).ok());
}

TEST(SamplerTest, SpecsRoundTrip) {
  auto l = Layout3();
  l.group_by = [](const std::string&) -> Result<IndexGroups> {
    return IndexGroups{{Value::Int(0), {1, 2, 3}}, {Value::Int(1), {4, 5}}};
  };
  std::vector<nlohmann::json> specs = {
      {{"type", "sequential"}, {"start", 3}},
      {{"type", "random"}, {"replacement", true}, {"num_samples", 17}},
      {{"type", "shuffle"}, {"mode", "partial"}, {"block_size", 8}},
      {{"type", "distributed"}, {"num_shards", 3}, {"shard_id", 1}, {"shuffle", "infile"}, {"split", "contiguous"}},
      {{"type", "subset_random"}, {"indices", {1, 2, 3}}},
      {{"type", "pk"}, {"k", 2}, {"shuffle", true}},
      {{"type", "weighted_random"}, {"weights", {1, 2, 3}}, {"num_samples", 9}},
  };
  for (const auto& spec : specs) {
    auto a = MakeSampler(spec, l);
    ASSERT_TRUE(a.ok()) << spec.dump() << ": " << a.status().ToString();
    auto b = MakeSampler((*a)->ToJson(), l);
    ASSERT_TRUE(b.ok()) << (*a)->ToJson().dump();
    EXPECT_EQ((*a)->ToJson(), (*b)->ToJson());
    EXPECT_EQ((*a)->Epoch(5, 2).value(), (*b)->Epoch(5, 2).value()) << spec.dump();
  }
  EXPECT_FALSE(MakeSampler({{"type", "random"}, {"shufle", true}}, l).ok());  // typo refused
  EXPECT_FALSE(MakeSampler({{"type", "bogus"}}, l).ok());
}

TEST(SamplerTest, UniformBelowIsUnbiasedAndStable) {
  std::mt19937_64 rng(123);
  std::vector<uint64_t> counts(7);
  for (int i = 0; i < 70000; ++i) counts[UniformBelow(rng, 7)]++;
  EXPECT_LT(ChiSquare(counts), 6 + 10 * 3.5);
  // The order must not change between platforms or releases: pin one value.
  std::mt19937_64 r2(MixSeed({1, 2, 3}));
  std::vector<uint64_t> v(10);
  std::iota(v.begin(), v.end(), 0);
  ShuffleRange(v.data(), v.data() + v.size(), r2);
  std::mt19937_64 r3(MixSeed({1, 2, 3}));
  std::vector<uint64_t> w(10);
  std::iota(w.begin(), w.end(), 0);
  ShuffleRange(w.data(), w.data() + w.size(), r3);
  EXPECT_EQ(v, w);
}

}  // namespace
}  // namespace mindrecord
