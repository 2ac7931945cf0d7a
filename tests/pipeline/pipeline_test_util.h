// Helpers for the runtime tests: small datasets written with ShardWriter,
// test-only ops, and batch digests.
#pragma once
#include <chrono>
#include <mutex>
#include <thread>
#include <set>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/op_registry.h"
#include "pipeline/pipeline.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord::testing {

// "ROW-000042" followed by filler: unique per row, length varies with k.
inline std::string RowData(uint64_t k) {
  char head[16];
  std::snprintf(head, sizeof(head), "ROW-%06llu", static_cast<unsigned long long>(k));
  return std::string(head) + std::string(10 + (k * 37) % 190, static_cast<char>('a' + k % 26));
}

// Rows k = first..first+rows-1: id = k, label = k % classes, data =
// RowData(k), vec = float32[4]; written to `shards` shards with small pages.
inline std::string WriteDataset(const std::string& name, uint64_t rows, uint32_t shards, uint64_t classes = 7,
                                uint64_t first = 0) {
  const std::string dir = testing::ProcessTempDir() + "/pipe";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  auto schema = Schema::FromUserJson(nlohmann::json::parse(
      R"({"id": {"type": "int64"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
          "vec": {"type": "float32", "shape": [4]}})"));
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  WriterOptions wo;
  wo.shard_count = shards;
  wo.header_size = kMinHeaderSize;
  wo.page_size = kMinPageSize;
  wo.overwrite = true;
  wo.index_fields = std::vector<std::string>{"id", "label"};
  auto w = ShardWriter::Create(path, *schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::vector<Row> batch;
  for (uint64_t k = first; k < first + rows; ++k) {
    const float f = static_cast<float>(k);
    batch.push_back(Row{{"id", Value::Int(static_cast<int64_t>(k))},
                        {"label", Value::Int(static_cast<int64_t>(k % classes))},
                        {"data", Value::Bytes(RowData(k))},
                        {"vec", Value::ArrayOf<float>(DataType::kFloat32, {f, f + 0.25f, f + 0.5f, f + 0.75f})}});
    if (batch.size() == 64 || k + 1 == first + rows) {
      EXPECT_TRUE((*w)->WriteRows(batch).ok());
      batch.clear();
    }
  }
  EXPECT_TRUE((*w)->Commit().ok());
  return (*w)->shard_paths()[0];
}

// Overwrites the blob length prefix of the row whose data is RowData(k), so
// reading that row fails with Corruption. Returns false if not found.
inline bool CorruptRow(const std::vector<std::string>& shard_paths, uint64_t k) {
  const std::string marker = RowData(k).substr(0, 10);
  for (const auto& p : shard_paths) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t m = bytes.find(marker);
    if (m == std::string::npos) continue;
    // Blob part: uint64 LE length, then (two blob fields) uint64 BE length of "data", then the bytes.
    const uint64_t bad = 0x7fffffffULL;
    f.seekp(static_cast<std::streamoff>(m - 16));
    f.write(reinterpret_cast<const char*>(&bad), 8);
    return f.good();
  }
  return false;
}

// FNV-1a over everything a batch carries.
inline void HashBytes(uint64_t* h, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) *h = (*h ^ b[i]) * 1099511628211ULL;
}
inline uint64_t BatchDigest(const Batch& b) {
  uint64_t h = 1469598103934665603ULL;
  HashBytes(&h, b.row_ids.data(), b.row_ids.size() * 8);
  for (const auto& c : b.columns) {
    if (!c.is_list()) {
      HashBytes(&h, c.data.data(), c.data.size_bytes());
      HashBytes(&h, c.data.shape().data(), c.data.shape().size() * 8);
    } else {
      for (const auto& t : c.list) HashBytes(&h, t.data(), t.size_bytes());
    }
  }
  return h;
}

