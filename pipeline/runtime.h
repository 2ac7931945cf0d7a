// Internal: the stateful runtime a Pipeline drives (worker threads,
// order-preserving slots, the consumer-side re-batcher). Built only from a
// Plan through Pipeline::Open; not part of the public API.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/batch.h"
#include "pipeline/ops/op.h"
#include "pipeline/padded.h"
#include "pipeline/plan.h"
#include "pipeline/sampler.h"
#include "pipeline/stats.h"
#include "readers/shard_reader.h"

namespace mindrecord {

// Thread safety: Next() is for one consumer thread at a time; state() and
// stats() may be called from any thread while Next() runs.
//
// How it works: each epoch's sampler order is cut into tasks of batch_size
// positions, numbered in order across epochs. Workers claim tasks in order
// (at most queue_depth unconsumed at once, and within queue_bytes, see
// Plan), read the rows (runs of
// consecutive ids through ShardReader::Scan when the run is long enough to
// pay for reading whole pages, the task's other rows by one ReadRows), apply the
// column ops with a per-row seed, assemble the batch and store it in slot
// seq % queue_depth. The consumer takes slots in sequence order, so the output
// never depends on the worker count or on timing. A skipped row makes its task
// short; the consumer then re-batches rows so that batches stay full.
class Runtime {
 public:
  static Result<std::unique_ptr<Runtime>> Build(const Plan& plan, const PipelineState* resume,
                                                BatchAllocator alloc = nullptr);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // False at the end of the last epoch.
  Result<bool> Next(Batch* out);
  PipelineState state() const;
  PipelineStats stats() const;
  void AddSinkTime(double s);
  const std::vector<std::string>& column_names() const { return names_; }

 private:
  struct Task {
    uint64_t seq = 0;
    uint64_t epoch = 0;
    uint64_t begin = 0, end = 0;  // positions in the epoch order
    std::shared_ptr<const std::vector<uint64_t>> ids;
    Status status;  // sampler error
  };
  struct Chunk {
    bool ready = false;
    Status status;
    uint64_t epoch = 0, begin = 0, end = 0;
    bool last_in_epoch = false;
    std::optional<Batch> batch;     // assembled when no row was skipped
    std::vector<RowTensors> rows;   // otherwise, the surviving rows
    uint64_t skipped = 0;
    std::vector<std::string> errors;
    uint64_t bytes = 0;             // the batch's or the rows' tensor bytes
  };
  struct Ready {
    Batch batch;
    uint64_t epoch_after, position_after;
  };
  // A task's rows once read, open to workers with nothing else to do: each
  // row is transformed by whichever worker claims it (`next`); the task's
  // owner batches them in order. Lets idle workers finish the last batches
  // of a run together instead of one worker finishing a whole batch alone.
  struct SharedRows {
    const Task* task = nullptr;
    std::vector<RowTensors>* raw = nullptr;  // read, transformed in place
    std::atomic<size_t> next{0};             // next raw index to claim
    // The outcome of rows transformed out of order (by helpers, or by the
    // owner after a helper's): set by the claiming thread, read by the owner
    // once no helper is active.
    std::vector<std::optional<Status>> done;
    uint32_t helpers = 0;  // under mu_: helpers still working on it
  };

