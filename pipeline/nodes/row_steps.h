// Row steps: what map, ops, project and filter nodes do to one row (the
// columns of their input, in order). Steps are built once per pipeline and
// run on worker threads, many rows at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/batch.h"
#include "pipeline/ops/op.h"

namespace mindrecord {

// Thread safety: Apply is const and runs on many threads at once.
class RowStep {
 public:
  virtual ~RowStep() = default;
  // `cols`: the input node's columns, in order; becomes this node's. `keep`
  // set to false drops the row (a filter). `epoch` and `position` are the
  // node's own (the seed of random ops). `builder`: when given, output
  // column c may be written straight into builder->Slot(c) (the row's place
  // in the batch: this is the row's last step and its columns are the
  // batch's).
  virtual Status Apply(uint64_t epoch, uint64_t position, std::vector<Tensor>* cols, bool* keep,
                       BatchBuilder* builder) const = 0;
};

// MindSpore's map column rule (MapOp::CreateFinalColMap): with as many output
// columns as input columns, the outputs take the inputs' places (renamed);
// otherwise the outputs come first, then the input's other columns in their
// order. Returns the output names; `kept` gets the input indices of the
// columns that follow the outputs (empty in the first case).
std::vector<std::string> MapColumnOrder(const std::vector<std::string>& input, const std::vector<size_t>& in_idx,
                                        const std::vector<std::string>& out_names, std::vector<size_t>* kept);

// The indices of `names` in `columns`; NotFound naming `what` and the
// missing column.
Result<std::vector<size_t>> ColumnIndices(const std::vector<std::string>& columns,
                                          const std::vector<std::string>& names, const std::string& what);

// A flat plan's per-column op lists ("ops" node): column c's ops in order,
// op k seeded from (seed, epoch, position, c, k).
Result<std::unique_ptr<RowStep>> MakeColumnOpsStep(const std::vector<std::string>& columns,
                                                   const nlohmann::json& ops, uint64_t seed);

// A map node: `operations` applied in order to the columns `in_idx` of the
// input (the first op takes them, each op takes what the previous gave), the
// last op's results becoming `out_names` (MapColumnOrder). Ops taking one
// column run through Apply (ApplyInto when the result may go straight into
// the batch), multi-column ops through ApplyColumns. Op k is seeded from
// (seed, epoch, position, node, k). `label`: names the map in errors.
Result<std::unique_ptr<RowStep>> MakeMapStep(const std::vector<std::string>& input, std::vector<size_t> in_idx,
                                             std::vector<std::string> out_names, const nlohmann::json& operations,
                                             uint64_t seed, uint64_t node, std::string label);

// Applies `ops` to `args` in order, as a map does; used by row and batch
// maps. `rng_seed(k)` seeds random op k; `slot`: where a single 1 -> 1 last
// op may write its result (nullptr: none). Errors name `label` and the op.
Status ApplyOps(const std::vector<std::unique_ptr<TensorOp>>& ops, std::vector<Tensor>* args,
                const std::function<uint64_t(size_t k)>& rng_seed, const OutputSlot* slot, const std::string& label);

// A project node: the input's columns `idx`, in that order.
std::unique_ptr<RowStep> MakeProjectStep(std::vector<size_t> idx);

// A filter node: the predicate op over columns `in_idx` (copies; the row is
// unchanged) returns one value; zero drops the row. Seeded as a map.
Result<std::unique_ptr<RowStep>> MakeFilterStep(std::vector<size_t> in_idx, const nlohmann::json& predicate,
                                                uint64_t seed, uint64_t node, std::string label);

}  // namespace mindrecord
