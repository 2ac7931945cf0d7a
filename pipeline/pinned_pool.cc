#include "pipeline/pinned_pool.h"

#ifdef MINDRECORD_HAVE_CUDA

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <numeric>

namespace mindrecord {

struct PinnedPool::BlockDeleter {
  PinnedPool* pool;
  size_t capacity;
  void operator()(void* p) const { pool->Release(p, capacity); }
};

PinnedPool& PinnedPool::Shared() {
  // Never destroyed: blocks may be released during static destruction, and
  // cudaFreeHost must not run after the CUDA runtime has shut down.
  static PinnedPool* pool = new PinnedPool();
  return *pool;
}

Result<Tensor> PinnedPool::Allocate(TensorType type, const std::vector<int64_t>& shape) {
  const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
  const size_t bytes = static_cast<size_t>(n) * TensorTypeSize(type);
  if (bytes < kMinBytes) return Tensor::Make(type, shape);
  void* block = nullptr;
  size_t capacity = 0;
  {
    // Best fit among the kept blocks, wasting at most half of one.
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first / 2 <= bytes) {
      capacity = it->first;
      block = it->second;
      free_.erase(it);
      free_bytes_ -= capacity;
      in_use_bytes_ += capacity;
    } else {
      in_use_bytes_ += bytes;
      peak_in_use_bytes_ = std::max(peak_in_use_bytes_, in_use_bytes_);
    }
  }
  if (!block) {
    // Portable: usable from the sink's device whatever this thread's current device is.
    if (cudaHostAlloc(&block, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();  // clear it: the fallback is not an error
      fallbacks_++;
      std::lock_guard<std::mutex> lock(mu_);
      in_use_bytes_ -= bytes;
      return Tensor::Make(type, shape);
    }
    allocated_++;
    capacity = bytes;
  }
  std::shared_ptr<void> owner(block, BlockDeleter{this, capacity});
  return Tensor::Wrap(type, shape, std::move(owner), static_cast<uint8_t*>(block));
}

bool PinnedPool::IsPinned(const Tensor& t) { return t.owner_deleter<BlockDeleter>() != nullptr; }

void PinnedPool::Release(void* p, size_t capacity) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_bytes_ -= capacity;
    if (free_bytes_ + capacity <= peak_in_use_bytes_) {
      free_.emplace(capacity, p);
      free_bytes_ += capacity;
      return;
    }
  }
  cudaFreeHost(p);
}

}  // namespace mindrecord

#endif  // MINDRECORD_HAVE_CUDA