  Runtime() = default;
  Status Init(const Plan& plan, const PipelineState* resume);
  void WorkerLoop();
  // kTask: `task` claimed; kHelp: `help` is an open task with rows left
  // (its helper count taken); kStop: stop or no work left.
  enum class Claim { kTask, kHelp, kStop };
  Claim ClaimWork(Task* task, SharedRows** help);
  // Transforms rows of `w` until none is left to claim, then drops the
  // helper count.
  void Help(SharedRows* w);
  bool HelpableUnderLock() const;  // under mu_: an open task has rows to claim
  Result<std::shared_ptr<const std::vector<uint64_t>>> EpochIds(uint64_t epoch);  // under mu_
  Chunk RunTask(const Task& task);
  // The task's rows as tensors, one per output column, before the ops, in
  // position order: read as RowViews, so a mapped shard's bytes and arrays
  // become views of the mapping (Tensor::FromFieldView), not copies.
  Status ReadRows(const Task& task, std::vector<RowTensors>* rows, Chunk* chunk);
  // The output columns of a row read as a view (`view_slot_`), or of a Row
  // (padded rows).
  Status ColumnsOf(const RowView& view, std::vector<Tensor>* out) const;
  Status ColumnsOf(const Row& row, std::vector<Tensor>* out) const;
  // Applies the columns' ops to a row from ReadRows, in place. `builder`: the
  // batch the row goes to, whose slots the last op of a column may write to
  // (nullptr: none).
  Status Transform(uint64_t epoch, RowTensors* row, BatchBuilder* builder) const;
  std::string Where(uint64_t row_id) const;  // "row N (shard S 'path', local row L)"
  Status RowError(uint64_t row_id, const Status& st, Chunk* chunk) const;  // applies the error policy
  // Past plan_.max_batch_bytes: the error naming the task and the row.
  Status BatchTooLarge(const Task& task, uint64_t row_id, uint64_t bytes, const char* what) const;
  bool MayClaim() const;  // under mu_: queue_depth and queue_bytes allow one more task
  Status Absorb(Chunk&& chunk);  // consumer: chunk -> ready_ batches

  Plan plan_;
  BatchAllocator alloc_;  // batch column buffers; empty: Tensor::Make
  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  std::vector<std::string> names_;
  std::vector<DataType> types_;
  std::vector<size_t> view_slot_;  // per output column: its field's index in a RowView of projection_
  std::vector<std::vector<std::unique_ptr<TensorOp>>> ops_;  // per output column
  bool any_ops_ = false;  // some column has ops (Transform has work)
  std::unique_ptr<Sampler> sampler_;
  uint64_t epoch_size_ = 0;
  // Row ids >= data_rows_ are padded rows (copies of padded_.row).
  uint64_t data_rows_ = 0;
  PaddedRows padded_;
  // Shortest run of consecutive rows read with Scan (which reads whole pages)
  // rather than row by row.
  uint64_t scan_min_rows_ = 2;
  // The modes the shards are read with (see PipelineStats::io_mode).
  std::string io_mode_;
  std::vector<std::string> shard_io_modes_;
  uint64_t fingerprint_ = 0;
  // Per column: rows of one batch differed in shape once, so workers stop
  // streaming it into a batch buffer (a hint only: the output is the same).
  std::unique_ptr<std::atomic<bool>[]> ragged_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // workers: a slot freed or stop
  std::condition_variable consumer_cv_;  // consumer: a chunk is ready
  bool stop_ = false;
  // Task cursor (claims) and consumption.
  uint64_t claim_epoch_ = 0, claim_pos_ = 0, claim_seq_ = 0;
  bool claims_done_ = false;
  uint64_t consumed_seq_ = 0;
  std::vector<Chunk> slots_;
  // Bytes of finished chunks not yet taken by the consumer; their high-water
  // mark; the running estimate of one chunk's bytes (0: none finished yet).
  uint64_t held_bytes_ = 0, max_held_bytes_ = 0, est_chunk_bytes_ = 0;
  uint64_t done_unconsumed_ = 0;  // finished chunks not yet taken
  std::map<uint64_t, std::shared_ptr<const std::vector<uint64_t>>> epoch_ids_;
  std::vector<std::thread> workers_;
  // Tasks whose rows are read and open to helpers (see SharedRows), and the
  // number of tasks being read (their rows may become open later).
  std::vector<SharedRows*> open_;
  uint32_t reading_ = 0;
  std::condition_variable helpers_cv_;  // owners: a helper left their task

  // Consumer side (guarded by mu_ for state()/stats() readers).
  std::vector<RowTensors> carry_;
  uint64_t carry_epoch_ = 0;
  std::deque<Ready> ready_;
  Status error_;
  PipelineState state_;
  bool finished_ = false;

  // Statistics.
  std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> io_ns_{0}, transform_ns_{0}, blocked_ns_{0}, wait_ns_{0}, sink_ns_{0};
  uint64_t rows_out_ = 0, batches_out_ = 0, skipped_ = 0;
  uint32_t max_in_flight_ = 0;
  std::vector<std::string> skipped_errors_;
};

}  // namespace mindrecord
