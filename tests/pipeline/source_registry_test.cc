// Registered sources ("source" leaves, pipeline/nodes/source_registry.h): a
// program's own source in a plan, through samplers, maps and batches; the
// built-in "textfile" kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pipeline/nodes/source_registry.h"
#include "pipeline/nodes/text_source.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::Drain;

// Row i: "n" = i * 10 (int64 scalar); row 13 fails.
class TensSource : public Source {
 public:
  explicit TensSource(uint64_t rows) : rows_(rows) {}
  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return rows_; }
  DatasetLayout Layout() const override { return DatasetLayout::Uniform(rows_, 1); }
  std::string Where(uint64_t id) const override { return "tens row " + std::to_string(id); }
  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == 13) {
        MR_RETURN_IF_ERROR(fn(i, Status::Corruption("row 13 is bad"), {}, 0));
        continue;
      }
      Tensor t = Tensor::Make(TensorType::kInt64, {});
      *t.mutable_data_as<int64_t>() = static_cast<int64_t>(ids[i] * 10);
      MR_RETURN_IF_ERROR(fn(i, Status::OK(), {t}, 8));
    }
    return Status::OK();
  }

 private:
  std::vector<std::string> names_{"n"};
  uint64_t rows_;
};

nlohmann::json Leaf(uint64_t rows) {
  return {{"node", "source"}, {"kind", "tens"}, {"columns", {"n"}}, {"rows", rows}, {"_handle", 7}};
}

class SourceRegistryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RegisterSource("tens", [](const nlohmann::json& node) -> Result<std::unique_ptr<Source>> {
      EXPECT_EQ(node.value("_handle", 0), 7);  // process-local keys reach the factory
      return std::unique_ptr<Source>(new TensSource(node["rows"].get<uint64_t>()));
    });
  }
  static std::vector<int64_t> Values(const Plan& plan, Status* err = nullptr) {
    auto pipe = Pipeline::Open(plan);
    EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
    std::vector<int64_t> out;
    if (!pipe.ok()) return out;
    for (const Batch& b : Drain(pipe->get(), SIZE_MAX, err)) {
      const auto* v = b.column("n")->data.data_as<int64_t>();
      out.insert(out.end(), v, v + b.size());
    }
    return out;
  }
};

TEST_F(SourceRegistryTest, ALeafOfARegisteredKindReadsThroughTheSampler) {
  nlohmann::json leaf = Leaf(12);
  leaf["sampler"] = {{"type", "subset"}, {"indices", {11, 0, 5}}};
  auto plan = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 2}, {"input", leaf}}}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Values(*plan), (std::vector<int64_t>{110, 0, 50}));
  // Handles are process-local: they do not change the plan's fingerprint.
  nlohmann::json other = leaf;
  other["_handle"] = 8;
  auto plan2 = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 2}, {"input", other}}}});
  ASSERT_TRUE(plan2.ok());
  EXPECT_EQ(plan->SequenceFingerprint(), plan2->SequenceFingerprint());
}

TEST_F(SourceRegistryTest, ARowErrorNamesTheRow) {
  auto plan = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 4}, {"input", Leaf(20)}}}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  Status err;
  Values(*plan, &err);
  EXPECT_EQ(err.code(), StatusCode::kCorruption) << err.ToString();
  EXPECT_NE(err.message().find("row 13 is bad"), std::string::npos) << err.ToString();
}

TEST_F(SourceRegistryTest, BadLeavesAndUnknownKindsAreRefused) {
  auto bad = [](nlohmann::json leaf) {
    return Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 1}, {"input", std::move(leaf)}}}}).status();
  };
  nlohmann::json l = Leaf(3);
  l["extra"] = 1;
  EXPECT_NE(bad(l).message().find("unknown key 'extra' for a 'source' node"), std::string::npos);
  l = Leaf(3);
  l["columns"] = {"n", "n"};
  EXPECT_NE(bad(l).message().find("column 'n' named twice"), std::string::npos);
  l = Leaf(3);
  l.erase("kind");
  EXPECT_NE(bad(l).message().find("needs 'kind'"), std::string::npos);
  l = Leaf(3);
  l["kind"] = "nobody";
  auto plan = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 1}, {"input", l}}}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto pipe = Pipeline::Open(*plan);
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("no source of kind 'nobody' is registered"), std::string::npos)
      << pipe.status().ToString();
}

TEST(TextFileSourceTest, LinesOfTheFilesThroughAPlan) {
  const std::string dir = testing::ProcessTempDir() + "/textfile";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
  };
  const std::string a = write("a.txt", "one\n\ntwo\r\nthree");
  const std::string b = write("b.txt", "\xff\xfe\nfour\n");
  auto counts = CountTextFileLines({a, b});
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(*counts, (std::vector<uint64_t>{3, 2}));
  nlohmann::json leaf = {{"node", "source"}, {"kind", "textfile"}, {"columns", {"text"}}, {"rows", 5},
                         {"args", {{"files", {a, b}}}}};
  auto parsed = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 1}, {"input", leaf}}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  Plan plan = *parsed;
  plan.on_error = ErrorPolicy::kSkip;  // the line that is not UTF-8 is skipped and reported
  auto pipe = Pipeline::Open(plan);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::vector<std::string> got;
  for (const Batch& batch : Drain(pipe->get())) {
    const Tensor& t = batch.columns[0].is_list() ? batch.columns[0].list[0] : batch.columns[0].data;
    got.emplace_back(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two\r", "three", "four"}));
  // Another line count than the plan's: the files changed since.
  leaf["rows"] = 6;
  parsed = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 1}, {"input", leaf}}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto changed = Pipeline::Open(*parsed);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("5 lines now, 6 when the dataset was made"), std::string::npos)
      << changed.status().ToString();
}

}  // namespace
}  // namespace mindrecord
