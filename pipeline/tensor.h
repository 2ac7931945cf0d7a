// Tensor: a typed, shaped, contiguous buffer flowing through the pipeline
// (decoded images, arrays read from the dataset, encoded bytes, batches).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "mindrecord/row_view.h"
#include "mindrecord/value.h"
#include "pipeline/shape.h"

namespace mindrecord {

// Element types. Values are frozen (used in plans and the Python binding).
enum class TensorType : uint8_t {
  kUInt8 = 0,
  kInt8 = 1,
  kInt16 = 2,
  kInt32 = 3,
  kInt64 = 4,
  kFloat32 = 5,
  kFloat64 = 6,
  kBytes = 7,   // opaque bytes (e.g. an encoded JPEG): 1-D, element size 1
  kString = 8,  // UTF-8 text: 1-D, element size 1
  kBool = 9,    // numpy's bool: one byte per element, 0 or 1
  kStrings = 10,  // an array of UTF-8 strings, shape() counting them (pipeline/strings.h)
};

size_t TensorTypeSize(TensorType t);
const char* TensorTypeName(TensorType t);
Result<TensorType> ParseTensorType(std::string_view name);

// Tensor buffers of at least kTensorPoolMinBytes come from a process-wide
// pool: when the last tensor using one goes, the buffer is kept (up to the
// pool's limit in cached bytes) and handed to the next tensor of the same
// size class (sizes rounded up to 4 classes per power of two, so at most 25%
// slack). Pipelines make and drop several such tensors per image and one
// batch-sized buffer per batch; reusing them keeps their pages mapped (and
// often in cache) instead of having the allocator map them afresh and the
// kernel fault and zero every page again.
// The limit follows the workload by default: the most pooled bytes in use at
// once since the limit was last set, at least kTensorPoolMinCapacity, so that
// every batch buffer a pipeline holds at once (queued, being built, with the
// consumer) is reused. What is in flight is capped by the plan (queue_bytes,
// max_batch_bytes), so the pool keeps at most as much again.
// Buffers of 2 MiB and more are aligned to 2 MiB and advised as huge-page
// memory (madvise MADV_HUGEPAGE; used where transparent huge pages are in
// "madvise" or "always" mode): a fresh batch buffer then faults once per
// 2 MiB rather than once per 4 KiB, which is most of a pipeline's first
// batches in a new process (a DataLoader worker, the first epoch).
// The process's malloc settings are not touched.
// Thread safety: all functions and buffer releases may run on any thread.
inline constexpr size_t kTensorPoolMinBytes = size_t{64} << 10;
inline constexpr size_t kTensorPoolMinCapacity = size_t{64} << 20;
inline constexpr size_t kTensorPoolAuto = SIZE_MAX;

struct TensorPoolStats {
  uint64_t hits = 0;              // pooled-size buffers served from the cache
  uint64_t misses = 0;            // pooled-size buffers newly allocated
  uint64_t cached_bytes = 0;      // bytes of free buffers held now
  uint64_t capacity = 0;          // the setting: kTensorPoolAuto or a fixed limit
  uint64_t limit = 0;             // the most cached bytes held now
  uint64_t live_bytes = 0;        // bytes of pooled buffers in use now
  uint64_t peak_live_bytes = 0;   // the most in use at once since the limit was set
};
TensorPoolStats GetTensorPoolStats();
// Sets the pool's limit on cached bytes: kTensorPoolAuto (the default)
// follows the workload as above; a number fixes it (0 turns caching off).
// Frees cached buffers over the new limit and restarts the peak count.
// Buffers in use are not affected.
void SetTensorPoolCapacity(size_t bytes);

// Thread safety: a value type. Copies share the buffer (copy-on-write is the
// caller's job: ops that modify in place call MutableData(), which clones a
// shared buffer first).
class Tensor {
 public:
  Tensor() = default;
  // Uninitialized storage for prod(shape) elements (the bytes are not zeroed:
  // writers fill every element).
  static Tensor Make(TensorType type, Shape shape);
  // A tensor over `data` (at least prod(shape) elements) that the caller
  // allocated, kept alive by `owner` and released with it when the last copy
  // of the tensor goes (e.g. a consumer's shared-memory segment). No copy.
  static Tensor Wrap(TensorType type, Shape shape, std::shared_ptr<void> owner, uint8_t* data);
  // A read-only tensor over `data` that someone else owns (e.g. a row's
  // bytes in a mapped shard: RowView::mapping()), kept alive by `owner`. No
  // copy; MutableData() copies it first, so ops that write in place never
  // write through to the owner's bytes.
  static Tensor View(TensorType type, Shape shape, std::shared_ptr<const void> owner,
                     const uint8_t* data);
  // A view tensor (View): its bytes must not be written through data().
  bool read_only() const { return read_only_; }
  // The owner of the bytes (for a View, the owner given to View): holding a
  // copy keeps data() valid. Tensors over one owner give owners that
  // SameOwner() tells apart from others without comparing addresses.
  std::shared_ptr<const void> owner() const { return buf_; }
  bool SameOwner(const Tensor& o) const { return !buf_.owner_before(o.buf_) && !o.buf_.owner_before(buf_); }
  // The deleter of the owner given to Wrap when it is of type D, else nullptr
  // (lets the owner's creator recognise its own buffers).
  template <typename D>
  D* owner_deleter() const { return std::get_deleter<D>(buf_); }
  static Tensor FromString(TensorType type, std::string bytes);  // kBytes or kString, 1-D
  // Scalars become 0-d tensors (int -> int64 or int32 per `field_type`, float
  // -> float32/float64), arrays keep their shape, bytes/string become 1-D.
  static Tensor FromValue(const Value& v, DataType field_type);

