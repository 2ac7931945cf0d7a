// Internal: the stateful runtime a Pipeline drives (worker threads,
// order-preserving slots, the consumer-side re-batcher). Built only from a
// Plan through Pipeline::Open; not part of the public API. The workers' side
// is in runtime.cc, the consumer's (Next and what it calls) in
// runtime_consumer.cc.
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

#include "pipeline/autotune.h"
#include "pipeline/batch.h"
#include "pipeline/nodes/compile.h"
#include "pipeline/plan.h"
#include "pipeline/stats.h"

namespace mindrecord {

// Nanoseconds since `t` (the runtime's time statistics).
inline uint64_t NanosSince(std::chrono::steady_clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t).count());
}

// Thread safety: Next() is for one consumer thread at a time; state() and
// stats() may be called from any thread while Next() runs.
//
// How it works: the plan's execution tree is compiled (nodes/compile.h); each
// epoch of its row tree is cut into tasks of batch_size positions, numbered
// in order across epochs. Workers claim tasks in order (at most queue_depth
// unconsumed at once, and within queue_bytes, see Plan), resolve each
// position into its row program (nodes/row_node.h), read the rows of every
// source (runs of consecutive ids through one page scan, the rest by one
// bulk read), run each row's steps with their per-row seeds, assemble the
// batch and store it in slot seq % queue_depth. The consumer takes slots in
// sequence order, so the output never depends on the worker count or on
// timing. A dropped row (filter, or on_error skip) makes its task short; the
// consumer then re-batches rows so that batches stay full, and keeps the
// counts of the take / skip nodes it evaluates.
class Runtime {
 public:
  static Result<std::unique_ptr<Runtime>> Build(const Plan& plan, const PipelineState* resume,
                                                BatchAllocator alloc = nullptr);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // False at the end of the last epoch. What *out held is released by a
  // worker thread when one is running (see spent_).
  Result<bool> Next(Batch* out);
  // True on one of this runtime's worker threads (which run the ops, Python
  // callables included): such a thread must not destroy the runtime, which
  // joins them.
  bool OnWorkerThread() const;
  PipelineState state() const;
  PipelineStats stats() const;
  void AddSinkTime(double s);
  const std::vector<std::string>& column_names() const { return tree_.columns; }

 private:
  struct Task {
    uint64_t seq = 0;
    uint64_t epoch = 0;
    uint64_t begin = 0, end = 0;  // positions of the row tree's epoch
    bool last_in_epoch = false;
    Status status;  // the epoch's size could not be computed
  };
  // A row of a task between its read and its transform.
  struct PendingRow {
    RowTensors out;  // row_id, position; columns once transformed (a single read goes straight there)
    std::vector<std::vector<Tensor>> reads;  // a program of several reads: its reads, in order
    RowProgram program;
    bool failed = false;  // its read failed (the error policy dropped it)
    bool kept = true;     // false: a filter dropped it
  };
  struct Chunk {
    bool ready = false;
    Status status;
    uint64_t epoch = 0, begin = 0, end = 0;
    bool last_in_epoch = false;
    std::optional<Batch> batch;     // assembled when no row was dropped
    bool batch_steps_done = false;  // the nodes above the batch ran on it
    std::vector<RowTensors> rows;   // otherwise, the surviving rows
    std::vector<std::vector<uint32_t>> batch_tags;  // with `batch`: each row's tags
    uint64_t skipped = 0, filtered = 0;
    std::vector<std::string> errors;
    uint64_t bytes = 0;  // the batch's or the rows' tensor bytes
  };
  struct Ready {
    Batch batch;
    uint64_t epoch_after, position_after;
    std::vector<uint64_t> counts_after;
    uint64_t absorbed_after = 0;           // a bucket batch's: see PipelineState
    std::vector<uint64_t> bucketed_after;
    std::vector<uint64_t> tag_rows;  // rows per statistic tag
  };
  // A task's rows once read, open to workers with nothing else to do: each
  // row is transformed by whichever worker claims it (`next`); the task's
  // owner batches them in order. Lets idle workers finish the last batches
  // of a run together instead of one worker finishing a whole batch alone.
  struct SharedRows {
    const Task* task = nullptr;
    std::vector<PendingRow>* raw = nullptr;  // read, transformed in place
    std::atomic<size_t> next{0};             // next raw index to claim
    // The outcome of rows transformed out of order (by helpers, or by the
    // owner after a helper's): set by the claiming thread, read by the owner
    // once no helper is active.
    std::vector<std::optional<Status>> done;
    uint32_t helpers = 0;  // under mu_: helpers still working on it
  };

  static constexpr size_t kMaxReportedErrors = 16;  // skip messages kept for stats()

