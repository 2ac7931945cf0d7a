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

// Rows shorter in their first dim only are copied whole and their slot's
// rest filled; rows short in a later dim are placed in a filled slot.
TEST(BatchTest, PadFillsWhatEachRowLacks) {
  std::vector<RowTensors> rows;
  rows.push_back(Row2(0, Floats({1, 2, 3}, {1, 3}), Tensor::FromString(TensorType::kBytes, "ab")));
  rows.push_back(Row2(1, Floats({4, 5, 6, 7, 8, 9}, {2, 3}), Tensor::FromString(TensorType::kBytes, "")));
  rows.push_back(Row2(2, Floats({10, 11}, {2, 1}), Tensor::FromString(TensorType::kBytes, "cdef")));
  BatchOptions pad;
  pad.ragged["img"] = {RaggedMode::kPad, 9};
  pad.ragged["raw"] = {RaggedMode::kPad, 7, {5}};
  auto b = AssembleBatch({"img", "raw"}, std::move(rows), 0, pad);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const Tensor& img = b->columns[0].data;
  ASSERT_EQ(img.shape(), (std::vector<int64_t>{3, 2, 3}));
  const float* f = img.data_as<float>();
  EXPECT_EQ(std::vector<float>(f, f + 18),
            (std::vector<float>{1, 2, 3, 9, 9, 9, 4, 5, 6, 7, 8, 9, 10, 9, 9, 11, 9, 9}));
  const Tensor& raw = b->columns[1].data;
  ASSERT_EQ(raw.shape(), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(raw.data()), 15), "ab\7\7\7\7\7\7\7\7cdef\7");
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


// Rows whose "img" column turns ragged at row `ragged_at` (never: -1).
std::vector<RowTensors> BuilderRows(int n, int ragged_at) {
  std::vector<RowTensors> rows;
  for (int i = 0; i < n; ++i) {
    const int64_t w = i == ragged_at ? 3 : 2;
    std::vector<float> v;
    for (int64_t k = 0; k < 2 * w; ++k) v.push_back(static_cast<float>(i * 10 + k));
    rows.push_back(Row2(static_cast<uint64_t>(i), Floats(v, {2, w}),
                        Tensor::FromValue(Value::Int(i * 7), DataType::kInt64)));
  }
  return rows;
}

void ExpectSameBatch(const Batch& a, const Batch& b) {
  EXPECT_EQ(a.epoch, b.epoch);
  EXPECT_EQ(a.row_ids, b.row_ids);
  EXPECT_EQ(a.positions, b.positions);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  auto same = [](const Tensor& x, const Tensor& y) {
    return x.type() == y.type() && x.shape() == y.shape() && x.size_bytes() == y.size_bytes() &&
           (x.size_bytes() == 0 || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
  };
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const BatchColumn &x = a.columns[c], &y = b.columns[c];
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.is_list(), y.is_list()) << x.name;
    EXPECT_EQ(x.row_shapes, y.row_shapes);
    if (!x.is_list()) {
      EXPECT_TRUE(same(x.data, y.data)) << x.name;
    }
    ASSERT_EQ(x.list.size(), y.list.size());
    for (size_t i = 0; i < x.list.size(); ++i) EXPECT_TRUE(same(x.list[i], y.list[i])) << x.name << " row " << i;
  }
}

TEST(BatchTest, BuilderGivesWhatAssembleBatchGives) {
  const std::vector<std::string> names = {"img", "label"};
  const BatchAllocator no_alloc;
  BatchOptions pad;
  pad.ragged["img"] = {RaggedMode::kPad, -1};
  for (const BatchOptions& options : {BatchOptions{}, pad}) {
    for (int ragged_at : {-1, 0, 1, 3}) {
      auto want = AssembleBatch(names, BuilderRows(4, ragged_at), 2, options);
      ASSERT_TRUE(want.ok());
      BatchBuilder builder(names, 4, 2, options, no_alloc);
      for (auto& r : BuilderRows(4, ragged_at)) ASSERT_TRUE(builder.Add(std::move(r)).ok());
      EXPECT_EQ(builder.streamed(0), ragged_at < 0) << ragged_at;
      EXPECT_TRUE(builder.streamed(1));
      auto got = std::move(builder).Finish();
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSameBatch(*got, *want);
    }
  }
  // A column not streamed from the start.
  auto want = AssembleBatch(names, BuilderRows(3, -1), 0, BatchOptions{});
  const BatchOptions defaults;
  BatchBuilder builder(names, 3, 0, defaults, no_alloc, {false, true});
  for (auto& r : BuilderRows(3, -1)) ASSERT_TRUE(builder.Add(std::move(r)).ok());
  EXPECT_FALSE(builder.streamed(0));
  auto got = std::move(builder).Finish();
  ASSERT_TRUE(got.ok());
  ExpectSameBatch(*got, *want);
}

