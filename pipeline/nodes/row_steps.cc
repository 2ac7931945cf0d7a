#include "pipeline/nodes/row_steps.h"

#include <algorithm>
#include <optional>
#include <random>

#include "pipeline/interpreter_lock.h"
#include "pipeline/op_registry.h"
#include "pipeline/row_vectors.h"
#include "pipeline/sampler.h"

namespace mindrecord {

namespace {

constexpr uint64_t kMapSalt = 0x6d6170;  // "map": map and filter nodes' op seeds

std::string Quoted(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
  return s;
}

Result<std::vector<std::unique_ptr<TensorOp>>> BuildOps(const nlohmann::json& specs) {
  std::vector<nlohmann::json> list(specs.begin(), specs.end());
  return BuildColumnOps(list);
}

// Ops are handed a default-constructed engine unless they are random (then
// it is seeded for the op). It is copied from one made once per thread:
// making one runs its 312-step seeding (~3k instructions, ~1 us: a tenth of a
// per-row Python map's time, more than reading a 1 KiB row).
const std::mt19937_64& DefaultEngine() {
  static thread_local const std::mt19937_64 engine;
  return engine;
}

// The legacy per-column op lists: exactly what a flat plan's "ops" did.
class ColumnOpsStep : public RowStep {
 public:
  ColumnOpsStep(std::vector<std::string> names, std::vector<std::vector<std::unique_ptr<TensorOp>>> ops, uint64_t seed)
      : names_(std::move(names)), ops_(std::move(ops)), seed_(seed) {}

  Status Apply(uint64_t epoch, uint64_t position, std::vector<Tensor>* cols, bool*,
               BatchBuilder* builder) const override {
    // Made at the first op (rows without ops never use it).
    std::optional<std::mt19937_64> rng;
    for (size_t c = 0; c < ops_.size(); ++c) {
      Tensor& t = (*cols)[c];
      for (size_t k = 0; k < ops_[c].size(); ++k) {
        const TensorOp& op = *ops_[c][k];
        if (!op.uses_interpreter()) ReleaseInterpreterLock();
        if (!rng) rng.emplace(DefaultEngine());
        if (op.is_random()) rng->seed(MixSeed({seed_, epoch, position, c, k}));
        // The last op may write straight into the row's place in the batch.
        const OutputSlot* slot = builder && k + 1 == ops_[c].size() ? builder->Slot(c) : nullptr;
        if (Status st = CheckStringInputs(op, &t, 1); !st.ok()) return st.WithContext("column '" + names_[c] + "'");
        auto r = slot ? op.ApplyInto(std::move(t), *rng, *slot) : op.Apply(std::move(t), *rng);
        if (!r.ok()) return r.status().WithContext("column '" + names_[c] + "', op " + op.name());
        t = std::move(r).value();
      }
    }
    return Status::OK();
  }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<std::unique_ptr<TensorOp>>> ops_;  // per column
  uint64_t seed_;
};

class MapStep : public RowStep {
 public:
  MapStep(std::vector<std::unique_ptr<TensorOp>> ops, std::vector<size_t> in_idx, size_t outputs,
          std::vector<size_t> kept, uint64_t seed, uint64_t node, std::string label)
      : ops_(std::move(ops)), in_idx_(std::move(in_idx)), outputs_(outputs), kept_(std::move(kept)), seed_(seed),
        node_(node), label_(std::move(label)) {}

  Status Apply(uint64_t epoch, uint64_t position, std::vector<Tensor>* cols, bool*,
               BatchBuilder* builder) const override {
    std::vector<Tensor> args;
    args.reserve(in_idx_.size());
    for (size_t i : in_idx_) args.push_back(std::move((*cols)[i]));
    const bool in_place = kept_.empty() && in_idx_.size() == outputs_;
    const OutputSlot* slot = builder && in_place && outputs_ == 1 ? builder->Slot(in_idx_[0]) : nullptr;
    MR_RETURN_IF_ERROR(ApplyOps(
        ops_, &args, [&](size_t k) { return MixSeed({seed_, epoch, position, kMapSalt, node_, k}); }, slot, label_));
    if (args.size() != outputs_) {
      return Status::InvalidArgument(label_ + ": the last op gave " + std::to_string(args.size()) +
                                     " column(s), output_columns names " + std::to_string(outputs_));
    }
    if (in_place) {
      for (size_t i = 0; i < outputs_; ++i) (*cols)[in_idx_[i]] = std::move(args[i]);
      return Status::OK();
    }
    for (size_t j : kept_) args.push_back(std::move((*cols)[j]));
    *cols = std::move(args);
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<TensorOp>> ops_;
  std::vector<size_t> in_idx_;
  size_t outputs_;
  std::vector<size_t> kept_;
  uint64_t seed_, node_;
  std::string label_;
};

class ProjectStep : public RowStep {
 public:
  explicit ProjectStep(std::vector<size_t> idx) : idx_(std::move(idx)) {}
  Status Apply(uint64_t, uint64_t, std::vector<Tensor>* cols, bool*, BatchBuilder*) const override {
    std::vector<Tensor> out = TakeRowVector();
    out.reserve(idx_.size());
    for (size_t i : idx_) out.push_back((*cols)[i]);
    std::swap(*cols, out);
    GiveRowVector(std::move(out));
    return Status::OK();
  }

