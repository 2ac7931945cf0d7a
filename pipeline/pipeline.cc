#include "pipeline/pipeline.h"

#include <unistd.h>

#include <chrono>

#include "pipeline/device_sink.h"
#include "pipeline/pinned_pool.h"
#include "pipeline/runtime.h"

namespace mindrecord {

Result<std::unique_ptr<Pipeline>> Pipeline::Open(const Plan& plan, const PipelineState* resume,
                                                BatchAllocator alloc) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->plan_ = plan;
  p->opener_pid_ = ::getpid();
  if (plan.sink.kind == SinkSpec::Kind::kCuda) {
    MR_ASSIGN_OR_RETURN(p->sink_, MakeCudaSink(plan.sink));
#ifdef MINDRECORD_HAVE_CUDA
    if (!alloc) {
      // Build batches in pinned memory so the sink copies them by DMA with no
      // staging copy. A consumer's own allocator (e.g. shared memory) wins.
      alloc = [](TensorType type, const std::vector<int64_t>& shape) {
        return PinnedPool::Shared().Allocate(type, shape);
      };
    }
#endif
  }
  MR_ASSIGN_OR_RETURN(p->runtime_, Runtime::Build(plan, resume, std::move(alloc)));
  return p;
}

bool Pipeline::OnOwnThread() const { return runtime_ && runtime_->OnWorkerThread(); }

Pipeline::~Pipeline() {
  if (::getpid() != opener_pid_) {
    // A forked copy: its threads, and the locks they may have held at the
    // fork, exist only in the parent. Joining or freeing here would hang or
    // crash, so the copy's state is left as it is for the process's life.
    (void)runtime_.release();
    (void)sink_.release();
    if (pending_) (void)new Batch(std::move(*pending_));
    return;
  }
  // Stop the sink's copies before the batches they read from are released
  // (a pinned block returned mid-copy could be refilled by a worker).
  sink_.reset();
}

Status Pipeline::SinkFailed(Status s) {
  // A sink error is sticky like a runtime error: every later Next returns it.
  deferred_ = s;
  pending_.reset();
  pending_end_ = true;
  return s;
}

Result<bool> Pipeline::Next(Batch* out) {
  if (::getpid() != opener_pid_) {
    return Status::NotSupported("this pipeline was opened in another process (before a fork); open one "
                                "in this process");
  }
  if (!sink_) return runtime_->Next(out);
  // CUDA: hand out the batch copied last time; start copying the next one
  // first so that its transfer overlaps the caller's work.
  const auto t0 = std::chrono::steady_clock::now();
  double in_runtime = 0;
  auto fetch = [&](Batch* b) -> Result<bool> {
    const auto f0 = std::chrono::steady_clock::now();
    auto r = runtime_->Next(b);
    in_runtime += std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
    return r;
  };
  if (!pending_ && !pending_end_) {
    if (!deferred_.ok()) return deferred_;
    Batch b;
    MR_ASSIGN_OR_RETURN(bool more, fetch(&b));
    if (!more) return false;
    if (Status s = sink_->Launch(&b); !s.ok()) return SinkFailed(s);
    pending_ = std::move(b);
  }
  if (!pending_) return deferred_.ok() ? Result<bool>(false) : Result<bool>(deferred_);
  Batch cur = std::move(*pending_);
  pending_.reset();
  const PipelineState after_cur = runtime_->state();
  Batch next;
  auto r = fetch(&next);
  if (!r.ok()) {
    deferred_ = r.status();
    pending_end_ = true;
  } else if (!*r) {
    pending_end_ = true;
  } else {
    if (Status s = sink_->Launch(&next); !s.ok()) return SinkFailed(s);
    pending_ = std::move(next);
  }
  if (Status s = sink_->WaitOldest(); !s.ok()) return SinkFailed(s);
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    sink_state_ = after_cur;
  }
  *out = std::move(cur);
  runtime_->AddSinkTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - in_runtime);
  return true;
}

PipelineState Pipeline::state() const {
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    if (sink_state_) return *sink_state_;
  }
  return runtime_->state();
}

PipelineStats Pipeline::stats() const {
  PipelineStats s = runtime_->stats();
  if (sink_) {
    s.sink_bytes = sink_->bytes_copied();
    s.sink_staged_bytes = sink_->bytes_staged();
  }
  return s;
}

}  // namespace mindrecord
