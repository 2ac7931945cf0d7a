// Round trips over random schemas and rows: every type, shapes, 0/1/many blob
// fields, many shards, page boundaries, empty values; read back by row id,
// sequentially and with projections, through pread and mmap.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "readers/shard_reader.h"
#include "tests/util/placement.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;

struct Generator {
  std::mt19937_64 rng;
  explicit Generator(uint64_t seed) : rng(seed) {}
  int64_t Int(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }
  std::string Bytes(size_t max) {
    std::string s(static_cast<size_t>(Int(0, static_cast<int64_t>(max))), '\0');
    for (auto& c : s) c = static_cast<char>(Int(0, 255));
    return s;
  }

  Schema RandomSchema() {
    std::vector<Field> fields;
    int n = static_cast<int>(Int(1, 7));
    for (int i = 0; i < n; ++i) {
      Field f;
      f.name = "f" + std::to_string(i);
      f.type = static_cast<DataType>(Int(0, 5));
      if (IsNumericType(f.type) && Int(0, 2) == 0) {
        f.has_shape = true;
        f.shape = Int(0, 1) ? std::vector<int64_t>{-1} : std::vector<int64_t>{2, -1};
      }
      fields.push_back(f);
    }
    return *Schema::Make(fields, "random");
  }

  Value RandomValue(const Field& f) {
    if (f.has_shape) {
      int64_t len = Int(0, 40);
      int64_t rows = f.shape.size() == 2 ? 2 : 1;
      std::vector<int64_t> shape = f.shape.size() == 2 ? std::vector<int64_t>{2, len} : std::vector<int64_t>{len};
      size_t n = static_cast<size_t>(len * rows);
      switch (f.type) {
        case DataType::kInt32: {
          std::vector<int32_t> v(n);
          for (auto& x : v) x = static_cast<int32_t>(Int(0, 3) == 0 ? Int(INT32_MIN, INT32_MAX) : Int(-300, 300));
          return Value::ArrayOf(f.type, v, shape);
        }
        case DataType::kInt64: {
          std::vector<int64_t> v(n);
          for (auto& x : v) x = Int(0, 3) == 0 ? Int(INT64_MIN, INT64_MAX) : Int(-70000, 70000);
          return Value::ArrayOf(f.type, v, shape);
        }
        case DataType::kFloat32: {
          std::vector<float> v(n);
          for (auto& x : v) x = static_cast<float>(Int(-1000000, 1000000)) / 7.0f;
          return Value::ArrayOf(f.type, v, shape);
        }
        default: {
          std::vector<double> v(n);
          for (auto& x : v) x = static_cast<double>(Int(-1000000, 1000000)) / 7.0;
          return Value::ArrayOf(f.type, v, shape);
        }
      }
    }
    switch (f.type) {
      case DataType::kInt32: return Value::Int(Int(INT32_MIN, INT32_MAX));
      case DataType::kInt64: return Value::Int(Int(0, 1) ? Int(INT64_MIN, INT64_MAX) : Int(-5, 5));
      case DataType::kFloat32: return Value::Float(static_cast<float>(Int(-100000, 100000)) / 3.0f);
      case DataType::kFloat64: return Value::Float(Int(0, 1) ? 0.5 : static_cast<double>(Int(-100000, 100000)) / 3.0);
      case DataType::kString: {
        std::string s(static_cast<size_t>(Int(0, 30)), 'a');
        for (auto& c : s) c = static_cast<char>('a' + Int(0, 25));
        return Value::String(s);
      }
      default: return Value::Bytes(Bytes(Int(0, 5) == 0 ? 9000 : 300));
    }
  }

  Row RandomRow(const Schema& s) {
    Row r;
    for (const Field& f : s.fields()) r.Set(f.name, RandomValue(f));
    return r;
  }
};

// Float32 fields come back as the float32 value; arrays keep their shape.
void ExpectRowEq(const Schema& s, const Row& expect, const Row& got, const std::vector<std::string>& only = {}) {
  for (const Field& f : s.fields()) {
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) {
      EXPECT_FALSE(got.Has(f.name)) << f.name << " should not be decoded";
      continue;
    }
    const Value& e = expect.Get(f.name);
    const Value& g = got.Get(f.name);
    if (f.type == DataType::kFloat32 && !f.has_shape) {
      EXPECT_EQ(static_cast<float>(e.as_float()), static_cast<float>(g.as_float())) << f.name;
    } else {
      EXPECT_EQ(e, g) << f.name << ": " << e.DebugString() << " vs " << g.DebugString();
    }
  }
}

class RoundTripTest : public ::testing::TestWithParam<std::tuple<int, uint32_t, const char*>> {};

