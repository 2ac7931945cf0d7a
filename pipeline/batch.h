// Batches: the unit a pipeline hands out, and the Batcher that builds them
// from transformed rows.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/ops/op.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// One column of a batch. Columns whose rows all have one shape (and padded
// columns) are one contiguous tensor of shape [rows, ...]; ragged columns in
// list mode hold one tensor per row instead.
struct BatchColumn {
  std::string name;
  Tensor data;                                  // [rows, ...]; undefined in list mode
  std::vector<Tensor> list;                     // list mode: one tensor per row
  std::vector<std::vector<int64_t>> row_shapes;  // padded columns: each row's shape before padding
  // CUDA sink only: device copy of `data` (same bytes), or nullptr.
  void* device_data = nullptr;
  bool is_list() const { return !data.defined(); }
};

// Thread safety: a value type. The tensors share their buffers with nobody
// else once handed out, so the consumer may keep them as long as it likes.
struct Batch {
  uint64_t epoch = 0;
  std::vector<uint64_t> row_ids;    // global row id of each row
  std::vector<uint64_t> positions;  // each row's position in the epoch's sampler order
  std::vector<BatchColumn> columns;  // in the plan's column order
  size_t size() const { return row_ids.size(); }
  // nullptr when absent.
  const BatchColumn* column(const std::string& name) const;
};

// How a column whose rows differ in shape is batched.
enum class RaggedMode : uint8_t {
  kList = 0,  // one tensor per row (default)
  kPad = 1,   // padded to the largest extent of each dim with `pad_value`
  kError = 2, // refuse: InvalidArgument naming the column and shapes
};

struct RaggedSpec {
  RaggedMode mode = RaggedMode::kList;
  double pad_value = 0;  // converted to the column's element type
  // kPad: the padded shape (MindSpore's pad_info shape): -1 dims (None) take
  // the largest extent of the batch; empty: every dim does. A given shape
  // pads also rows that all share one shape; a row larger than it is an
  // error.
  std::vector<int64_t> pad_shape;
};

struct BatchOptions {
  uint64_t batch_size = 1;      // rows per batch, >= 1
  bool drop_remainder = false;  // drop each epoch's last batch when it is short
  std::map<std::string, RaggedSpec> ragged;  // per column; absent: list mode

  nlohmann::json ToJson() const;
  static Result<BatchOptions> FromJson(const nlohmann::json& j);
};

// One transformed row: its tensors in the plan's column order.
struct RowTensors {
  uint64_t row_id = 0;
  uint64_t position = 0;
  std::vector<Tensor> columns;
  std::vector<uint32_t> tags;  // statistics the row counts under (a mix's inputs); usually none
};

// Allocates the contiguous buffer of one batch column: a tensor of exactly
// `type` and `shape` whose bytes the batcher then fills (e.g. one over a
// consumer's shared memory, made with Tensor::Wrap). Called from pipeline
// worker threads and from the thread calling Pipeline::Next, so it must be
// thread-safe; so must the tensors' owners, which a worker may release (see
// Pipeline::Next).
using BatchAllocator = std::function<Result<Tensor>(TensorType type, const std::vector<int64_t>& shape)>;

// A new batch column of `type` and `shape`: from `alloc` when given (checked
// to be what was asked for; `name` names the column in its error), else
// Tensor::Make.
// Thread safety: as `alloc`.
Result<Tensor> NewColumn(const BatchAllocator& alloc, TensorType type, const std::vector<int64_t>& shape,
                         const std::string& name);

// Builds one batch from `rows` (any count >= 1). Copies each fixed-shape
// column into one new contiguous buffer, from `alloc` when given (else
// Tensor::Make).
// Thread safety: a pure function; call from any thread.
Result<Batch> AssembleBatch(const std::vector<std::string>& names, std::vector<RowTensors>&& rows, uint64_t epoch,
                            const BatchOptions& options, const BatchAllocator& alloc = nullptr);

// Builds one batch row by row: each column whose rows so far share one type
// and shape is copied into the batch buffer as its row arrives, so the row's
// tensor is freed at once (its buffer reused, still in cache, by the next
// row) instead of living until the batch is complete. A column that turns
// out ragged is copied back to per-row tensors (rows that were views keep
// their views) and batched as AssembleBatch does, so Finish() gives exactly
// what AssembleBatch gives for the same rows.
// Thread safety: none; one builder per thread.
class BatchBuilder {
 public:
  // `rows`: the number of rows the batch will hold. `stream[c]` false: keep
  // column c's rows as they come (known ragged); empty: stream all columns.
  // `names`, `options` and `alloc` are referenced, not copied: they must
  // outlive the builder.
  BatchBuilder(const std::vector<std::string>& names, size_t rows, uint64_t epoch, const BatchOptions& options,
               const BatchAllocator& alloc, std::vector<bool> stream = {});
  // Where column c of the next row may be written (OutputSlot), when the
  // batch buffer exists already (from the second row on) and the column is
  // streamed; else nullptr. Add() then finds the row's tensor already in
  // place and copies nothing. Valid until the next Add.
  const OutputSlot* Slot(size_t c);
  Status Add(RowTensors&& row);
  size_t size() const { return rows_.size(); }
  // Rows that are views (of a mapped shard) end up in buffers the batch
  // owns: ragged columns' views as CopyListViews copies them, a batch of one
  // view is copied too. For consumers that would copy them anyway: the copy
  // runs in the workers, beside the consumer, not in its thread.
  void CopyViews() { copy_views_ = true; }
  // Whether column c was streamed to the end (false: its rows were ragged).
  bool streamed(size_t c) const { return streaming_[c]; }
  // Exactly the promised number of rows must have been added.
  Result<Batch> Finish() &&;
  // The rows added so far, each with all its tensors (instead of Finish).
  std::vector<RowTensors> TakeRows() &&;

 private:
  void Unstream(size_t c);

  const std::vector<std::string>& names_;
  size_t expected_;
  uint64_t epoch_;
  const BatchOptions& options_;
  const BatchAllocator& alloc_;
  bool copy_views_ = false;
  std::vector<bool> streaming_;  // per column: rows copied into data_[c]
  std::vector<Tensor> data_;     // per streamed column: [expected_, ...]
  std::vector<uint8_t*> base_;   // data_[c]'s bytes (taken once: row views share the buffer)
  std::vector<OutputSlot> slots_;
  std::vector<RowTensors> rows_;  // streamed columns' tensors are left undefined, views kept
};

// Copies the rows of each list column that are views (Tensor::read_only,
// e.g. of a mapped shard) one after another into one new buffer per column,
// each such row then a writable tensor over its part of it: the batch owns
// every buffer it holds (a consumer that would copy the views anyway).
// Thread safety: a pure function of `batch`.
void CopyListViews(Batch& batch);

// The inverse of AssembleBatch: one RowTensors per row (padding removed).
// Copies contiguous columns; list columns are moved.
std::vector<RowTensors> SplitBatch(Batch&& batch);

}  // namespace mindrecord
