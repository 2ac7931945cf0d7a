// Test ops and batch maps for the execution-tree tests: multi-column ops, a
// filter predicate, a per-batch map that records BatchInfo.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pipeline/nodes/batch_steps.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord::testing {

inline int64_t AsInt(const Tensor& t, int64_t i = 0) {
  switch (t.type()) {
    case TensorType::kInt32: return t.data_as<int32_t>()[i];
    case TensorType::kInt64: return t.data_as<int64_t>()[i];
    case TensorType::kUInt8: return t.data_as<uint8_t>()[i];
    default: return -1;
  }
}

// "TestSum": two integer columns in, their sum (int64, same shape) out.
class SumOp : public TensorOp {
 public:
  std::string name() const override { return "TestSum"; }
  nlohmann::json ToJson() const override { return {{"op", "TestSum"}}; }
  int num_inputs() const override { return 2; }
  Result<Tensor> Apply(Tensor, std::mt19937_64&) const override { return Status::Internal("TestSum takes 2"); }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> in, std::mt19937_64&) const override {
    Tensor out = Tensor::Make(TensorType::kInt64, in[0].shape());
    for (int64_t i = 0; i < in[0].num_elements(); ++i) out.mutable_data_as<int64_t>()[i] = AsInt(in[0], i) + AsInt(in[1], i);
    return std::vector<Tensor>{out};
  }
};

// "TestSwap": two columns in, the same two out in the other order.
class SwapOp : public TensorOp {
 public:
  std::string name() const override { return "TestSwap"; }
  nlohmann::json ToJson() const override { return {{"op", "TestSwap"}}; }
  int num_inputs() const override { return 2; }
  int num_outputs() const override { return 2; }
  Result<Tensor> Apply(Tensor, std::mt19937_64&) const override { return Status::Internal("TestSwap takes 2"); }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> in, std::mt19937_64&) const override {
    return std::vector<Tensor>{in[1], in[0]};
  }
};

// "TestDup": one column in, two copies out.
class DupOp : public TensorOp {
 public:
  std::string name() const override { return "TestDup"; }
  nlohmann::json ToJson() const override { return {{"op", "TestDup"}}; }
  int num_outputs() const override { return 2; }
  Result<Tensor> Apply(Tensor, std::mt19937_64&) const override { return Status::Internal("TestDup gives 2"); }
  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> in, std::mt19937_64&) const override {
    return std::vector<Tensor>{in[0], in[0]};
  }
};

// "TestKeepMod": keeps rows whose integer column % mod == rem (uint8 0/1).
class KeepModOp : public TensorOp {
 public:
  KeepModOp(int64_t mod, int64_t rem) : mod_(mod), rem_(rem) {}
  std::string name() const override { return "TestKeepMod"; }
  nlohmann::json ToJson() const override { return {{"op", "TestKeepMod"}, {"mod", mod_}, {"rem", rem_}}; }
  Result<Tensor> Apply(Tensor in, std::mt19937_64&) const override {
    Tensor out = Tensor::Make(TensorType::kUInt8, {});
    *out.mutable_data_as<uint8_t>() = AsInt(in) % mod_ == rem_ ? 1 : 0;
    return out;
  }

 private:
  int64_t mod_, rem_;
};

// "TestKeepRandom": keeps a row with probability 1/2, from its seeded generator.
class KeepRandomOp : public TensorOp {
 public:
  std::string name() const override { return "TestKeepRandom"; }
  nlohmann::json ToJson() const override { return {{"op", "TestKeepRandom"}}; }
  bool is_random() const override { return true; }
  Result<Tensor> Apply(Tensor, std::mt19937_64& rng) const override {
    Tensor out = Tensor::Make(TensorType::kUInt8, {});
    *out.mutable_data_as<uint8_t>() = rng() % 2;
    return out;
  }
};

