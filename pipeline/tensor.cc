// Tensor: element types, construction from dataset values, copy-on-write.
#include "pipeline/tensor.h"

#include <algorithm>
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
    {TensorType::kString, "string", 1},
};

// Default-initialized: large buffers are written once by their producer, so
// zeroing them first would cost a full extra pass (and its page faults).
std::shared_ptr<uint8_t[]> NewBuffer(size_t n) { return std::make_shared_for_overwrite<uint8_t[]>(n); }

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
    if (name == i.name) return i.type;
  if (name == "float") return TensorType::kFloat32;
  if (name == "double") return TensorType::kFloat64;
  return Status::InvalidArgument("unknown tensor type '" + std::string(name) +
                                 "' (expected uint8, int8, int16, int32, int64, float32, float64, bytes, string)");
}

Tensor Tensor::Make(TensorType type, std::vector<int64_t> shape) {
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

Tensor Tensor::Wrap(TensorType type, std::vector<int64_t> shape, std::shared_ptr<void> owner, uint8_t* data) {
  Tensor t;
  t.type_ = type;
  t.shape_ = std::move(shape);
  const int64_t n = std::max<int64_t>(0, t.num_elements());
  t.size_ = static_cast<size_t>(n) * TensorTypeSize(type);
  t.capacity_ = t.size_;
  t.buf_ = std::shared_ptr<uint8_t[]>(std::move(owner), data);
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
      return FromString(TensorType::kString, v.bytes());
    case Value::Kind::kBytes:
      return FromString(TensorType::kBytes, v.bytes());
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

uint8_t* Tensor::MutableData() {
  if (!buf_) return nullptr;
  if (buf_.use_count() > 1 || offset_ != 0 || capacity_ != size_) {
    auto copy = NewBuffer(size_);
    if (size_) std::memcpy(copy.get(), buf_.get() + offset_, size_);
    buf_ = std::move(copy);
    capacity_ = size_;
    offset_ = 0;
  }
  return buf_.get();
}

Tensor Tensor::Reshaped(std::vector<int64_t> shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  if (t.num_elements() != num_elements()) return Tensor();
  return t;
}

std::string Tensor::DebugString() const {
  std::ostringstream os;
  os << "Tensor<" << TensorTypeName(type_) << ">[";
  for (size_t i = 0; i < shape_.size(); ++i) os << (i ? "," : "") << shape_[i];
  os << "]";
  if (!defined()) os << "(undefined)";
  return os.str();
}

}  // namespace mindrecord
