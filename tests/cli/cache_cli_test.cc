// `mindrecord cache ls` and `mindrecord cache drop`: what a pipeline's cache
// holds, listed; caches removed by name or all at once; exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pipeline/cache/cache_store.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using testing::CliPath;
using testing::RunCommand;

std::string CacheCli(const std::string& args) { return CliPath() + " " + args; }

// A cache `name` with `rows` entries of 100 bytes, two of them read back.
void Fill(const CacheOptions& o, uint64_t rows) {
  nlohmann::json meta = {{"dataset", {{{"path", "/data/x.mindrecord"}}}}, {"chain", {{"node", "mindrecord"}}}};
  auto c = CacheStore::Open(o, 42, meta, 1, rows);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (uint64_t k = 0; k < rows; ++k) {
    ASSERT_TRUE((*c)->Put(k, {Tensor::FromString(TensorType::kBytes, std::string(100, 'x'))}).ok());
  }
  ASSERT_TRUE((*c)->Get(0).ok());
  ASSERT_TRUE((*c)->Get(1).ok());
}

std::vector<nlohmann::json> CacheLines(const std::string& out) {
  std::vector<nlohmann::json> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) v.push_back(nlohmann::json::parse(line));
  return v;
}

TEST(CacheCliTest, LsShowsCachesAndDropFreesThem) {
  const std::string dir = testing::ProcessTempDir() + "/cache_cli";
  std::filesystem::remove_all(dir);
  Fill({"alpha", 0, dir}, 5);
  Fill({"beta", 0, dir}, 3);
  std::string out;
  ASSERT_EQ(RunCommand(CacheCli("cache ls --json --dir " + dir), &out), 0) << out;
  auto l = CacheLines(out);
  ASSERT_EQ(l.size(), 2u) << out;
  EXPECT_EQ(l[0]["name"], "alpha");
  EXPECT_EQ(l[0]["entries"], 5);
  EXPECT_EQ(l[0]["hits"], 2);
  EXPECT_EQ(l[0]["dataset"], "/data/x.mindrecord");
  EXPECT_EQ(l[0]["bytes"], l[0]["disk_bytes"]);
  EXPECT_GT(l[0]["bytes"].get<uint64_t>(), 500u);
  EXPECT_EQ(l[1]["name"], "beta");
  EXPECT_EQ(l[1]["entries"], 3);
  ASSERT_EQ(RunCommand(CacheCli("cache ls --dir " + dir), &out), 0);
  EXPECT_NE(out.find("alpha"), std::string::npos);
  EXPECT_NE(out.find("ENTRIES"), std::string::npos);

  ASSERT_EQ(RunCommand(CacheCli("cache drop alpha --dir " + dir), &out), 0) << out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/alpha"));
  ASSERT_EQ(RunCommand(CacheCli("cache ls --json --dir " + dir), &out), 0);
  EXPECT_EQ(CacheLines(out).size(), 1u);
  // Unknown name: a data error; neither names nor --all: a usage error.
  EXPECT_EQ(RunCommand(CacheCli("cache drop alpha --dir " + dir), &out, true), 2);
  EXPECT_NE(out.find("no cache 'alpha'"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(CacheCli("cache drop --dir " + dir), &out, true), 1);
  EXPECT_EQ(RunCommand(CacheCli("cache drop ../etc --dir " + dir), &out, true), 1);
  ASSERT_EQ(RunCommand(CacheCli("cache drop --all --dir " + dir), &out), 0) << out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/beta"));
  ASSERT_EQ(RunCommand(CacheCli("cache ls --json --dir " + dir), &out), 0);
  EXPECT_TRUE(CacheLines(out).empty());
}

}  // namespace
}  // namespace mindrecord