// Batch map "TestInfo": input column id (int64 rows) -> "id" unchanged and
// "info" = epoch_num * 1000 + batch_num per row; with "batched": true the
// info column comes back as one tensor [rows].
class InfoBatchMap : public BatchMap {
 public:
  explicit InfoBatchMap(bool batched) : batched_(batched) {}
  std::string name() const override { return "TestInfo"; }
  Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>> cols,
                                            const BatchInfo& info) const override {
    std::vector<BatchMapColumn> out(2);
    out[0].rows = cols[0];
    const int64_t v = static_cast<int64_t>(info.epoch_num * 1000 + info.batch_num);
    if (batched_) {
      out[1].batched = Tensor::Make(TensorType::kInt64, {static_cast<int64_t>(cols[0].size())});
      for (size_t i = 0; i < cols[0].size(); ++i) out[1].batched.mutable_data_as<int64_t>()[i] = v;
    } else {
      for (size_t i = 0; i < cols[0].size(); ++i) {
        Tensor t = Tensor::Make(TensorType::kInt64, {});
        *t.mutable_data_as<int64_t>() = v;
        out[1].rows.push_back(t);
      }
    }
    return out;
  }

 private:
  bool batched_;
};

// Batch size map "TestSizes": batch b of epoch e has (b + e) % 3 + "base"
// rows (a batch map of no columns giving one int64).
class SizesBatchMap : public BatchMap {
 public:
  explicit SizesBatchMap(int64_t base) : base_(base) {}
  std::string name() const override { return "TestSizes"; }
  Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>>, const BatchInfo& info) const override {
    std::vector<BatchMapColumn> out(1);
    out[0].batched = Tensor::Make(TensorType::kInt64, {});
    *out[0].batched.mutable_data_as<int64_t>() = static_cast<int64_t>((info.batch_num + info.epoch_num) % 3) + base_;
    return out;
  }

 private:
  int64_t base_;
};

// Length map "TestValue": the integer value of its one input column (int32
// or int64) as the row's length.
class ValueLengthMap : public BatchMap {
 public:
  std::string name() const override { return "TestValue"; }
  Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>> cols, const BatchInfo&) const override {
    const Tensor& t = cols.at(0).at(0);
    std::vector<BatchMapColumn> out(1);
    out[0].batched = Tensor::Make(TensorType::kInt64, {});
    *out[0].batched.mutable_data_as<int64_t>() =
        t.type() == TensorType::kInt32 ? *t.data_as<int32_t>() : *t.data_as<int64_t>();
    return out;
  }
};

inline void RegisterTreeTestOps() {
  RegisterTestOps();
  RegisterOp("TestSum", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new SumOp());
  });
  RegisterOp("TestSwap", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new SwapOp());
  });
  RegisterOp("TestDup", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new DupOp());
  });
  RegisterOp("TestKeepMod", [](const nlohmann::json& j) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new KeepModOp(j.value("mod", int64_t{2}), j.value("rem", int64_t{0})));
  });
  RegisterOp("TestKeepRandom", [](const nlohmann::json&) -> Result<std::unique_ptr<TensorOp>> {
    return std::unique_ptr<TensorOp>(new KeepRandomOp());
  });
  RegisterBatchMap("TestValue", [](const nlohmann::json&) -> Result<std::unique_ptr<BatchMap>> {
    return std::unique_ptr<BatchMap>(new ValueLengthMap());
  });
  RegisterBatchMap("TestSizes", [](const nlohmann::json& j) -> Result<std::unique_ptr<BatchMap>> {
    return std::unique_ptr<BatchMap>(new SizesBatchMap(j.value("base", int64_t{2})));
  });
  RegisterBatchMap("TestInfo", [](const nlohmann::json& j) -> Result<std::unique_ptr<BatchMap>> {
    return std::unique_ptr<BatchMap>(new InfoBatchMap(j.value("batched", false)));
  });
}

// The int64 values of column `name` over all batches, in order.
inline std::vector<int64_t> Ints(const std::vector<Batch>& batches, const std::string& name) {
  std::vector<int64_t> out;
  for (const auto& b : batches) {
    const BatchColumn* c = b.column(name);
    if (c == nullptr) {
      ADD_FAILURE() << "no column " << name;
      return out;
    }
    for (size_t i = 0; i < b.size(); ++i) out.push_back(c->is_list() ? AsInt(c->list[i]) : AsInt(c->data, i));
  }
  return out;
}

inline std::vector<std::string> Names(const Batch& b) {
  std::vector<std::string> n;
  for (const auto& c : b.columns) n.push_back(c.name);
  return n;
}

}  // namespace mindrecord::testing
