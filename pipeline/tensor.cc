// Tensor: element types, construction from dataset values, copy-on-write.
#include "pipeline/tensor.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <bit>
#include <mutex>
#include <new>
#include <sstream>

namespace mindrecord {

namespace {

struct TypeInfo {
  TensorType type;
  const char* name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {
    {TensorType::kUInt8, "uint8", 1},     {TensorType::kInt8, "int8", 1},
    {TensorType::kInt16, "int16", 2},     {TensorType::kInt32, "int32", 4},
    {TensorType::kInt64, "int64", 8},     {TensorType::kFloat32, "float32", 4},
    {TensorType::kFloat64, "float64", 8}, {TensorType::kBytes, "bytes", 1},
    {TensorType::kString, "string", 1},   {TensorType::kBool, "bool", 1},
    {TensorType::kStrings, "strings", 1},
};

// Size classes of pooled buffers: 4 per power of two from
// kTensorPoolMinBytes up; class i holds ClassBytes(i) bytes.
constexpr int kMinLog2 = std::countr_zero(kTensorPoolMinBytes);
constexpr int kClasses = (48 - kMinLog2) * 4;
constexpr std::align_val_t kAlign{64};
// Buffers of at least one huge page are aligned to it and advised to the
// kernel as huge-page memory (transparent huge pages in "madvise" mode, the
// common default): a fresh batch buffer then costs one page fault per 2 MiB
// instead of one per 4 KiB. On a virtual machine a fault costs ~13 µs here
// (a fresh 19 MB batch buffer: ~60 ms of faults).
constexpr size_t kHugePage = size_t{2} << 20;

std::align_val_t AlignOf(size_t bytes) { return bytes >= kHugePage ? std::align_val_t{kHugePage} : kAlign; }

uint8_t* Allocate(size_t bytes) {
  auto* p = static_cast<uint8_t*>(::operator new(bytes, AlignOf(bytes)));
  if (bytes >= kHugePage) madvise(p, bytes & ~(kHugePage - 1), MADV_HUGEPAGE);  // advice: failure is harmless
  return p;
}

void Free(uint8_t* p, size_t bytes) { ::operator delete(p, AlignOf(bytes)); }

size_t ClassBytes(int i) {
  const size_t base = size_t{1} << (kMinLog2 + i / 4);
  return base + (base / 4) * static_cast<size_t>(i % 4);
}

// The smallest class holding n (>= kTensorPoolMinBytes) bytes, or -1 past
// the last class.
int ClassOf(size_t n) {
  const int k = std::bit_width(n) - 1;  // 2^k <= n < 2^(k+1)
  const size_t base = size_t{1} << k, step = base / 4;
  const int i = (k - kMinLog2) * 4 + static_cast<int>((n - base + step - 1) / step);
  return i < kClasses ? i : -1;
}

// Free buffers by size class, up to Limit() bytes in all. Buffers released
// when the cache is full evict other classes' buffers first (the workload's
// sizes may have changed), else are freed.
class BufferPool {
 public:
  // Never destroyed: tensors may be released during static destruction.
  static BufferPool& Get() {
    static BufferPool* pool = new BufferPool();
    return *pool;
  }

  std::shared_ptr<uint8_t[]> Take(int cls) {
    uint8_t* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[cls];
      if (!list.empty()) {
        p = list.back();
        list.pop_back();
        cached_ -= ClassBytes(cls);
        hits_++;
      } else {
        misses_++;
      }
      live_ += ClassBytes(cls);
      peak_live_ = std::max(peak_live_, live_);
    }
    if (p == nullptr) p = Allocate(ClassBytes(cls));
    return std::shared_ptr<uint8_t[]>(p, Release{cls});
  }