  Runtime() = default;
  Status Init(const Plan& plan, const PipelineState* resume);
  void WorkerLoop(uint32_t index);
  // kTask: `task` claimed; kHelp: `help` is an open task with rows left
  // (its helper count taken); kStop: stop or no work left. Worker `index`
  // waits while autotune has it parked (index >= active_workers_).
  enum class Claim { kTask, kHelp, kStop };
  Claim ClaimWork(uint32_t index, Task* task, SharedRows** help);
  // Consumer side, under mu_: feeds the autotuner after a batch and applies
  // (and logs) what it decides.
  void Tune();
  // Transforms rows of `w` until none is left to claim, then drops the
  // helper count.
  void Help(SharedRows* w);
  // Under mu_: where the tasks of `epoch` end (its size, or its last full
  // batch when the remainder is dropped and no row can go missing).
  Result<uint64_t> ClaimEnd(uint64_t epoch);
  Chunk RunTask(const Task& task);
  // Resolves and reads the task's rows, in position order.
  Status ReadRows(const Task& task, std::vector<PendingRow>* rows, Chunk* chunk);
  // The task's batch gathered by the source (gather_rows_ not empty).
  Result<Batch> GatherRows(const Task& task);
  // Runs the nodes above the batch on `b` where every task is a batch of its
  // own, and puts it (or its error) in `c`.
  void FinishBatch(Result<Batch> b, Chunk* c) const;
  // Runs a row's program; `builder`: the batch the row goes to, whose slots
  // the row's last step may write to (nullptr: none). An exception an op
  // lets out (a C++ user's op among them) becomes the row's error: it would
  // terminate the process on a worker thread.
  Status Transform(PendingRow* row, BatchBuilder* builder) const;
  Status RunProgram(PendingRow* row, BatchBuilder* builder) const;
  // Reads the row of a kRead on this thread (a cached row whose entry missed).
  Status ReadOne(const Instr& in, std::vector<Tensor>* cols) const;
  // A kCacheGet: true with the row in *cols when the entry is there and sound.
  bool CacheGet(const Instr& in, std::vector<Tensor>* cols) const;
  // A kCachePut: counts the miss and stores the row.
  Status CachePut(const Instr& in, const std::vector<Tensor>& cols) const;
  Status RowError(const std::string& where, const Status& st, Chunk* chunk) const;  // applies the error policy
  // Past plan_.max_batch_bytes: the error naming the task and the row.
  Status BatchTooLarge(const Task& task, const std::string& where, uint64_t bytes, const char* what) const;
  bool MayClaim() const;  // under mu_: queue_depth and queue_bytes allow one more task
  BatchInfo InfoFor(uint64_t epoch, uint64_t batch_num) const;

  // Consumer side, under mu_.
  Status Absorb(Chunk&& chunk);  // chunk -> ready_ batches
  // A batch made of rows leaving the batch node (or a worker's whole batch):
  // numbered, counted by the batch take / skip nodes, run through the nodes
  // above the batch unless `steps_done`, queued. Sets *cut when a take is
  // complete (the epoch ends after it).
  Status Emit(Batch&& b, bool steps_done, std::vector<uint64_t> tag_rows, uint64_t epoch_after,
              uint64_t position_after, bool* cut);
  // Rows the consumer has batched: left to a worker to release (spent_rows_)
  // while the bounds allow, else released here.
  void Spend(std::vector<RowTensors>&& rows);
  // The size of the batch the consumer makes next: the plan's, or (a
  // batch_size_map) the map's for this epoch's next batch, asked once per batch.
  Result<uint64_t> NextBatchSize(uint64_t epoch);
  // Takes `n` rows of carry_ into a batch and Emits it.
  Status EmitCarry(size_t n, uint64_t epoch, uint64_t epoch_after, uint64_t position_after, bool* cut);
  // A batch by length: puts the row in its bucket and Emits the bucket's
  // batch once full.
  Status Bucket(RowTensors&& row, uint64_t epoch, bool* cut);
  // The bucket of a row: its length column's, or what the length map gives.
  Result<size_t> BucketOfRow(const RowTensors& row, uint64_t epoch);
  // Batches bucket `b`'s rows and Emits the batch.
  Status EmitBucket(size_t b, uint64_t epoch, bool* cut);
  // A row a resumed run took before the state it resumed from (not in a bucket then).
  bool Replayed(uint64_t epoch, uint64_t position) const;
  // The epoch ends here: what is handed out last is followed by the next
  // epoch's start; the claims move on if a take cut the epoch short.
  void EndEpoch(uint64_t epoch);
  std::vector<uint64_t> CountsNow() const;  // the counts before the rows in carry_ and the buckets
  std::vector<uint64_t> BucketedNow() const;  // the positions in buckets, ascending
  std::vector<uint64_t> ZeroCounts() const;
  size_t NumCounts() const;