TEST_P(RoundTripTest, RandomSchemasAndRows) {
  const auto [seed, shards, version] = GetParam();
  Generator gen(static_cast<uint64_t>(seed) * 7919 + shards);
  TempDir dir;
  for (int round = 0; round < 3; ++round) {
    Schema schema = gen.RandomSchema();
    WriterOptions o;
    o.shard_count = shards;
    o.header_size = kMinHeaderSize * 4;
    o.page_size = kMinPageSize;  // small pages: many page and row-group boundaries
    o.format_version = version;
    std::string path = dir.Join("ds" + std::to_string(round) + ".mindrecord");
    auto w = ShardWriter::Create(path, schema, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    std::vector<Row> all;
    std::vector<size_t> sizes;
    int batches = static_cast<int>(gen.Int(1, 5));
    for (int b = 0; b < batches; ++b) {
      std::vector<Row> batch;
      int n = static_cast<int>(gen.Int(0, 60));
      sizes.push_back(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) batch.push_back(gen.RandomRow(schema));
      ASSERT_TRUE((*w)->WriteRows(batch).ok());
      all.insert(all.end(), batch.begin(), batch.end());
    }
    ASSERT_TRUE((*w)->Commit().ok());

    for (IoMode mode : {IoMode::kPread, IoMode::kMmap}) {
      ReaderOptions ro;
      ro.io_mode = mode;
      std::string open_path = (*w)->shard_paths().back();  // any shard finds the others
      auto r = ShardReader::Open(open_path, ro);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ((*r)->num_rows(), all.size());
      ASSERT_EQ((*r)->num_shards(), shards);
      EXPECT_EQ((*r)->version(), version);
      // Each call went in one contiguous block per shard (MindSpore's placement).
      std::vector<const Row*> expect;
      for (size_t k : testing::BlockPlacementOrder(sizes, shards)) expect.push_back(&all[k]);
      for (uint64_t id = 0; id < all.size(); ++id) {
        auto row = (*r)->ReadRow(id);
        ASSERT_TRUE(row.ok()) << row.status().ToString();
        ExpectRowEq(schema, *expect[id], *row);
      }
      uint64_t next = 0;
      ASSERT_TRUE((*r)->Scan(0, all.size(), nullptr, [&](uint64_t id, Row&& row) {
        EXPECT_EQ(id, next++);
        ExpectRowEq(schema, *expect[id], row);
        return Status::OK();
      }).ok());
      EXPECT_EQ(next, all.size());
      // Projection: one field only.
      const std::string& one = schema.fields()[gen.Int(0, schema.fields().size() - 1)].name;
      auto proj = (*r)->MakeProjection({one});
      ASSERT_TRUE(proj.ok());
      for (uint64_t id = 0; id < all.size(); id += 3) {
        auto row = (*r)->ReadRow(id, &*proj);
        ASSERT_TRUE(row.ok());
        ExpectRowEq(schema, *expect[id], *row, {one});
      }
      EXPECT_FALSE((*r)->ReadRow(all.size()).ok());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RoundTripTest,
                         ::testing::Combine(::testing::Values(1, 2, 3), ::testing::Values(1u, 3u, 11u),
                                            ::testing::Values(kVersion3, kVersion2)));

TEST(RoundTripSingle, PageBoundariesAndShiftedRowGroups) {
  // Rows sized so blob pages fill at different points than raw pages, over
  // many small batches: exercises appends to the last blob page and row
  // groups moved whole to a new raw page.
  auto schema = *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"text":{"type":"string"},"b":{"type":"bytes"}})");
  TempDir dir;
  WriterOptions o;
  o.header_size = kMinHeaderSize * 8;
  o.page_size = kMinPageSize;
  auto w = *ShardWriter::Create(dir.Join("p.mindrecord"), schema, o);
  std::vector<Row> all;
  Generator gen(5);
  for (int b = 0; b < 40; ++b) {
    std::vector<Row> batch;
    for (int i = 0; i < 7; ++i) {
      int64_t id = static_cast<int64_t>(all.size() + batch.size());
      batch.push_back(Row{{"id", Value::Int(id)},
                          {"text", Value::String(std::string(static_cast<size_t>(gen.Int(0, 3000)), 't'))},
                          {"b", Value::Bytes(gen.Bytes(id % 5 == 0 ? 0 : 2500))}});
    }
    ASSERT_TRUE(w->WriteRows(batch).ok());
    all.insert(all.end(), batch.begin(), batch.end());
  }
  ASSERT_TRUE(w->Commit().ok());
  auto r = *ShardReader::Open(dir.Join("p.mindrecord"));
  ASSERT_EQ(r->num_rows(), all.size());
  int raw_pages = 0;
  for (const auto& p : r->header(0).pages) raw_pages += !p.is_blob;
  EXPECT_GT(raw_pages, 2);
  for (uint64_t id = 0; id < all.size(); ++id) {
    auto row = r->ReadRow(id);
    ASSERT_TRUE(row.ok()) << id << ": " << row.status().ToString();
    EXPECT_EQ(*row, all[id]) << id;
  }
}

TEST(RoundTripSingle, ConcurrentReadsFromOneReader) {
  auto schema = *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"b":{"type":"bytes"}})");
  TempDir dir;
  WriterOptions o;
  o.shard_count = 4;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  auto w = *ShardWriter::Create(dir.Join("c"), schema, o);
  std::vector<Row> rows;
  for (int i = 0; i < 2000; ++i) rows.push_back(Row{{"id", Value::Int(i)}, {"b", Value::Bytes(std::string(i % 97, char(i)))}});
  ASSERT_TRUE(w->WriteRows(rows).ok());
  ASSERT_TRUE(w->Commit().ok());
  auto r = *ShardReader::Open(dir.Join("c0"));
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int k = 0; k < 3000; ++k) {
        uint64_t id = rng() % r->num_rows();
        auto row = r->ReadRow(id);
        if (!row.ok()) { ++bad; continue; }
        int64_t v = row->Get("id").as_int();
        if (row->Get("b").bytes() != std::string(v % 97, char(v))) ++bad;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace mindrecord
