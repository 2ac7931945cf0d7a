// RawSource: a raw CIFAR-10 folder (the binary distribution, written here) as
// a leaf of the execution tree: MindSpore's columns, HWC pixels from the
// file's CHW planes, usage, a shuffled batched plan, and errors naming the
// file or key.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "pipeline/nodes/raw_source.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "pipeline/row_vectors.h"

namespace mindrecord {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Record i: label i % 10, pixel (c, p) = (i * 7 + c * 31 + p) & 255.
void WriteCifar(const fs::path& path, int first, int n, size_t cut = 0) {
  std::string data;
  for (int i = first; i < first + n; ++i) {
    data.push_back(static_cast<char>(i % 10));
    for (int c = 0; c < 3; ++c) {
      for (int p = 0; p < 1024; ++p) data.push_back(static_cast<char>((i * 7 + c * 31 + p) & 255));
    }
  }
  data.resize(data.size() - cut);
  std::ofstream(path, std::ios::binary) << data;
}

class RawSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("mr_raw_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    WriteCifar(dir_ / "data_batch_1.bin", 0, 5);
    WriteCifar(dir_ / "test_batch.bin", 5, 2);
  }
  void TearDown() override { fs::remove_all(dir_); }
  json Leaf(const std::string& usage) const {
    return {{"node", "raw"}, {"format", "cifar10"}, {"dataset_dir", dir_.string()}, {"usage", usage}};
  }
  fs::path dir_;
};

// A row's column vector is this thread's spare (pipeline/row_vectors.h),
// which the batch it goes into gives back: a raw source takes one per row as
// a MindRecord source does, so workers reading raw folders reuse them too.
TEST_F(RawSourceTest, RowsTakeTheThreadsSpareColumnVector) {
  auto src = RawSource::Open(*NormalizeRawLeaf(Leaf("all"), "tree"));
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  while (TakeRowVector().capacity() > 0) {
  }
  std::vector<Tensor> spare;
  spare.reserve(8);
  const Tensor* storage = spare.data();
  GiveRowVector(std::move(spare));
  const Tensor* got = nullptr;
  Status st = (*src)->Read({3}, [&](size_t, const Status& s, std::vector<Tensor>&& cols, uint64_t) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(cols.size(), 2u);
    got = cols.data();
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(got, storage);
}

TEST_F(RawSourceTest, ReadsMindSporesColumnsInFileOrder) {
  auto node = NormalizeRawLeaf(Leaf("all"), "tree");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  auto src = RawSource::Open(*node);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ((*src)->columns(), (std::vector<std::string>{"image", "label"}));
  EXPECT_EQ((*src)->num_rows(), 7u);  // train then test
  std::map<size_t, std::vector<Tensor>> got;
  Status st = (*src)->Read({6, 0}, [&](size_t i, const Status& s, std::vector<Tensor>&& cols, uint64_t) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    got[i] = std::move(cols);
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (auto [k, record] : {std::pair<size_t, int>{0, 6}, {1, 0}}) {
    const Tensor& img = got[k][0];
    ASSERT_EQ(img.shape(), (std::vector<int64_t>{32, 32, 3}));
    ASSERT_EQ(img.type(), TensorType::kUInt8);
    for (int p : {0, 100, 1023}) {
      for (int c = 0; c < 3; ++c) EXPECT_EQ(img.data()[p * 3 + c], (record * 7 + c * 31 + p) & 255);
    }
    EXPECT_EQ(got[k][1].type(), TensorType::kInt32);
    EXPECT_EQ(*got[k][1].data_as<int32_t>(), record % 10);
  }
  auto test = RawSource::Open(*NormalizeRawLeaf(Leaf("test"), "tree"));
  ASSERT_TRUE(test.ok());
  EXPECT_EQ((*test)->num_rows(), 2u);
}

TEST_F(RawSourceTest, ShuffledBatchedPlanGivesEveryRowOnce) {
  json leaf = Leaf("train");
  leaf["sampler"] = {{"type", "shuffle"}, {"mode", "global"}};
  auto plan = Plan::FromJson({{"tree", {{"node", "batch"}, {"batch_size", 2}, {"input", leaf}}},
                              {"num_workers", 2}, {"seed", 3}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto pipe = Pipeline::Open(*plan);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::multiset<int32_t> labels;
  for (;;) {
    Batch b;
    auto more = (*pipe)->Next(&b);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    const BatchColumn* l = b.column("label");
    ASSERT_NE(l, nullptr);
    for (size_t i = 0; i < b.size(); ++i) labels.insert(l->data.data_as<int32_t>()[i]);
  }
  EXPECT_EQ(labels, (std::multiset<int32_t>{0, 1, 2, 3, 4}));
}

TEST_F(RawSourceTest, BadFilesAndKeysAreNamed) {
  WriteCifar(dir_ / "data_batch_2.bin", 0, 2, 100);  // not a whole number of records
  auto src = RawSource::Open(*NormalizeRawLeaf(Leaf("train"), "tree"));
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().ToString().find("data_batch_2.bin"), std::string::npos) << src.status().ToString();
  json bad = Leaf("train");
  bad["decode"] = true;
  auto n = NormalizeRawLeaf(bad, "tree");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().ToString().find("'decode' does not apply to format 'cifar10'"), std::string::npos);
  bad = Leaf("train");
  bad["colums"] = json::array();
  n = NormalizeRawLeaf(bad, "tree");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().ToString().find("unknown key 'colums'"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
