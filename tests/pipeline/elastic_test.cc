// Elastic resume at the sampler: the distributed sampler's "elastic" epoch
// re-deals the rows that the old ranks did not hand out among the new ranks.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "pipeline/sampler.h"

namespace mindrecord {
namespace {

nlohmann::json Spec(uint64_t world, uint64_t rank, bool pad, const std::string& split) {
  return {{"type", "distributed"}, {"num_shards", world}, {"shard_id", rank}, {"shuffle", "global"},
          {"pad", pad}, {"split", split}};
}

std::vector<uint64_t> Epoch(const nlohmann::json& spec, const DatasetLayout& layout, uint64_t seed, uint64_t epoch) {
  auto s = MakeSampler(spec, layout);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  auto ids = (*s)->Epoch(seed, epoch);
  EXPECT_TRUE(ids.ok()) << ids.status().ToString();
  auto size = (*s)->EpochSize(seed, epoch);
  EXPECT_TRUE(size.ok());
  EXPECT_EQ(ids->size(), *size);
  return ids.ok() ? *ids : std::vector<uint64_t>{};
}

struct Case {
  uint64_t from, to;
  bool pad;
  std::string split;
};

class ElasticTest : public ::testing::TestWithParam<Case> {};

// Every row of the epoch is handed out once over the old ranks' prefixes and
// the new ranks' elastic shares (plus, with pad, fewer than `to` copies of
// the first rows of the rest); the next epoch is a plain `to`-rank epoch.
TEST_P(ElasticTest, EveryRowOnceThenAPlainEpoch) {
  const Case c = GetParam();
  const DatasetLayout layout = DatasetLayout::Uniform(50, 2);  // 100 rows
  const uint64_t seed = 11, epoch = 3;
  std::vector<uint64_t> positions;
  std::multiset<uint64_t> seen;
  for (uint64_t r = 0; r < c.from; ++r) {
    auto ids = Epoch(Spec(c.from, r, c.pad, c.split), layout, seed, epoch);
    const uint64_t p = (r * 7 + 3) % (ids.size() + 1);  // uneven progress, some rank possibly done
    positions.push_back(p);
    seen.insert(ids.begin(), ids.begin() + p);
  }
  const uint64_t taken = seen.size();  // with the old run's padding copies
  const uint64_t distinct = std::set<uint64_t>(seen.begin(), seen.end()).size();
  nlohmann::json from = Spec(c.from, 0, c.pad, c.split);
  from.erase("shard_id");
  from.erase("type");
  std::vector<size_t> sizes;
  std::vector<uint64_t> rest_order;
  for (uint64_t r = 0; r < c.to; ++r) {
    nlohmann::json spec = Spec(c.to, r, c.pad, c.split);
    spec["elastic"] = {{"epoch", epoch}, {"from", from}, {"positions", positions}};
    auto ids = Epoch(spec, layout, seed, epoch);
    sizes.push_back(ids.size());
    seen.insert(ids.begin(), ids.end());
    // Other epochs are the plain `to`-rank run's.
    EXPECT_EQ(Epoch(spec, layout, seed, epoch + 1), Epoch(Spec(c.to, r, c.pad, c.split), layout, seed, epoch + 1));
    EXPECT_EQ(Epoch(spec, layout, seed, epoch - 1), Epoch(Spec(c.to, r, c.pad, c.split), layout, seed, epoch - 1));
  }
  const uint64_t left = 100 - distinct;
  for (uint64_t row = 0; row < 100; ++row) EXPECT_GE(seen.count(row), 1u) << "row " << row;
  const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
  if (c.pad) {
    EXPECT_EQ(*lo, *hi) << "padded ranks get equal counts";
    EXPECT_EQ(sizes[0], (left + c.to - 1) / c.to);
    EXPECT_EQ(seen.size(), taken + sizes[0] * c.to);
  } else {
    EXPECT_LE(*hi - *lo, 1u);
    EXPECT_EQ(seen.size(), 100u) << "without pad every row exactly once";
    EXPECT_EQ(taken, distinct);
  }
}

INSTANTIATE_TEST_SUITE_P(Worlds, ElasticTest,
                         ::testing::Values(Case{2, 3, true, "round_robin"}, Case{3, 2, true, "round_robin"},
                                           Case{1, 2, true, "round_robin"}, Case{3, 4, false, "round_robin"},
                                           Case{2, 3, true, "contiguous"}, Case{4, 3, false, "contiguous"}));

// A second elastic resume from states taken inside the first elastic epoch:
// the nested spec names the first one.
TEST(ElasticNested, TwoToThreeToTwo) {
  const DatasetLayout layout = DatasetLayout::Uniform(97, 1);
  const uint64_t seed = 5, epoch = 0;
  nlohmann::json from2 = {{"num_shards", 2}, {"shuffle", "global"}, {"pad", true}};
  std::set<uint64_t> seen;
  std::vector<uint64_t> pos2 = {10, 4};
  for (uint64_t r = 0; r < 2; ++r) {
    auto ids = Epoch({{"type", "distributed"}, {"num_shards", 2}, {"shard_id", r}, {"shuffle", "global"}}, layout,
                     seed, epoch);
    seen.insert(ids.begin(), ids.begin() + pos2[r]);
  }
  const nlohmann::json el3 = {{"epoch", epoch}, {"from", from2}, {"positions", pos2}};
  std::vector<uint64_t> pos3 = {5, 0, 9};
  for (uint64_t r = 0; r < 3; ++r) {
    auto ids = Epoch({{"type", "distributed"}, {"num_shards", 3}, {"shard_id", r}, {"shuffle", "global"},
                      {"elastic", el3}}, layout, seed, epoch);
    for (uint64_t k = 0; k < pos3[r]; ++k) EXPECT_TRUE(seen.insert(ids[k]).second) << "row handed out twice";
  }
  nlohmann::json from3 = {{"num_shards", 3}, {"shuffle", "global"}, {"pad", true}, {"elastic", el3}};
  std::multiset<uint64_t> all(seen.begin(), seen.end());
  for (uint64_t r = 0; r < 2; ++r) {
    auto ids = Epoch({{"type", "distributed"}, {"num_shards", 2}, {"shard_id", r}, {"shuffle", "global"},
                      {"elastic", {{"epoch", epoch}, {"from", from3}, {"positions", pos3}}}}, layout, seed, epoch);
    all.insert(ids.begin(), ids.end());
  }
  for (uint64_t row = 0; row < 97; ++row) EXPECT_GE(all.count(row), 1u) << "row " << row;
  EXPECT_LE(all.size(), 97u + 1);  // at most one padding copy for 2 ranks
}

TEST(ElasticSpec, BadSpecsAreRefusedNamingWhatIsWrong) {
  const DatasetLayout layout = DatasetLayout::Uniform(20, 1);
  auto bad = [&](const nlohmann::json& elastic, const std::string& want) {
    nlohmann::json spec = {{"type", "distributed"}, {"num_shards", 2}, {"shard_id", 0}, {"shuffle", "global"},
                           {"elastic", elastic}};
    auto s = MakeSampler(spec, layout);
    ASSERT_FALSE(s.ok()) << elastic.dump();
    EXPECT_NE(s.status().ToString().find(want), std::string::npos) << s.status().ToString();
  };
  const nlohmann::json from = {{"num_shards", 3}, {"shuffle", "global"}};
  bad({{"epoch", 0}, {"from", from}, {"positions", {1, 2}}}, "2 positions for 3 old ranks");
  bad({{"epoch", 0}, {"from", {{"num_shards", 3}, {"shuffle", "off"}}}, {"positions", {0, 0, 0}}},
      "the epoch's order must be the same");
  bad({{"epoch", 0}, {"from", {{"num_shards", 3}, {"shard_id", 1}}}, {"positions", {0, 0, 0}}}, "shard_id");
  bad({{"epoch", 0}, {"positions", {0, 0, 0}}}, "'from'");
  bad({{"epoch", 0}, {"from", from}, {"positions", {0, 0, 0}}, {"extra", 1}}, "unknown parameter 'extra'");
  // A position past an old rank's share fails when the epoch is computed.
  nlohmann::json spec = {{"type", "distributed"}, {"num_shards", 2}, {"shard_id", 0}, {"shuffle", "global"},
                         {"elastic", {{"epoch", 0}, {"from", from}, {"positions", {0, 99, 0}}}}};
  auto s = MakeSampler(spec, layout);
  ASSERT_TRUE(s.ok());
  auto ids = (*s)->Epoch(1, 0);
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.status().ToString().find("old rank 1 is at position 99"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
