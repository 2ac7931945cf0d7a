#include "pipeline/nodes/batch_steps.h"

#include <map>
#include <mutex>

#include "pipeline/nodes/row_steps.h"
#include "pipeline/op_registry.h"
#include "pipeline/sampler.h"

namespace mindrecord {

namespace {

constexpr uint64_t kBatchMapSalt = 0x62617463;  // "batc": maps after the batch

std::mutex& BatchMapRegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, BatchMapFactory>& BatchMapRegistry() {
  static auto* r = new std::map<std::string, BatchMapFactory>();
  return *r;
}

class BatchMapStep : public BatchStep {
 public:
  BatchMapStep(std::vector<std::unique_ptr<TensorOp>> ops, std::vector<size_t> in_idx,
               std::vector<std::string> out_names, std::vector<std::string> names, std::vector<size_t> kept,
               uint64_t seed, uint64_t node, std::string label)
      : ops_(std::move(ops)), in_idx_(std::move(in_idx)), out_names_(std::move(out_names)), names_(std::move(names)),
        kept_(std::move(kept)), seed_(seed), node_(node), label_(std::move(label)) {}

  Status Apply(Batch* b) const override {
    std::vector<Tensor> args;
    for (size_t i : in_idx_) {
      BatchColumn& c = b->columns[i];
      if (c.is_list()) {
        return Status::InvalidArgument(label_ + ": column '" + c.name +
                                       "' is a list of rows of different shapes, not one tensor; pad it in the batch "
                                       "(pad_info) to map whole batches");
      }
      args.push_back(std::move(c.data));
    }
    const uint64_t first = b->positions.empty() ? 0 : b->positions[0];
    const uint64_t epoch = b->epoch;
    MR_RETURN_IF_ERROR(ApplyOps(
        ops_, &args, [&](size_t k) { return MixSeed({seed_, epoch, first, kBatchMapSalt, node_, k}); }, nullptr,
        label_));
    if (args.size() != out_names_.size()) {
      return Status::InvalidArgument(label_ + ": the last op gave " + std::to_string(args.size()) +
                                     " column(s), output_columns names " + std::to_string(out_names_.size()));
    }
    auto column = [&](size_t k) {
      BatchColumn c;
      c.name = out_names_[k];
      c.data = std::move(args[k]);
      return c;
    };
    if (kept_.empty() && in_idx_.size() == out_names_.size()) {
      for (size_t k = 0; k < in_idx_.size(); ++k) b->columns[in_idx_[k]] = column(k);
      return Status::OK();
    }
    std::vector<BatchColumn> cols;
    for (size_t k = 0; k < args.size(); ++k) cols.push_back(column(k));
    for (size_t j : kept_) cols.push_back(std::move(b->columns[j]));
    b->columns = std::move(cols);
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<TensorOp>> ops_;
  std::vector<size_t> in_idx_;
  std::vector<std::string> out_names_, names_;
  std::vector<size_t> kept_;
  uint64_t seed_, node_;
  std::string label_;
};

class BatchSelectStep : public BatchStep {
 public:
  BatchSelectStep(std::vector<size_t> idx, std::vector<std::string> names) : idx_(std::move(idx)), names_(std::move(names)) {}
  Status Apply(Batch* b) const override {
    std::vector<BatchColumn> cols;
    for (size_t k = 0; k < idx_.size(); ++k) {
      cols.push_back(b->columns[idx_[k]]);
      cols.back().name = names_[k];
    }
    b->columns = std::move(cols);
    return Status::OK();
  }