 private:
  std::vector<size_t> idx_;
};

Result<double> ScalarValue(const Tensor& t) {
  if (t.num_elements() != 1) return Status::InvalidArgument("it returned " + t.DebugString() + ", not one value");
  switch (t.type()) {
    case TensorType::kBool: return *t.data_as<uint8_t>() != 0 ? 1.0 : 0.0;
    case TensorType::kUInt8: return static_cast<double>(*t.data_as<uint8_t>());
    case TensorType::kInt8: return static_cast<double>(*t.data_as<int8_t>());
    case TensorType::kInt16: return static_cast<double>(*t.data_as<int16_t>());
    case TensorType::kInt32: return static_cast<double>(*t.data_as<int32_t>());
    case TensorType::kInt64: return static_cast<double>(*t.data_as<int64_t>());
    case TensorType::kFloat32: return static_cast<double>(*t.data_as<float>());
    case TensorType::kFloat64: return *t.data_as<double>();
    default: return Status::InvalidArgument("it returned " + t.DebugString() + ", not a bool or a number");
  }
}

class FilterStep : public RowStep {
 public:
  FilterStep(std::vector<std::unique_ptr<TensorOp>> predicate, std::vector<size_t> in_idx, uint64_t seed,
             uint64_t node, std::string label)
      : predicate_(std::move(predicate)), in_idx_(std::move(in_idx)), seed_(seed), node_(node),
        label_(std::move(label)) {}

