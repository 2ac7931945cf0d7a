// SavePlan (pipeline/save.h): a plan's rows written as a dataset and read back.
#include <algorithm>
#include <filesystem>
#include <numeric>

#include <gtest/gtest.h>

#include "pipeline/save.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::RowData;
using testing::WriteDataset;

std::string OutDir(const std::string& name) {
  const std::string dir = testing::ProcessTempDir() + "/save-" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SaveTest, RowsComeBackInPlanOrderWithTheFirstRowsSchema) {
  const std::string src = WriteDataset("save_src", 90, 2);
  Plan plan;
  plan.source = {src};
  plan.columns = {"id", "data", "vec"};
  plan.sampler = {{"type", "random"}};
  plan.seed = 11;
  plan.batch.batch_size = 16;
  plan.num_workers = 3;
  std::vector<uint64_t> order;
  {
    auto pipe = Pipeline::Open(plan);
    ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
    Batch b;
    while (*(*pipe)->Next(&b)) {
      const auto* id = b.column("id")->data.data_as<int64_t>();
      order.insert(order.end(), id, id + b.size());
    }
  }
  const std::string dir = OutDir("order");
  auto saved = SavePlan(plan, dir + "/one.mindrecord", SaveOptions{});
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_EQ(saved->rows, 90u);
  EXPECT_EQ(saved->files, std::vector<std::string>{dir + "/one.mindrecord"});
  EXPECT_EQ(saved->schema, nlohmann::json::parse(R"({"id": {"type": "int64"}, "data": {"type": "bytes"},
                                                     "vec": {"type": "float32", "shape": [-1]}})"));
  auto reader = ShardReader::Open(dir + "/one.mindrecord");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->num_rows(), 90u);
  for (uint64_t k = 0; k < 90; ++k) {
    auto row = (*reader)->ReadRow(k);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_EQ(row->Get("id").as_int(), static_cast<int64_t>(order[k])) << k;
    EXPECT_EQ(row->Get("data").bytes(), RowData(order[k])) << k;
    EXPECT_EQ(row->Get("vec").ArrayAs<float>()[3], static_cast<float>(order[k]) + 0.75f) << k;
  }
  // Several files: MindSpore's names (no zero padding), every row once.
  SaveOptions o;
  o.writer.shard_count = 11;
  o.writer.pad_shard_suffix = false;
  const std::string many = dir + "/many.mindrecord";
  saved = SavePlan(plan, many, o);
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  ASSERT_EQ(saved->files.size(), 11u);
  EXPECT_EQ(saved->files[1], many + "1");
  EXPECT_EQ(saved->files[10], many + "10");
  reader = ShardReader::Open(many + "3");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<int64_t> ids;
  for (uint64_t k = 0; k < (*reader)->num_rows(); ++k) ids.push_back((*reader)->ReadRow(k)->Get("id").as_int());
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> all(90);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(ids, all);
}

TEST(SaveTest, AFailedSaveLeavesNoFiles) {
  // Row 1300 is corrupt: the pipeline stops there, after the writer has
  // written pages of the rows before it.
  const std::string src = WriteDataset("save_fail_src", 1400, 1);
  ASSERT_TRUE(testing::CorruptRow({src}, 1300));
  Plan plan;
  plan.source = {src};
  const std::string dir = OutDir("fail");
  SaveOptions o;
  o.writer.shard_count = 2;
  auto saved = SavePlan(plan, dir + "/out.mindrecord", o);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.status().code(), StatusCode::kCorruption) << saved.status().ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(SaveTest, AWriteErrorEndsTheSaveAndLeavesNoFiles) {
  // The rows are written on the writer's own thread (AsyncRowsWriter): its
  // error, after pages of earlier rows were written, is the save's.
  const std::string src = WriteDataset("save_write_fail_src", 3000, 1);
  Plan plan;
  plan.source = {src};
  const std::string dir = OutDir("write_fail");
  FaultInjectingFileSystem faulty(FileSystem::Default());
  faulty.FailWritesAfterBytes(300 << 10);
  SaveOptions o;
  o.writer.page_size = 64 << 10;
  o.writer.file_system = &faulty;
  auto saved = SavePlan(plan, dir + "/out.mindrecord", o);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.status().code(), StatusCode::kIOError) << saved.status().ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(SaveTest, NoRowsIsAnError) {
  const std::string src = WriteDataset("save_empty_src", 5, 1);
  Plan plan;
  plan.source = {src};
  plan.sampler = {{"type", "subset"}, {"indices", nlohmann::json::array()}};
  const std::string dir = OutDir("empty");
  auto saved = SavePlan(plan, dir + "/out.mindrecord", SaveOptions{});
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(saved.status().message().find("no rows"), std::string::npos) << saved.status().ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace mindrecord
