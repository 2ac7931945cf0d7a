// Rows of a mapped shard reach the pipeline's tensors without a copy
// (Tensor::FromFieldView / Tensor::View), and nothing writes through them.
#include <filesystem>

#include "pipeline/tensor.h"
#include "tests/pipeline/pipeline_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using testing::Drain;
using testing::RowData;

TEST(ZeroCopyTest, ViewTensorsCopyBeforeTheyAreWritten) {
  auto owner = std::make_shared<std::string>("abcdef");
  const auto* bytes = reinterpret_cast<const uint8_t*>(owner->data());
  Tensor t = Tensor::View(TensorType::kUInt8, {6}, owner, bytes);
  std::weak_ptr<std::string> alive = owner;
  owner.reset();  // the tensor is the owner's only holder now
  EXPECT_TRUE(t.read_only());
  EXPECT_EQ(t.data(), bytes);
  Tensor copy = t;  // copies share the view
  EXPECT_TRUE(copy.read_only());
  copy = Tensor();
  // The only holder writes: it must copy first all the same.
  t.MutableData()[0] = 'X';
  EXPECT_FALSE(t.read_only());
  EXPECT_NE(t.data(), bytes);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(t.data()), 6), "Xbcdef");
  EXPECT_TRUE(alive.expired());  // the owner went with the view
}

TEST(ZeroCopyTest, MappedBytesReachTheBatchAsViewsOfTheFile) {
  testing::RegisterTestOps();
  const std::string path = testing::WriteDataset("zc.mindrecord", 300, 1);
  for (const char* io : {"mmap", "pread"}) {
    SCOPED_TRACE(io);
    Plan p;
    p.source = {path};
    p.columns = {"data", "id"};
    p.read.io_mode = *ParseIoMode(io);
    p.batch.batch_size = 8;
    // One task at a time: the first batch finds the column ragged (some of
    // its rows were copied into a batch buffer and back); every later one
    // keeps them as they come.
    p.num_workers = 1;
    p.queue_depth = 1;
    p.sampler = nlohmann::json{{"type", "shuffle"}, {"mode", "global"}};
    auto pipe = *Pipeline::Open(p);
    uint64_t rows = 0;
    for (const Batch& b : Drain(pipe.get())) {
      const BatchColumn* data = b.column("data");
      ASSERT_TRUE(data && data->is_list());  // ragged: one tensor per row
      for (size_t i = 0; i < b.size(); ++i, ++rows) {
        const Tensor& t = data->list[i];
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(t.data()), t.size_bytes()), RowData(b.row_ids[i]));
        if (rows >= 8) EXPECT_EQ(t.read_only(), std::string(io) == "mmap") << "row " << b.row_ids[i];
      }
    }
    EXPECT_EQ(rows, 300u);
  }
}

TEST(ZeroCopyTest, OpsWritingInPlaceNeverWriteTheMappedFile) {
  testing::RegisterTestOps();
  // One blob field: every row's array starts 8-aligned in its page, so all
  // of them are views.
  testing::TempDir dir;
  const std::string path = dir.Join("vec.mindrecord");
  auto schema = *Schema::FromUserJsonString(R"({"id": {"type": "int64"}, "vec": {"type": "float32", "shape": [4]}})");
  WriterOptions wo;
  wo.header_size = kMinHeaderSize;
  wo.page_size = kMinPageSize;
  auto w = *ShardWriter::Create(path, schema, wo);
  std::vector<Row> rows;
  for (int k = 0; k < 200; ++k) {
    const float f = static_cast<float>(k);
    rows.push_back(Row{{"id", Value::Int(k)}, {"vec", Value::ArrayOf<float>(DataType::kFloat32, {f, f, f, f})}});
  }
  ASSERT_TRUE(w->WriteRows(rows).ok());
  ASSERT_TRUE(w->Commit().ok());
  const std::string before = testing::ReadFile(path);
  Plan p;
  p.source = {path};
  p.columns = {"vec", "id"};
  p.read.io_mode = IoMode::kMmap;
  p.ops["vec"] = {{{"op", "TestJitter"}}};
  p.batch.batch_size = 1;  // one row per batch: its tensor is the op's output
  p.epochs = 2;
  auto pipe = *Pipeline::Open(p);
  uint64_t n = 0;
  for (const Batch& b : Drain(pipe.get())) {
    const float* v = b.column("vec")->data.data_as<float>();
    const float k = static_cast<float>(b.column("id")->data.data_as<int64_t>()[0]);
    EXPECT_GE(v[0], k);
    EXPECT_LT(v[0], k + 1);
    ++n;
  }
  EXPECT_EQ(n, 400u);
  EXPECT_EQ(testing::ReadFile(path), before);
}

TEST(ZeroCopyTest, CopyViewsHandsOutRowsInBuffersEachBatchOwns) {
  testing::RegisterTestOps();
  const std::string path = testing::WriteDataset("cv.mindrecord", 300, 1);
  for (bool copy : {false, true}) {
    SCOPED_TRACE(copy);
    Plan p;
    p.source = {path};
    p.columns = {"data", "id"};
    p.read.io_mode = IoMode::kMmap;
    p.batch.batch_size = 8;
    p.copy_views = copy;
    p.sampler = nlohmann::json{{"type", "shuffle"}, {"mode", "global"}};
    auto pipe = *Pipeline::Open(p);
    uint64_t rows = 0, views = 0;
    for (const Batch& b : Drain(pipe.get())) {
      const BatchColumn* data = b.column("data");
      ASSERT_TRUE(data && data->is_list());
      for (size_t i = 0; i < b.size(); ++i, ++rows) {
        const Tensor& t = data->list[i];
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(t.data()), t.size_bytes()), RowData(b.row_ids[i]));
        views += t.read_only();
      }
    }
    EXPECT_EQ(rows, 300u);
    // Without: all but the rows of the batches that found the column ragged.
    if (copy) EXPECT_EQ(views, 0u);
    else EXPECT_GT(views, 200u);
  }
}

}  // namespace
}  // namespace mindrecord
