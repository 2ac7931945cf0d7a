// Batcher: contiguous columns, ragged columns (list, pad, error), split.
#include <cstring>

#include <gtest/gtest.h>

#include "pipeline/batch.h"

namespace mindrecord {
namespace {

Tensor Floats(std::vector<float> v, std::vector<int64_t> shape) {
  Tensor t = Tensor::Make(TensorType::kFloat32, shape);
  std::memcpy(t.MutableData(), v.data(), v.size() * sizeof(float));
  return t;
}

RowTensors Row2(uint64_t id, Tensor a, Tensor b) {
  RowTensors r;
  r.row_id = id;
  r.position = id * 10;
  r.columns = {std::move(a), std::move(b)};
  return r;
}

TEST(BatchTest, FixedShapeColumnsAreContiguous) {
  std::vector<RowTensors> rows;
  for (uint64_t i = 0; i < 3; ++i) {
    rows.push_back(Row2(i, Floats({float(i), float(i) + 0.5f}, {2}),
                        Tensor::FromValue(Value::Int(static_cast<int64_t>(i * 7)), DataType::kInt64)));
  }
  auto b = AssembleBatch({"vec", "label"}, std::move(rows), 4, BatchOptions{});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->size(), 3u);
  EXPECT_EQ(b->epoch, 4u);
  EXPECT_EQ(b->positions, (std::vector<uint64_t>{0, 10, 20}));
  const BatchColumn* vec = b->column("vec");
  ASSERT_NE(vec, nullptr);
  ASSERT_FALSE(vec->is_list());
  EXPECT_EQ(vec->data.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec->data.data_as<float>()[5], 2.5f);
  const BatchColumn* label = b->column("label");
  EXPECT_EQ(label->data.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(label->data.data_as<int64_t>()[2], 14);
}

TEST(BatchTest, RaggedListPadAndError) {
  auto make = [] {
    std::vector<RowTensors> rows;
    rows.push_back(Row2(0, Floats({1, 2, 3, 4, 5, 6}, {2, 3}), Tensor::FromString(TensorType::kBytes, "ab")));
    rows.push_back(Row2(1, Floats({7, 8}, {1, 2}), Tensor::FromString(TensorType::kBytes, "cde")));
    return rows;
  };
  auto list = AssembleBatch({"img", "raw"}, make(), 0, BatchOptions{});
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->columns[0].is_list());
  ASSERT_EQ(list->columns[1].list.size(), 2u);
  EXPECT_EQ(list->columns[1].list[1].size_bytes(), 3u);

  BatchOptions pad;
  pad.ragged["img"] = {RaggedMode::kPad, -1};
  pad.ragged["raw"] = {RaggedMode::kPad, 0};
  auto padded = AssembleBatch({"img", "raw"}, make(), 0, pad);
  ASSERT_TRUE(padded.ok()) << padded.status().ToString();
  const Tensor& img = padded->columns[0].data;
  EXPECT_EQ(img.shape(), (std::vector<int64_t>{2, 2, 3}));
  const float* f = img.data_as<float>();
  std::vector<float> want = {1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, -1};
  EXPECT_EQ(std::vector<float>(f, f + 12), want);
  EXPECT_EQ(padded->columns[0].row_shapes[1], (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(padded->columns[1].data.shape(), (std::vector<int64_t>{2, 3}));

  // SplitBatch undoes the padding.
  auto rows = SplitBatch(std::move(padded).value());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].columns[0].shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(rows[1].columns[0].data_as<float>()[1], 8.0f);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(rows[1].columns[1].data()), 3), "cde");
  EXPECT_EQ(rows[1].position, 10u);

  BatchOptions err;
  err.ragged["img"] = {RaggedMode::kError, 0};
  auto e = AssembleBatch({"img", "raw"}, make(), 0, err);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("img"), std::string::npos);
}

TEST(BatchTest, OptionsJsonRoundTrip) {
  BatchOptions o;
  o.batch_size = 16;
  o.drop_remainder = true;
  o.ragged["a"] = {RaggedMode::kPad, 3.5};
  o.ragged["b"] = {RaggedMode::kError, 0};
  auto p = BatchOptions::FromJson(o.ToJson());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ToJson(), o.ToJson());
}

}  // namespace
}  // namespace mindrecord
