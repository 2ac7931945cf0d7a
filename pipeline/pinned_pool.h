// PinnedPool: page-locked (pinned) host memory for the batch columns of a
// pipeline with the CUDA sink. Batches built straight into pinned memory go to
// the device by DMA (cudaMemcpyAsync) with no staging copy; on an H100 a
// single-thread memcpy into a pinned staging buffer ran at ~9 GB/s against
// ~54 GB/s for the DMA itself, so staging held the sink to 10-15% of the
// link and took ~2 ms of the consumer's thread per 19 MB batch. Built only with MINDRECORD_HAVE_CUDA.
#pragma once

#ifdef MINDRECORD_HAVE_CUDA

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// Thread safety: thread-safe. Workers allocate; whichever thread drops the
// last copy of a tensor returns its block, also after the pipeline is gone.
class PinnedPool {
 public:
  // Columns smaller than this stay in pageable memory: staging them costs
  // less than pinning a block for them.
  static constexpr size_t kMinBytes = size_t{64} << 10;

  // The process-wide pool, shared by all pipelines so that one opened per
  // epoch reuses the blocks of the last (cudaHostAlloc costs milliseconds
  // per batch-sized block and holds a driver lock the sink's copies wait on).
  // Returned blocks are kept for reuse up to as many bytes as were in use at
  // once at the peak (so pinned bytes <= 2 x that peak, itself bounded by the
  // pipelines' queues); blocks beyond that are freed with cudaFreeHost.
  static PinnedPool& Shared();

  // A tensor of `type` and `shape`, in pinned memory when it has at least
  // kMinBytes. When pinned memory cannot be had, an ordinary Tensor::Make
  // (counted in fallbacks(); the sink then stages it), so a pipeline never
  // fails for want of pinned memory.
  Result<Tensor> Allocate(TensorType type, const std::vector<int64_t>& shape);
  // True when `t`'s bytes are a block of the pool.
  static bool IsPinned(const Tensor& t);

  uint64_t fallbacks() const { return fallbacks_.load(); }
  uint64_t blocks_allocated() const { return allocated_.load(); }  // cudaHostAlloc calls so far

 private:
  struct BlockDeleter;
  PinnedPool() = default;
  void Release(void* p, size_t capacity);

  std::mutex mu_;
  std::multimap<size_t, void*> free_;  // capacity -> block
  size_t free_bytes_ = 0, in_use_bytes_ = 0, peak_in_use_bytes_ = 0;  // guarded by mu_
  std::atomic<uint64_t> fallbacks_{0}, allocated_{0};
};

}  // namespace mindrecord

#endif  // MINDRECORD_HAVE_CUDA