TEST(BatchTest, BuilderUsesTheAllocatorAndGivesRowsBack) {
  const std::vector<std::string> names = {"img", "label"};
  int calls = 0;
  BatchAllocator alloc = [&](TensorType type, const std::vector<int64_t>& shape) -> Result<Tensor> {
    ++calls;
    return Tensor::Make(type, shape);
  };
  const BatchOptions defaults;
  BatchBuilder builder(names, 3, 0, defaults, alloc);
  for (auto& r : BuilderRows(2, -1)) ASSERT_TRUE(builder.Add(std::move(r)).ok());
  EXPECT_EQ(calls, 2);  // one buffer per column, made at the first row
  EXPECT_FALSE(BatchBuilder(builder).Finish().ok());  // 2 rows of 3 promised
  std::vector<RowTensors> rows = std::move(builder).TakeRows();
  const std::vector<RowTensors> want = BuilderRows(2, -1);
  ASSERT_EQ(rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rows[i].row_id, want[i].row_id);
    ASSERT_EQ(rows[i].columns.size(), 2u);
    for (size_t c = 0; c < 2; ++c) {
      const Tensor &x = rows[i].columns[c], &y = want[i].columns[c];
      ASSERT_EQ(x.shape(), y.shape());
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size_bytes()), 0);
    }
  }
  // An allocator error surfaces from Finish, as from AssembleBatch.
  BatchAllocator failing = [](TensorType, const std::vector<int64_t>&) -> Result<Tensor> {
    return Status::IOError("no shared memory");
  };
  BatchBuilder b2(names, 1, 0, defaults, failing);
  ASSERT_TRUE(b2.Add(std::move(BuilderRows(1, -1)[0])).ok());
  auto r = std::move(b2).Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("no shared memory"), std::string::npos);
}

TEST(BatchTest, BuilderKeepsViewsOfRowsAsViews) {
  // Rows of bytes that are views of someone else's buffer (a mapped shard).
  static const uint8_t kShard[] = "abcdefghijklmnopqrstuvwxyz";
  auto owner = std::make_shared<int>(0);
  auto view = [&](size_t at, int64_t n) { return Tensor::View(TensorType::kBytes, {n}, owner, kShard + at); };
  const std::vector<std::string> names = {"data"};
  const BatchOptions defaults;
  const BatchAllocator no_alloc;
  // Of different lengths: a list of the views themselves, the first row included
  // (it was copied into the batch buffer before the column turned out ragged).
  BatchBuilder ragged(names, 3, 0, defaults, no_alloc);
  for (auto [at, n] : {std::pair<size_t, int64_t>{0, 3}, {5, 4}, {10, 2}}) {
    RowTensors r;
    r.columns.push_back(view(at, n));
    ASSERT_TRUE(ragged.Add(std::move(r)).ok());
  }
  auto b = std::move(ragged).Finish();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE(b->columns[0].is_list());
  ASSERT_EQ(b->columns[0].list.size(), 3u);
  EXPECT_EQ(b->columns[0].list[0].data(), kShard);
  EXPECT_EQ(b->columns[0].list[1].data(), kShard + 5);
  EXPECT_EQ(b->columns[0].list[2].data(), kShard + 10);
  for (const Tensor& t : b->columns[0].list) EXPECT_TRUE(t.read_only() && t.SameOwner(view(0, 1)));
  // A batch of one view (unbatched rows) is that view, shaped [1, n].
  BatchBuilder one(names, 1, 0, defaults, no_alloc);
  RowTensors r;
  r.columns.push_back(view(7, 5));
  ASSERT_TRUE(one.Add(std::move(r)).ok());
  b = std::move(one).Finish();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->columns[0].data.data(), kShard + 7);
  EXPECT_EQ(b->columns[0].data.shape(), Shape({1, 5}));
  EXPECT_TRUE(b->columns[0].data.read_only());
  // Rows of one length are still stacked into a new writable buffer.
  BatchBuilder same(names, 2, 0, defaults, no_alloc);
  for (size_t at : {0, 4}) {
    RowTensors row;
    row.columns.push_back(view(at, 4));
    ASSERT_TRUE(same.Add(std::move(row)).ok());
  }
  b = std::move(same).Finish();
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->columns[0].data.read_only());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b->columns[0].data.data()), 8), "abcdefgh");
}