  void Give(uint8_t* p, int cls) {
    const size_t bytes = ClassBytes(cls);
    std::vector<std::pair<uint8_t*, size_t>> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_ -= bytes;
      const size_t limit = Limit();
      for (int i = kClasses - 1; i >= 0 && bytes <= limit && cached_ + bytes > limit; --i) {
        if (i == cls) continue;
        while (!free_[i].empty() && cached_ + bytes > limit) {
          evicted.emplace_back(free_[i].back(), ClassBytes(i));
          free_[i].pop_back();
          cached_ -= ClassBytes(i);
        }
      }
      if (cached_ + bytes <= limit) {
        free_[cls].push_back(p);
        cached_ += bytes;
        p = nullptr;
      }
    }
    if (p != nullptr) Free(p, bytes);
    for (const auto& [q, n] : evicted) Free(q, n);
  }

  TensorPoolStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return TensorPoolStats{hits_, misses_, cached_, capacity_, Limit(), live_, peak_live_};
  }

  void SetCapacity(size_t bytes) {
    std::vector<std::pair<uint8_t*, size_t>> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      capacity_ = bytes;
      peak_live_ = live_;
      const size_t limit = Limit();
      for (int i = kClasses - 1; i >= 0 && cached_ > limit; --i) {
        while (!free_[i].empty() && cached_ > limit) {
          evicted.emplace_back(free_[i].back(), ClassBytes(i));
          free_[i].pop_back();
          cached_ -= ClassBytes(i);
        }
      }
    }
    for (const auto& [p, n] : evicted) Free(p, n);
  }

 private:
  struct Release {
    int cls;
    void operator()(uint8_t* p) const { BufferPool::Get().Give(p, cls); }
  };

  BufferPool() {
    // A fork while another thread holds mu_ would leave it locked forever in
    // the child (DataLoader workers are forked): hold it across fork().
    pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); }, [] { Get().mu_.unlock(); });
  }

  // Under mu_.
  size_t Limit() const {
    return capacity_ == kTensorPoolAuto ? std::max(kTensorPoolMinCapacity, peak_live_) : capacity_;
  }

  std::mutex mu_;
  std::array<std::vector<uint8_t*>, kClasses> free_;
  size_t cached_ = 0;
  size_t capacity_ = kTensorPoolAuto;
  size_t live_ = 0, peak_live_ = 0;  // bytes of pooled buffers handed out
  uint64_t hits_ = 0, misses_ = 0;
};

// Not zeroed: large buffers are written once by their producer, so zeroing
// them first would cost a full extra pass. Large ones come from the pool.
std::shared_ptr<uint8_t[]> NewBuffer(size_t n) {
  if (n >= kTensorPoolMinBytes) {
    const int cls = ClassOf(n);
    if (cls >= 0) return BufferPool::Get().Take(cls);
  }
  return std::make_shared_for_overwrite<uint8_t[]>(n);
}

TensorType FromDataType(DataType t) {
  switch (t) {
    case DataType::kInt32: return TensorType::kInt32;
    case DataType::kInt64: return TensorType::kInt64;
    case DataType::kFloat32: return TensorType::kFloat32;
    case DataType::kFloat64: return TensorType::kFloat64;
    case DataType::kString: return TensorType::kString;
    case DataType::kBytes: return TensorType::kBytes;
  }
  return TensorType::kBytes;
}

}  // namespace

TensorPoolStats GetTensorPoolStats() { return BufferPool::Get().Stats(); }

void SetTensorPoolCapacity(size_t bytes) { BufferPool::Get().SetCapacity(bytes); }

size_t TensorTypeSize(TensorType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i.size;
  return 1;
}

const char* TensorTypeName(TensorType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i.name;
  return "unknown";
}

Result<TensorType> ParseTensorType(std::string_view name) {
  for (const auto& i : kTypes)
    if (name == i.name && i.type != TensorType::kStrings) return i.type;
  if (name == "float") return TensorType::kFloat32;
  if (name == "double") return TensorType::kFloat64;
  return Status::InvalidArgument("unknown tensor type '" + std::string(name) +
                                 "' (expected bool, uint8, int8, int16, int32, int64, float32, float64, bytes, string)");
}

Tensor Tensor::Make(TensorType type, Shape shape) {
  Tensor t;
  t.type_ = type;
  t.shape_ = std::move(shape);
  int64_t n = t.num_elements();
  if (n < 0) n = 0;
  t.size_ = static_cast<size_t>(n) * TensorTypeSize(type);
  t.buf_ = NewBuffer(t.size_);
  t.capacity_ = t.size_;
  return t;
}