  // As FromValue for a field read without copying (ShardReader::ScanViews /
  // ReadRowViews): bytes, strings and arrays that lie in a mapped shard
  // (FieldView::mapped) become a View kept alive by `mapping`, no copy
  // (arrays only when their address is aligned to the element size); the
  // rest is copied once.
  static Tensor FromFieldView(const FieldView& f, const std::shared_ptr<const void>& mapping);

  TensorType type() const { return type_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const {
    return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<int64_t>());
  }
  size_t size_bytes() const { return size_; }
  const uint8_t* data() const { return buf_ ? buf_.get() + offset_ : nullptr; }
  uint8_t* MutableData();
  template <typename T>
  const T* data_as() const { return reinterpret_cast<const T*>(data()); }
  template <typename T>
  T* mutable_data_as() { return reinterpret_cast<T*>(MutableData()); }
  // Element i of the first dimension (shape()[1:]) over the same bytes,
  // sharing the buffer: no copy. `i` must be in [0, shape()[0]).
  Tensor Subtensor(int64_t i) const;
  // `type` and `shape` over the bytes from `offset` on, sharing the buffer
  // (and read_only()): no copy. Those bytes must lie within size_bytes().
  Tensor Region(size_t offset, TensorType type, Shape shape) const;
  // Same bytes, new shape with the same element count (a count mismatch gives
  // an undefined Tensor).
  Tensor Reshaped(Shape shape) const;
  // These bytes (laid out as pipeline/strings.h says) as a kStrings tensor
  // of `shape`, sharing the buffer: no copy. Make, Subtensor and Region do
  // not apply to kStrings (their sizes are not element counts): Subtensor
  // and Region of one give an undefined Tensor.
  Tensor AsStrings(Shape shape) const;
  // A tensor of its own with the same type, shape and bytes (any type,
  // kStrings included): a copy that shares nothing.
  Tensor Copy() const;
  std::string DebugString() const;
  bool defined() const { return buf_ != nullptr; }

 private:
  TensorType type_ = TensorType::kUInt8;
  Shape shape_;
  std::shared_ptr<uint8_t[]> buf_;  // heap block (Make) or aliasing an external owner (Wrap)
  size_t capacity_ = 0;              // bytes at buf_
  size_t offset_ = 0;
  size_t size_ = 0;
  bool read_only_ = false;  // View: MutableData() copies first
};

}  // namespace mindrecord