TEST(BatchTest, BuilderCopiesViewsIntoOneBufferTheBatchOwns) {
  static const uint8_t kShard[] = "abcdefghijklmnopqrstuvwxyz";
  auto owner = std::make_shared<int>(0);
  auto view = [&](size_t at, int64_t n) { return Tensor::View(TensorType::kBytes, {n}, owner, kShard + at); };
  const std::vector<std::string> names = {"data", "ids"};
  const BatchOptions defaults;
  const BatchAllocator no_alloc;
  // Ragged views and a ragged int32 column whose second row is not a view
  // (e.g. a decompressed row): the views are copied one after another into
  // one buffer, the int32 row aligned to 4 bytes; the other row is kept.
  static const int32_t kInts[] = {7, 8, 9};
  Tensor own = Tensor::Make(TensorType::kInt32, {1});
  *own.mutable_data_as<int32_t>() = 42;
  BatchBuilder ragged(names, 3, 0, defaults, no_alloc, {false, false});
  ragged.CopyViews();
  const std::vector<std::pair<size_t, int64_t>> at = {{0, 3}, {5, 4}, {10, 1}};
  for (size_t i = 0; i < at.size(); ++i) {
    RowTensors r;
    r.columns.push_back(view(at[i].first, at[i].second));
    r.columns.push_back(i == 1 ? own
                               : Tensor::View(TensorType::kInt32, {static_cast<int64_t>(i + 1)}, owner,
                                              reinterpret_cast<const uint8_t*>(kInts)));
    ASSERT_TRUE(ragged.Add(std::move(r)).ok());
  }
  auto b = std::move(ragged).Finish();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const auto& data = b->columns[0].list;
  ASSERT_EQ(data.size(), 3u);
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_FALSE(data[i].read_only());
    EXPECT_FALSE(data[i].SameOwner(view(0, 1)));
    EXPECT_TRUE(data[i].SameOwner(data[0]));
    EXPECT_EQ(data[i].shape(), Shape({at[i].second}));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(data[i].data()), data[i].size_bytes()),
              std::string(reinterpret_cast<const char*>(kShard) + at[i].first, at[i].second));
  }
  EXPECT_EQ(data[1].data(), data[0].data() + 3);  // one after another
  EXPECT_EQ(data[2].data(), data[1].data() + 4);
  const auto& ids = b->columns[1].list;
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_TRUE(ids[1].SameOwner(own));
  EXPECT_EQ(ids[0].data_as<int32_t>()[0], 7);
  EXPECT_EQ(ids[2].shape(), Shape({3}));
  EXPECT_EQ(ids[2].data_as<int32_t>()[2], 9);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ids[2].data()) % 4, 0u);
  EXPECT_FALSE(ids[0].read_only() || ids[2].read_only());
  EXPECT_TRUE(ids[2].SameOwner(ids[0]));
  // A batch of one view is copied too.
  const std::vector<std::string> one_name = {"data"};
  BatchBuilder one(one_name, 1, 0, defaults, no_alloc);
  one.CopyViews();
  RowTensors r;
  r.columns.push_back(view(7, 5));
  ASSERT_TRUE(one.Add(std::move(r)).ok());
  b = std::move(one).Finish();
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->columns[0].data.read_only());
  EXPECT_NE(b->columns[0].data.data(), kShard + 7);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b->columns[0].data.data()), 5), "hijkl");
}

}  // namespace
}  // namespace mindrecord