 private:
  std::vector<size_t> idx_;
  std::vector<std::string> names_;
};

}  // namespace

void RegisterBatchMap(const std::string& name, BatchMapFactory factory) {
  std::lock_guard<std::mutex> lock(BatchMapRegistryMutex());
  BatchMapRegistry()[name] = std::move(factory);
}

void UnregisterBatchMap(const std::string& name) {
  std::lock_guard<std::mutex> lock(BatchMapRegistryMutex());
  BatchMapRegistry().erase(name);
}

Result<std::unique_ptr<BatchMap>> MakeBatchMap(const nlohmann::json& spec) {
  const std::string name = spec.value("map", "");
  BatchMapFactory factory;
  {
    std::lock_guard<std::mutex> lock(BatchMapRegistryMutex());
    auto it = BatchMapRegistry().find(name);
    if (it != BatchMapRegistry().end()) factory = it->second;
  }
  if (!factory) {
    return Status::InvalidArgument("per_batch_map: no batch map named '" + name +
                                   "' (C++ programs register theirs with RegisterBatchMap)");
  }
  auto m = factory(spec);
  if (!m.ok()) return m.status().WithContext("per_batch_map '" + name + "'");
  return m;
}

Result<Batch> AssembleMappedBatch(const std::vector<std::string>& input, std::vector<RowTensors>&& rows,
                                  uint64_t epoch, const BatchOptions& options, const BatchAllocator& alloc,
                                  const BatchMap& map, const BatchMapLayout& layout, const BatchInfo& info) {
  const size_t n = rows.size();
  const std::string where = "per_batch_map " + map.name() + " (epoch " + std::to_string(info.epoch_num) +
                            ", batch " + std::to_string(info.batch_num) + ")";
  std::vector<std::vector<Tensor>> in(layout.in_idx.size());
  for (size_t c = 0; c < layout.in_idx.size(); ++c) {
    in[c].reserve(n);
    for (auto& r : rows) {
      if (layout.in_idx[c] >= r.columns.size()) return Status::Internal(where + ": row without the input column");
      in[c].push_back(std::move(r.columns[layout.in_idx[c]]));
    }
  }
  auto out = map.Apply(std::move(in), info);
  if (!out.ok()) return out.status().WithContext(where);
  if (out->size() != layout.out_names.size()) {
    return Status::InvalidArgument(where + " gave " + std::to_string(out->size()) + " column(s), output_columns names " +
                                   std::to_string(layout.out_names.size()) + " (" + std::to_string(input.size()) +
                                   " input columns)");
  }
  const bool in_place = layout.kept.empty() && layout.in_idx.size() == layout.out_names.size();
  std::vector<size_t> out_pos(out->size());
  for (size_t k = 0; k < out->size(); ++k) {
    const BatchMapColumn& c = (*out)[k];
    if (!c.batched.defined() && c.rows.size() != n) {
      return Status::InvalidArgument(where + ": column '" + layout.out_names[k] + "' has " +
                                     std::to_string(c.rows.size()) + " rows, the batch " + std::to_string(n));
    }
    out_pos[k] = in_place ? layout.in_idx[k] : k;
  }
  // Rows in the batch's column order; a batched output holds a 0-d
  // placeholder per row, replaced by the batched tensor once stacked.
  std::vector<RowTensors> mapped(n);
  for (size_t i = 0; i < n; ++i) {
    RowTensors& r = mapped[i];
    r.row_id = rows[i].row_id;
    r.position = rows[i].position;
    if (in_place) {
      r.columns = std::move(rows[i].columns);
    } else {
      r.columns.resize(out->size());
      for (size_t j : layout.kept) r.columns.push_back(std::move(rows[i].columns[j]));
    }
    for (size_t k = 0; k < out->size(); ++k) {
      BatchMapColumn& c = (*out)[k];
      r.columns[out_pos[k]] = c.batched.defined() ? Tensor::Make(TensorType::kUInt8, {}) : std::move(c.rows[i]);
    }
  }
  MR_ASSIGN_OR_RETURN(Batch b, AssembleBatch(layout.names, std::move(mapped), epoch, options, alloc));
  for (size_t k = 0; k < out->size(); ++k) {
    if (!(*out)[k].batched.defined()) continue;
    BatchColumn& c = b.columns[out_pos[k]];
    c.data = std::move((*out)[k].batched);
    c.list.clear();
    c.row_shapes.clear();
  }
  return b;
}

Result<std::unique_ptr<BatchStep>> MakeBatchMapStep(const std::vector<std::string>& input, std::vector<size_t> in_idx,
                                                    std::vector<std::string> out_names,
                                                    const nlohmann::json& operations, uint64_t seed, uint64_t node,
                                                    std::string label) {
  std::vector<nlohmann::json> specs(operations.begin(), operations.end());
  auto ops = BuildColumnOps(specs);
  if (!ops.ok()) return ops.status().WithContext(label);
  std::vector<size_t> kept;
  std::vector<std::string> names = MapColumnOrder(input, in_idx, out_names, &kept);
  return std::unique_ptr<BatchStep>(new BatchMapStep(std::move(ops).value(), std::move(in_idx), std::move(out_names),
                                                     std::move(names), std::move(kept), seed, node, std::move(label)));
}

std::unique_ptr<BatchStep> MakeBatchSelectStep(std::vector<size_t> idx, std::vector<std::string> names) {
  return std::unique_ptr<BatchStep>(new BatchSelectStep(std::move(idx), std::move(names)));
}

}  // namespace mindrecord