  Status Apply(uint64_t epoch, uint64_t position, std::vector<Tensor>* cols, bool* keep,
               BatchBuilder*) const override {
    std::vector<Tensor> args;
    for (size_t i : in_idx_) args.push_back((*cols)[i]);  // shares the buffers; the row stays as it is
    MR_RETURN_IF_ERROR(ApplyOps(
        predicate_, &args, [&](size_t k) { return MixSeed({seed_, epoch, position, kMapSalt, node_, k}); }, nullptr,
        label_));
    if (args.size() != 1) {
      return Status::InvalidArgument(label_ + ": the predicate gave " + std::to_string(args.size()) +
                                     " values, not one bool");
    }
    auto v = ScalarValue(args[0]);
    if (!v.ok()) return v.status().WithContext(label_ + ": the predicate");
    *keep = *v != 0;
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<TensorOp>> predicate_;
  std::vector<size_t> in_idx_;
  uint64_t seed_, node_;
  std::string label_;
};

// Checks what can be known before running: each op's input count against
// what the previous op gives, and the last op's against output_columns.
Status CheckCounts(const std::vector<std::unique_ptr<TensorOp>>& ops, size_t inputs, size_t outputs,
                   const std::string& label) {
  int64_t cur = static_cast<int64_t>(inputs);  // -1: known only when it runs
  for (const auto& op : ops) {
    const int ni = op->num_inputs(), no = op->num_outputs();
    if (cur >= 0 && ni >= 0 && ni != cur) {
      return Status::InvalidArgument(label + ": op " + op->name() + " takes " + std::to_string(ni) +
                                     " column(s), it is given " + std::to_string(cur));
    }
    cur = no;
  }
  if (cur >= 0 && static_cast<size_t>(cur) != outputs) {
    return Status::InvalidArgument(label + ": the last op gives " + std::to_string(cur) +
                                   " column(s), output_columns names " + std::to_string(outputs));
  }
  return Status::OK();
}

}  // namespace

Status ApplyOps(const std::vector<std::unique_ptr<TensorOp>>& ops, std::vector<Tensor>* args,
                const std::function<uint64_t(size_t k)>& rng_seed, const OutputSlot* slot, const std::string& label) {
  std::optional<std::mt19937_64> rng;
  for (size_t k = 0; k < ops.size(); ++k) {
    const TensorOp& op = *ops[k];
    if (!op.uses_interpreter()) ReleaseInterpreterLock();
    if (!rng) rng.emplace(DefaultEngine());
    if (op.is_random()) rng->seed(rng_seed(k));
    const int ni = op.num_inputs(), no = op.num_outputs();
    if (ni == 1 && no == 1) {
      if (args->size() != 1) {
        return Status::InvalidArgument(label + ": op " + op.name() + " takes 1 column, it was given " +
                                       std::to_string(args->size()));
      }
      const OutputSlot* s = k + 1 == ops.size() ? slot : nullptr;
      if (Status st = CheckStringInputs(op, args->data(), 1); !st.ok()) return st.WithContext(label);
      auto r = s ? op.ApplyInto(std::move((*args)[0]), *rng, *s) : op.Apply(std::move((*args)[0]), *rng);
      if (!r.ok()) return r.status().WithContext(label + ", op " + op.name());
      (*args)[0] = std::move(r).value();
      continue;
    }
    if (ni >= 0 && static_cast<size_t>(ni) != args->size()) {
      return Status::InvalidArgument(label + ": op " + op.name() + " takes " + std::to_string(ni) +
                                     " column(s), it was given " + std::to_string(args->size()));
    }
    if (Status st = CheckStringInputs(op, args->data(), args->size()); !st.ok()) return st.WithContext(label);
    auto r = op.ApplyColumns(std::move(*args), *rng);
    if (!r.ok()) return r.status().WithContext(label + ", op " + op.name());
    if (no >= 0 && r->size() != static_cast<size_t>(no)) {
      // A Python callable can return another count than the map names.
      return Status::InvalidArgument(label + ": op " + op.name() + " gave " + std::to_string(r->size()) +
                                     " column(s), it declares " + std::to_string(no) +
                                     (k + 1 == ops.size() ? " (the map's output_columns)" : ""));
    }
    *args = std::move(r).value();
  }
  return Status::OK();
}

std::vector<std::string> MapColumnOrder(const std::vector<std::string>& input, const std::vector<size_t>& in_idx,
                                        const std::vector<std::string>& out_names, std::vector<size_t>* kept) {
  kept->clear();
  if (in_idx.size() == out_names.size()) {
    std::vector<std::string> out = input;
    for (size_t i = 0; i < in_idx.size(); ++i) out[in_idx[i]] = out_names[i];
    return out;
  }
  std::vector<std::string> out = out_names;
  for (size_t j = 0; j < input.size(); ++j) {
    if (std::find(in_idx.begin(), in_idx.end(), j) == in_idx.end()) {
      kept->push_back(j);
      out.push_back(input[j]);
    }
  }
  return out;
}

Result<std::vector<size_t>> ColumnIndices(const std::vector<std::string>& columns,
                                          const std::vector<std::string>& names, const std::string& what) {
  std::vector<size_t> idx;
  for (const auto& n : names) {
    auto it = std::find(columns.begin(), columns.end(), n);
    if (it == columns.end()) {
      return Status::InvalidArgument(what + ": column '" + n + "' is not a column of its input (" + Quoted(columns) +
                                     ")");
    }
    idx.push_back(static_cast<size_t>(it - columns.begin()));
  }
  return idx;
}

Result<std::unique_ptr<RowStep>> MakeColumnOpsStep(const std::vector<std::string>& columns,
                                                   const nlohmann::json& ops, uint64_t seed) {
  std::vector<std::vector<std::unique_ptr<TensorOp>>> per(columns.size());
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    auto c = std::find(columns.begin(), columns.end(), it.key());
    if (c == columns.end()) return Status::InvalidArgument("plan: ops given for column '" + it.key() + "', which is not read");
    auto built = BuildOps(it.value());
    if (!built.ok()) return built.status().WithContext("plan: ops of column '" + it.key() + "'");
    for (const auto& op : *built) {
      // Ops of any column count (-1) take one here, as a map of one column.
      if (op->num_inputs() > 1) {
        return Status::InvalidArgument("plan: ops of column '" + it.key() + "': op " + op->name() + " takes " +
                                       std::to_string(op->num_inputs()) +
                                       " columns; per-column ops take one (use a map node)");
      }
      if (op->num_outputs() > 1) {
        return Status::InvalidArgument("plan: ops of column '" + it.key() + "': op " + op->name() + " gives " +
                                       std::to_string(op->num_outputs()) +
                                       " columns; name them with the map's output_columns (a map node)");
      }
    }
    per[c - columns.begin()] = std::move(built).value();
  }
  return std::unique_ptr<RowStep>(new ColumnOpsStep(columns, std::move(per), seed));
}

Result<std::unique_ptr<RowStep>> MakeMapStep(const std::vector<std::string>& input, std::vector<size_t> in_idx,
                                             std::vector<std::string> out_names, const nlohmann::json& operations,
                                             uint64_t seed, uint64_t node, std::string label) {
  auto ops = BuildOps(operations);
  if (!ops.ok()) return ops.status().WithContext(label);
  MR_RETURN_IF_ERROR(CheckCounts(*ops, in_idx.size(), out_names.size(), label));
  std::vector<size_t> kept;
  MapColumnOrder(input, in_idx, out_names, &kept);
  const size_t outputs = out_names.size();
  return std::unique_ptr<RowStep>(
      new MapStep(std::move(ops).value(), std::move(in_idx), outputs, std::move(kept), seed, node, std::move(label)));
}

std::unique_ptr<RowStep> MakeProjectStep(std::vector<size_t> idx) {
  return std::unique_ptr<RowStep>(new ProjectStep(std::move(idx)));
}

Result<std::unique_ptr<RowStep>> MakeFilterStep(std::vector<size_t> in_idx, const nlohmann::json& predicate,
                                                uint64_t seed, uint64_t node, std::string label) {
  auto ops = BuildOps(nlohmann::json::array({predicate}));
  if (!ops.ok()) return ops.status().WithContext(label);
  MR_RETURN_IF_ERROR(CheckCounts(*ops, in_idx.size(), 1, label));
  return std::unique_ptr<RowStep>(new FilterStep(std::move(ops).value(), std::move(in_idx), seed, node, std::move(label)));
}

}  // namespace mindrecord