Tensor Tensor::Wrap(TensorType type, Shape shape, std::shared_ptr<void> owner, uint8_t* data) {
  Tensor t;
  t.type_ = type;
  t.shape_ = std::move(shape);
  const int64_t n = std::max<int64_t>(0, t.num_elements());
  t.size_ = static_cast<size_t>(n) * TensorTypeSize(type);
  t.capacity_ = t.size_;
  t.buf_ = std::shared_ptr<uint8_t[]>(std::move(owner), data);
  return t;
}

Tensor Tensor::View(TensorType type, Shape shape, std::shared_ptr<const void> owner,
                    const uint8_t* data) {
  Tensor t = Wrap(type, std::move(shape), std::const_pointer_cast<void>(std::move(owner)), const_cast<uint8_t*>(data));
  t.read_only_ = true;
  return t;
}

Tensor Tensor::FromString(TensorType type, std::string bytes) {
  Tensor t;
  t.type_ = type;
  t.shape_ = {static_cast<int64_t>(bytes.size())};
  t.size_ = bytes.size();
  t.capacity_ = t.size_;
  t.buf_ = NewBuffer(t.size_);
  if (t.size_) std::memcpy(t.buf_.get(), bytes.data(), t.size_);
  return t;
}

Tensor Tensor::FromValue(const Value& v, DataType field_type) {
  auto scalar = [](TensorType type, const void* p) {
    Tensor t = Make(type, {});
    std::memcpy(t.buf_.get(), p, t.size_);
    return t;
  };
  switch (v.kind()) {
    case Value::Kind::kNull:
      return Tensor();
    case Value::Kind::kInt: {
      if (field_type == DataType::kInt32) {
        int32_t x = static_cast<int32_t>(v.as_int());
        return scalar(TensorType::kInt32, &x);
      }
      if (IsFloatType(field_type)) break;  // handled as float below
      int64_t x = v.as_int();
      return scalar(TensorType::kInt64, &x);
    }
    case Value::Kind::kFloat:
      break;
    case Value::Kind::kString:
    case Value::Kind::kBytes: {
      // Copied once into the tensor's buffer (FromString would copy into
      // its argument first).
      const std::string& b = v.bytes();
      Tensor t = Make(v.kind() == Value::Kind::kString ? TensorType::kString : TensorType::kBytes,
                      {static_cast<int64_t>(b.size())});
      if (!b.empty()) std::memcpy(t.buf_.get(), b.data(), b.size());
      return t;
    }
    case Value::Kind::kArray: {
      Tensor t;
      t.type_ = FromDataType(v.array_dtype());
      t.shape_ = v.shape();
      const std::string& b = v.bytes();
      // An array's declared shape may hold -1; the element count is the truth.
      int64_t n = static_cast<int64_t>(b.size() / TensorTypeSize(t.type_));
      if (t.num_elements() != n) t.shape_ = {n};
      t.size_ = b.size();
      t.capacity_ = t.size_;
      t.buf_ = NewBuffer(t.size_);
      if (t.size_) std::memcpy(t.buf_.get(), b.data(), t.size_);
      return t;
    }
  }
  if (field_type == DataType::kFloat32) {
    float x = static_cast<float>(v.as_float());
    return scalar(TensorType::kFloat32, &x);
  }
  double x = v.as_float();
  return scalar(TensorType::kFloat64, &x);
}