// Test op "TestJitter": float32 tensor + a per-row random offset in [0, 1).
class JitterOp : public TensorOp {
 public:
  std::string name() const override { return "TestJitter"; }
  nlohmann::json ToJson() const override { return {{"op", "TestJitter"}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64& rng) const override {
    if (in.type() != TensorType::kFloat32) return Status::InvalidArgument("TestJitter wants float32");
    const float add = static_cast<float>(rng() % 1000) / 1000.0f;
    float* p = in.mutable_data_as<float>();
    for (int64_t i = 0; i < in.num_elements(); ++i) p[i] += add;
    return in;
  }
};

// Test op "TestFailOn": fails on an int64 scalar equal to "value".
class FailOnOp : public TensorOp {
 public:
  explicit FailOnOp(int64_t v) : v_(v) {}
  std::string name() const override { return "TestFailOn"; }
  nlohmann::json ToJson() const override { return {{"op", "TestFailOn"}, {"value", v_}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    if (in.type() == TensorType::kInt64 && *in.data_as<int64_t>() == v_) {
      return Status::Corruption("TestFailOn hit " + std::to_string(v_));
    }
    return in;
  }

 private:
  int64_t v_;
};

// Test op "TestThrowOn": throws on an int64 scalar equal to "value", as a C++
// user's op might.
class ThrowOnOp : public TensorOp {
 public:
  explicit ThrowOnOp(int64_t v) : v_(v) {}
  std::string name() const override { return "TestThrowOn"; }
  nlohmann::json ToJson() const override { return {{"op", "TestThrowOn"}, {"value", v_}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    if (in.type() == TensorType::kInt64 && *in.data_as<int64_t>() == v_) {
      throw std::runtime_error("TestThrowOn hit " + std::to_string(v_));
    }
    return in;
  }

 private:
  int64_t v_;
};

// Test op "TestCount": counts rows transformed (for memory-bound checks).
inline std::atomic<uint64_t> g_transformed{0};
class CountOp : public TensorOp {
 public:
  std::string name() const override { return "TestCount"; }
  nlohmann::json ToJson() const override { return {{"op", "TestCount"}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    g_transformed++;
    return in;
  }
};

// Test op "TestDouble": float32 x -> float64 2x; written into the row's
// place in the batch when the runtime offers one (counted).
inline std::atomic<uint64_t> g_slot_writes{0};
class DoubleOp : public TensorOp {
 public:
  std::string name() const override { return "TestDouble"; }
  nlohmann::json ToJson() const override { return {{"op", "TestDouble"}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    Tensor out = Tensor::Make(TensorType::kFloat64, in.shape());
    Fill(in, out.mutable_data_as<double>());
    return out;
  }
  Result<Tensor> ApplyInto(Tensor in, std::mt19937_64& rng, const OutputSlot& slot) const override {
    if (slot.view.type() != TensorType::kFloat64 || slot.view.shape() != in.shape()) return Apply(in, rng);
    Fill(in, reinterpret_cast<double*>(slot.data));
    g_slot_writes++;
    return slot.view;
  }

 private:
  static void Fill(const Tensor& in, double* out) {
    for (int64_t i = 0; i < in.num_elements(); ++i) out[i] = 2.0 * in.data_as<float>()[i];
  }
};

// Test op "TestSlowTag": sleeps `ms` per row and records which threads ran it.
inline std::mutex g_tag_mu;
inline std::set<std::thread::id> g_tag_threads;
class SlowTagOp : public TensorOp {
 public:
  explicit SlowTagOp(int ms) : ms_(ms) {}
  std::string name() const override { return "TestSlowTag"; }
  nlohmann::json ToJson() const override { return {{"op", "TestSlowTag"}, {"ms", ms_}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    std::lock_guard<std::mutex> lock(g_tag_mu);
    g_tag_threads.insert(std::this_thread::get_id());
    return in;
  }

 private:
  int ms_;
};

inline void RegisterTestOps() {
  RegisterOp("TestJitter", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new JitterOp());
  });
  RegisterOp("TestFailOn", [](const nlohmann::json& j) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new FailOnOp(j.value("value", int64_t{-1})));
  });
  RegisterOp("TestThrowOn", [](const nlohmann::json& j) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new ThrowOnOp(j.value("value", int64_t{-1})));
  });
  RegisterOp("TestCount", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new CountOp());
  });
  RegisterOp("TestDouble", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new DoubleOp());
  });
  RegisterOp("TestSlowTag", [](const nlohmann::json& j) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new SlowTagOp(j.value("ms", 1)));
  });
}

// Runs a pipeline to the end (or `max_batches`), returning the batches.
inline std::vector<Batch> Drain(Pipeline* p, size_t max_batches = SIZE_MAX, Status* error = nullptr) {
  std::vector<Batch> out;
  while (out.size() < max_batches) {
    Batch b;
    auto r = p->Next(&b);
    if (!r.ok()) {
      if (error) *error = r.status();
      else ADD_FAILURE() << r.status().ToString();
      break;
    }
    if (!*r) break;
    out.push_back(std::move(b));
  }
  return out;
}

inline std::vector<uint64_t> RowIds(const std::vector<Batch>& batches) {
  std::vector<uint64_t> ids;
  for (const auto& b : batches) ids.insert(ids.end(), b.row_ids.begin(), b.row_ids.end());
  return ids;
}

}  // namespace mindrecord::testing