  Plan plan_;
  ExecTree tree_;
  BatchAllocator alloc_;  // batch column buffers; empty: Tensor::Make
  // The worker assembles whole batches (else the consumer does from rows).
  bool worker_batches_ = true;
  bool counting_ = false;  // the state carries counts
  // Per column, the rows' spec when batches are gathered (GatherRows); empty:
  // rows are read and batched one by one.
  std::vector<RowSpec> gather_rows_;
  std::string io_mode_;
  std::vector<std::string> shard_io_modes_;
  uint64_t fingerprint_ = 0;
  // Per column: rows of one batch differed in shape once, so workers stop
  // streaming it into a batch buffer (a hint only: the output is the same).
  std::unique_ptr<std::atomic<bool>[]> ragged_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // workers that may claim: a slot freed, rows open, or stop
  std::condition_variable park_cv_;      // workers autotune parked: the setting changed, or stop
  std::condition_variable consumer_cv_;  // consumer: a chunk is ready
  bool stop_ = false;
  // Task cursor (claims) and consumption.
  uint64_t claim_epoch_ = 0, claim_pos_ = 0, claim_seq_ = 0;
  uint64_t last_epoch_ = 0;  // row epochs to run (0: endless)
  bool claims_done_ = false;
  std::map<uint64_t, uint64_t> claim_ends_;  // epoch -> ClaimEnd
  uint64_t consumed_seq_ = 0;
  // The task whose chunk the consumer waits for in Next (kNotWaiting: none).
  static constexpr uint64_t kNotWaiting = UINT64_MAX;
  uint64_t consumer_waits_for_ = kNotWaiting;
  std::vector<Chunk> slots_;
  // Bytes of finished chunks not yet taken by the consumer; their high-water
  // mark; the running estimate of one chunk's bytes (0: none finished yet).
  uint64_t held_bytes_ = 0, max_held_bytes_ = 0, est_chunk_bytes_ = 0;
  uint64_t done_unconsumed_ = 0;  // finished chunks not yet taken
  // Batches the consumer is done with (what Next's `out` held), released by
  // the next worker to finish a task rather than on the consumer's thread:
  // freeing a batch's row tensors costs the consumer ~60 ns a row, all of
  // it memory other threads allocated. At most kMaxSpent batches holding
  // kMaxSpentBytes of their own buffers, and a quarter of queue_bytes, wait
  // here (views of a mapping hold none); past that the consumer releases
  // them itself.
  static constexpr size_t kMaxSpent = 8;
  static constexpr uint64_t kMaxSpentBytes = uint64_t{64} << 20;
  std::vector<Batch> spent_;
  // Likewise the rows the consumer batched by bucket (it assembles every
  // batch there, so its thread is the one to spare): at most kMaxSpentRows,
  // within the same byte bounds. (After a filter the workers, running the
  // predicate, are the busier side: measured slower there.)
  static constexpr size_t kMaxSpentRows = 4096;
  std::vector<RowTensors> spent_rows_;
  uint64_t spent_bytes_ = 0;
  std::vector<std::thread> workers_;
  // Workers that may claim work, and batches prepared ahead at most: the
  // plan's, or what autotune picks (then workers_ holds its CPU budget's
  // threads, those past active_workers_ parked).
  uint32_t active_workers_ = 1, depth_ = 1;
  std::unique_ptr<Autotuner> tuner_;
  bool tune_log_ = false;  // log decisions to stderr (GLOG_v <= 1)
  // Tasks whose rows are read and open to helpers (see SharedRows), and the
  // number of tasks being read (their rows may become open later).
  std::vector<SharedRows*> open_;
  uint32_t reading_ = 0;
  std::condition_variable helpers_cv_;  // owners: a helper left their task

  // Consumer side (guarded by mu_ for state()/stats() readers).
  uint64_t consumer_epoch_ = 0;  // chunks of earlier epochs (cut short) are discarded
  std::vector<RowTensors> carry_;
  uint64_t next_batch_size_ = 0;  // a batch_size_map's answer for the next batch (0: not asked yet)
  // A batch by length: the rows in each bucket, the position after the last
  // row taken, and (resumed) the state's rows to take again.
  std::vector<std::vector<RowTensors>> buckets_;
  uint64_t absorbed_ = 0;
  uint64_t replay_end_ = 0;
  std::vector<uint64_t> replay_keep_;
  std::vector<uint64_t> row_counts_;    // rows that reached each row take / skip, this epoch
  uint64_t epoch_batches_ = 0;          // batches the batch node made this epoch
  std::vector<uint64_t> batch_counts_;  // batches that reached each batch take / skip
  std::deque<Ready> ready_;
  Status error_;
  PipelineState state_;
  bool finished_ = false;

  // Statistics.
  std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> io_ns_{0}, transform_ns_{0}, blocked_ns_{0}, wait_ns_{0}, sink_ns_{0};
  std::atomic<uint64_t> gathered_{0};  // batches GatherRows made
  uint64_t rows_out_ = 0, batches_out_ = 0, skipped_ = 0, filtered_ = 0;
  uint32_t max_in_flight_ = 0;
  std::vector<std::string> skipped_errors_;
  std::vector<uint64_t> tag_rows_;  // rows handed out per statistic tag
};

}  // namespace mindrecord
