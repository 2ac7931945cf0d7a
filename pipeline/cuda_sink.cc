#include <cstring>
#include <deque>
#include <vector>

#include "pipeline/device_sink.h"

#ifdef MINDRECORD_HAVE_CUDA
#include <cuda_runtime.h>

#include <atomic>

#include "pipeline/pinned_pool.h"
#endif

namespace mindrecord {

#ifndef MINDRECORD_HAVE_CUDA

bool CudaSinkAvailable(std::string* why) {
  if (why) {
    *why = "this build of mindrecord has no CUDA support (reconfigure with -DMINDRECORD_WITH_CUDA=ON); "
           "use the host sink";
  }
  return false;
}

Result<std::unique_ptr<DeviceSink>> MakeCudaSink(const SinkSpec&) {
  std::string why;
  CudaSinkAvailable(&why);
  return Status::NotSupported("CUDA sink: " + why);
}

#else

namespace {
Status CudaError(cudaError_t e, const char* what) {
  return Status::IOError(std::string("CUDA sink: ") + what + ": " + cudaGetErrorName(e) + " (" +
                         cudaGetErrorString(e) + ")");
}
#define MR_CUDA(expr, what)                           \
  do {                                                \
    cudaError_t _e = (expr);                          \
    if (_e != cudaSuccess) return CudaError(_e, what); \
  } while (0)

// One device buffer per column, and a pinned staging buffer for the columns
// that arrive in pageable memory.
struct BufferSet {
  std::vector<void*> pinned, device;
  std::vector<size_t> pinned_capacity, device_capacity;
  cudaEvent_t done = nullptr;
};

class CudaSink : public DeviceSink {
 public:
  CudaSink(int device, uint32_t buffers) : device_(device), sets_(buffers) {}
  ~CudaSink() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);
    for (auto& s : sets_) {
      for (void* p : s.pinned) cudaFreeHost(p);
      for (void* p : s.device) cudaFree(p);
      if (s.done) cudaEventDestroy(s.done);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status Init() {
    MR_CUDA(cudaSetDevice(device_), "cudaSetDevice");
    MR_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto& s : sets_) MR_CUDA(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreate");
    return Status::OK();
  }

  Status Launch(Batch* batch) override {
    MR_CUDA(cudaSetDevice(device_), "cudaSetDevice");
    const size_t idx = next_++ % sets_.size();
    BufferSet& set = sets_[idx];
    MR_CUDA(cudaEventSynchronize(set.done), "cudaEventSynchronize");  // this set's last copy is done
    const size_t ncols = batch->columns.size();
    if (set.device.size() < ncols) {
      set.pinned.resize(ncols, nullptr);
      set.device.resize(ncols, nullptr);
      set.pinned_capacity.resize(ncols, 0);
      set.device_capacity.resize(ncols, 0);
    }
    for (size_t c = 0; c < ncols; ++c) {
      BatchColumn& col = batch->columns[c];
      if (col.is_list()) continue;
      const size_t n = col.data.size_bytes();
      if (n > set.device_capacity[c]) {
        if (set.device[c]) cudaFree(set.device[c]);
        set.device[c] = nullptr;
        set.device_capacity[c] = 0;
        MR_CUDA(cudaMalloc(&set.device[c], n), "cudaMalloc");
        set.device_capacity[c] = n;
      }
      if (n > 0) {
        const void* src = col.data.data();
        if (!PinnedPool::IsPinned(col.data)) {
          // Pageable memory: DMA needs pinned memory, so stage the bytes.
          if (n > set.pinned_capacity[c]) {
            if (set.pinned[c]) cudaFreeHost(set.pinned[c]);
            set.pinned[c] = nullptr;
            set.pinned_capacity[c] = 0;
            MR_CUDA(cudaHostAlloc(&set.pinned[c], n, cudaHostAllocDefault), "cudaHostAlloc");
            set.pinned_capacity[c] = n;
          }
          std::memcpy(set.pinned[c], src, n);
          src = set.pinned[c];
          staged_ += n;
        }
        // The source stays untouched until `done`: pinned batches are held by
        // the pipeline until WaitOldest has seen their copy finish.
        MR_CUDA(cudaMemcpyAsync(set.device[c], src, n, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
        copied_ += n;
      }
      col.device_data = set.device[c];
    }
    MR_CUDA(cudaEventRecord(set.done, stream_), "cudaEventRecord");
    launched_.push_back(idx);
    return Status::OK();
  }

  uint64_t bytes_copied() const override { return copied_.load(); }
  uint64_t bytes_staged() const override { return staged_.load(); }

  Status WaitOldest() override {
    if (launched_.empty()) return Status::Internal("CUDA sink: no copy in flight");
    const size_t idx = launched_.front();
    launched_.pop_front();
    MR_CUDA(cudaEventSynchronize(sets_[idx].done), "cudaEventSynchronize");
    return Status::OK();
  }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  std::vector<BufferSet> sets_;
  size_t next_ = 0;
  std::deque<size_t> launched_;
  std::atomic<uint64_t> copied_{0}, staged_{0};  // read by stats() from any thread
};
}  // namespace

bool CudaSinkAvailable(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why) {
      *why = std::string("no CUDA device is available (cudaGetDeviceCount: ") +
             (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + "); use the host sink";
    }
    return false;
  }
  return true;
}

Result<std::unique_ptr<DeviceSink>> MakeCudaSink(const SinkSpec& spec) {
  std::string why;
  if (!CudaSinkAvailable(&why)) return Status::NotSupported("CUDA sink: " + why);
  int count = 0;
  cudaGetDeviceCount(&count);
  if (spec.device < 0 || spec.device >= count) {
    return Status::InvalidArgument("CUDA sink: device " + std::to_string(spec.device) + " does not exist (" +
                                   std::to_string(count) + " visible)");
  }
  if (spec.buffers < 2) return Status::InvalidArgument("CUDA sink: 'buffers' must be >= 2");
  auto sink = std::make_unique<CudaSink>(spec.device, spec.buffers);
  MR_RETURN_IF_ERROR(sink->Init());
  return std::unique_ptr<DeviceSink>(std::move(sink));
}

#endif  // MINDRECORD_HAVE_CUDA

}  // namespace mindrecord
