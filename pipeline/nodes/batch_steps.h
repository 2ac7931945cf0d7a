// The batch node's per-batch map (MindSpore's per_batch_map with BatchInfo)
// and the steps of nodes above the batch (map, project, rename applied to
// whole batches: MindSpore's MixUpBatch / CutMixBatch run as a map after
// batch).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/batch.h"
#include "pipeline/ops/op.h"

namespace mindrecord {

// MindSpore's BatchInfo: the epoch (from 0) and the batch's number within
// it (from 0), as get_epoch_num() / get_batch_num() give them.
struct BatchInfo {
  uint64_t epoch_num = 0;
  uint64_t batch_num = 0;
};

// One column a batch map gives: one tensor per row, or (batched) one tensor
// holding the whole batch, used as the batch column as it is.
struct BatchMapColumn {
  std::vector<Tensor> rows;
  Tensor batched;
};

// A per-batch map: the batch's rows of its input columns in, columns out.
// Thread safety: Apply is const and may run on many threads at once.
class BatchMap {
 public:
  virtual ~BatchMap() = default;
  virtual std::string name() const = 0;
  // `columns[c][i]`: input column c of row i. Returns the output columns,
  // each with one tensor per row or one batched tensor.
  virtual Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>> columns,
                                                    const BatchInfo& info) const = 0;
};

using BatchMapFactory = std::function<Result<std::unique_ptr<BatchMap>>(const nlohmann::json& spec)>;
// Makes specs {"map": name, ...} build through `factory` (the Python binding
// registers "PyBatchMap"). Thread safety: any thread.
void RegisterBatchMap(const std::string& name, BatchMapFactory factory);
void UnregisterBatchMap(const std::string& name);
Result<std::unique_ptr<BatchMap>> MakeBatchMap(const nlohmann::json& spec);

// How a batch node with a per_batch_map lays out its columns (MindSpore's
// BatchOp::ComputeColMap, which is MapColumnOrder's rule).
struct BatchMapLayout {
  std::vector<size_t> in_idx;          // input columns, in the input row
  std::vector<std::string> out_names;  // what the map gives, in order
  std::vector<std::string> names;      // the batch's columns
  std::vector<size_t> kept;            // input columns after the outputs (when counts differ)
};

// Applies `map` to `rows` (columns `input` names), then pads and stacks the
// result as AssembleBatch does (a batched output is taken as it is). Errors
// name the map, the epoch and the batch number.
Result<Batch> AssembleMappedBatch(const std::vector<std::string>& input, std::vector<RowTensors>&& rows,
                                  uint64_t epoch, const BatchOptions& options, const BatchAllocator& alloc,
                                  const BatchMap& map, const BatchMapLayout& layout, const BatchInfo& info);

// A node above the batch, applied to whole batches.
// Thread safety: Apply is const and may run on many threads at once.
class BatchStep {
 public:
  virtual ~BatchStep() = default;
  // `b`'s columns are the input node's; they become this node's.
  virtual Status Apply(Batch* b) const = 0;
};

// map after batch: `operations` over the batch columns `in_idx` (each must be
// one tensor [rows, ...]), results named `out_names` (MapColumnOrder), op k
// seeded from (seed, epoch, the batch's first position, node, k).
Result<std::unique_ptr<BatchStep>> MakeBatchMapStep(const std::vector<std::string>& input, std::vector<size_t> in_idx,
                                                    std::vector<std::string> out_names,
                                                    const nlohmann::json& operations, uint64_t seed, uint64_t node,
                                                    std::string label);
// project / rename after batch: the columns `idx` in that order, named `names`.
std::unique_ptr<BatchStep> MakeBatchSelectStep(std::vector<size_t> idx, std::vector<std::string> names);

}  // namespace mindrecord
