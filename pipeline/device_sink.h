// Device sink: copies batches from host memory to accelerator memory through
// pinned staging buffers, overlapping the copy with the preparation of the next
// batch. The CUDA implementation is built with -DMINDRECORD_WITH_CUDA=ON
// (MINDRECORD_HAVE_CUDA); otherwise, or with no usable GPU at run time,
// MakeCudaSink returns NotSupported saying which.
#pragma once

#include <memory>
#include <string>

#include "mindrecord/status.h"
#include "pipeline/batch.h"
#include "pipeline/plan.h"

namespace mindrecord {

// Thread safety: Launch and WaitOldest are for the thread that calls
// Pipeline::Next; the byte counters may be read from any thread.
class DeviceSink {
 public:
  virtual ~DeviceSink() = default;
  // Starts copying the contiguous columns of `batch` into the next of the
  // sink's buffer sets (waiting first until that set's previous copy is done)
  // and sets each such column's `device_data`. List columns stay on the host.
  virtual Status Launch(Batch* batch) = 0;
  // Blocks until the oldest launched batch's copy has completed.
  virtual Status WaitOldest() = 0;
  // Bytes copied to the device so far, and the part of them that was first
  // copied into a pinned staging buffer because it was in pageable memory.
  virtual uint64_t bytes_copied() const = 0;
  virtual uint64_t bytes_staged() const = 0;
};

// True when this build has CUDA and a device is visible; otherwise false with
// the reason in *why.
bool CudaSinkAvailable(std::string* why);

// A sink with spec.buffers buffer sets on device spec.device. The device copy
// of a batch stays valid until Next() has been called spec.buffers - 1 more
// times, and never past the pipeline's destruction. Columns in pinned memory
// (PinnedPool) are copied by DMA straight from the batch; others are staged.
Result<std::unique_ptr<DeviceSink>> MakeCudaSink(const SinkSpec& spec);

}  // namespace mindrecord
