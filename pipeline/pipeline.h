// Pipeline: the public face of a running pipeline. Built from a Plan (the only
// way to build one); hands out batches in sampler order whatever the number of
// workers; reports its state (for exact resume) and per-stage statistics.
//
//   MR_ASSIGN_OR_RETURN(Plan plan, Plan::Parse(json_text));
//   MR_ASSIGN_OR_RETURN(auto pipe, Pipeline::Open(plan));
//   Batch b;
//   for (;;) {
//     MR_ASSIGN_OR_RETURN(bool more, pipe->Next(&b));
//     if (!more) break;
//     const Tensor& images = b.column("image")->data;  // [batch, H, W, C]
//   }
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "mindrecord/status.h"
#include "pipeline/batch.h"
#include "pipeline/plan.h"
#include "pipeline/stats.h"

namespace mindrecord {

class Runtime;
class DeviceSink;

// Thread safety: Next() is for one thread at a time; state() and stats() may
// be called from any thread, also while Next() runs. Destroying the pipeline
// stops and joins its workers. A process forked from the one that opened it
// (a DataLoader worker) holds a copy whose workers live only in the parent:
// there Next() fails and destruction releases nothing (nothing to join).
class Pipeline {
 public:
  // Opens the dataset, builds the sampler and ops, and starts the workers.
  // With `resume` (from state() of a pipeline with the same plan, any
  // num_workers / queue_depth / sink), output starts exactly where that
  // pipeline stopped. A CUDA sink without CUDA in the build or without a GPU
  // is NotSupported, saying which. `alloc` (optional) provides the buffers
  // of contiguous batch columns, so batches can be built straight into
  // memory the consumer chose (e.g. shared memory to pass to another process).
  static Result<std::unique_ptr<Pipeline>> Open(const Plan& plan, const PipelineState* resume = nullptr,
                                                BatchAllocator alloc = nullptr);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The next batch: true, false after the last epoch, or the error that
  // stopped the pipeline (every later call returns it again). Host batches
  // own their buffers (no copy is made to hand them out). With the CUDA sink,
  // contiguous columns also carry `device_data`, valid until Next() has been
  // called sink.buffers - 1 more times and never past the pipeline's end;
  // without an `alloc` their host bytes are then in pinned memory. What *out
  // held before the call is released by a worker thread while workers run
  // (the caller's thread does not pay for freeing it), else by the caller.
  Result<bool> Next(Batch* out);
  // Where the next batch starts: restore it into Open() to continue.
  PipelineState state() const;
  PipelineStats stats() const;
  const Plan& plan() const { return plan_; }
  // True on one of the pipeline's own worker threads (e.g. inside a Python
  // callable of one of its maps): there the pipeline cannot be destroyed,
  // since destruction joins those threads.
  bool OnOwnThread() const;

 private:
  Pipeline() = default;
  Status SinkFailed(Status s);
  Plan plan_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<DeviceSink> sink_;
  std::optional<Batch> pending_;  // CUDA sink: the batch whose copy runs ahead
  Status deferred_;                // an error met while prefetching
  bool pending_end_ = false;
  int opener_pid_ = 0;  // the process whose threads run the pipeline
  mutable std::mutex state_mu_;
  std::optional<PipelineState> sink_state_;  // state after the last batch handed out
};

}  // namespace mindrecord