Tensor Tensor::FromFieldView(const FieldView& f, const std::shared_ptr<const void>& mapping) {
  auto copy = [](TensorType type, Shape shape, std::string_view bytes) {
    Tensor t = Make(type, std::move(shape));
    if (!bytes.empty()) std::memcpy(t.buf_.get(), bytes.data(), bytes.size());
    return t;
  };
  const DataType field_type = f.field->type;
  switch (f.kind) {
    case Value::Kind::kNull:
      return Tensor();
    case Value::Kind::kInt: {
      if (field_type == DataType::kInt32) {
        const int32_t x = static_cast<int32_t>(f.i);
        return copy(TensorType::kInt32, {}, std::string_view(reinterpret_cast<const char*>(&x), 4));
      }
      if (IsFloatType(field_type)) break;
      return copy(TensorType::kInt64, {}, std::string_view(reinterpret_cast<const char*>(&f.i), 8));
    }
    case Value::Kind::kFloat:
      break;
    case Value::Kind::kString:
    case Value::Kind::kBytes: {
      const TensorType type = f.kind == Value::Kind::kString ? TensorType::kString : TensorType::kBytes;
      Shape shape = {static_cast<int64_t>(f.data.size())};
      if (f.mapped && mapping) {
        return View(type, std::move(shape), mapping, reinterpret_cast<const uint8_t*>(f.data.data()));
      }
      return copy(type, std::move(shape), f.data);
    }
    case Value::Kind::kArray: {
      const TensorType type = FromDataType(field_type);
      const size_t es = TensorTypeSize(type);
      Shape shape = f.shape;
      const auto n = static_cast<int64_t>(f.data.size() / es);
      if (std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>()) != n) shape = {n};
      if (f.mapped && mapping && reinterpret_cast<uintptr_t>(f.data.data()) % es == 0) {
        return View(type, std::move(shape), mapping, reinterpret_cast<const uint8_t*>(f.data.data()));
      }
      return copy(type, std::move(shape), f.data);
    }
  }
  const double d = f.kind == Value::Kind::kInt ? static_cast<double>(f.i) : f.f;
  if (field_type == DataType::kFloat32) {
    const float x = static_cast<float>(d);
    return copy(TensorType::kFloat32, {}, std::string_view(reinterpret_cast<const char*>(&x), 4));
  }
  return copy(TensorType::kFloat64, {}, std::string_view(reinterpret_cast<const char*>(&d), 8));
}

uint8_t* Tensor::MutableData() {
  if (!buf_) return nullptr;
  if (read_only_ || buf_.use_count() > 1 || offset_ != 0 || capacity_ != size_) {
    auto copy = NewBuffer(size_);
    if (size_) std::memcpy(copy.get(), buf_.get() + offset_, size_);
    buf_ = std::move(copy);
    capacity_ = size_;
    offset_ = 0;
    read_only_ = false;
  }
  return buf_.get();
}

Tensor Tensor::Subtensor(int64_t i) const {
  if (type_ == TensorType::kStrings || shape_.empty() || i < 0 || i >= shape_[0]) return Tensor();
  Tensor t = *this;
  t.shape_.assign(shape_.begin() + 1, shape_.end());
  t.size_ = size_ / static_cast<size_t>(shape_[0]);
  t.offset_ = offset_ + static_cast<size_t>(i) * t.size_;
  return t;
}

Tensor Tensor::Region(size_t offset, TensorType type, Shape shape) const {
  if (type == TensorType::kStrings || type_ == TensorType::kStrings) return Tensor();
  Tensor t = *this;
  t.type_ = type;
  t.shape_ = std::move(shape);
  t.size_ = static_cast<size_t>(std::max<int64_t>(0, t.num_elements())) * TensorTypeSize(type);
  if (offset > size_ || t.size_ > size_ - offset) return Tensor();
  t.offset_ = offset_ + offset;
  return t;
}

Tensor Tensor::Reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  if (t.num_elements() != num_elements()) return Tensor();
  return t;
}

Tensor Tensor::AsStrings(Shape shape) const {
  Tensor t = *this;
  t.type_ = TensorType::kStrings;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::Copy() const {
  if (!defined()) return Tensor();
  Tensor t = Make(type_ == TensorType::kStrings ? TensorType::kUInt8 : type_,
                  type_ == TensorType::kStrings ? Shape{static_cast<int64_t>(size_)} : shape_);
  if (size_) std::memcpy(t.buf_.get(), data(), size_);
  return type_ == TensorType::kStrings ? t.AsStrings(shape_) : t;
}

std::string Tensor::DebugString() const {
  std::ostringstream os;
  os << "Tensor<" << TensorTypeName(type_) << ">" << ShapeString(shape_);
  if (!defined()) os << "(undefined)";
  return os.str();
}

}  // namespace mindrecord
