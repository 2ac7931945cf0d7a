// Scalars and element helpers of the general tensor ops (Fill, Mask, PadEnd,
// Slice, Concatenate, Unique): a typed scalar parameter as Python gave it,
// the element conversion MindSpore applies to it (its TypeCast, a C++
// static_cast, made total), and a visitor over the numeric element types.
// Thread safety: plain values and reentrant functions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

// One element converted to T as a C++ static_cast does, with the cases the
// cast leaves undefined given a value: float -> integer truncates toward
// zero and saturates (NaN -> 0); integer -> integer wraps (two's
// complement); anything -> bool is `v != 0` (NaN is true); bool is 0 / 1.
template <typename T, typename S>
T CastElement(S v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<S>) {
    if (std::isnan(v)) return 0;
    const S r = std::trunc(v);
    if (r <= static_cast<S>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (r >= static_cast<S>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return static_cast<T>(v);
  }
}

// A scalar parameter: int (int64), float (double), bool or text. JSON: a
// number, true / false, a string, or {"float": "nan" | "inf" | "-inf"} for
// the floats JSON numbers cannot hold.
struct Scalar {
  enum class Kind : uint8_t { kInt, kFloat, kBool, kText };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string text;

  bool is_text() const { return kind == Kind::kText; }
  // The number as T (CastElement's rules). Not for text.
  template <typename T>
  T As() const {
    switch (kind) {
      case Kind::kFloat:
        return CastElement<T>(f);
      case Kind::kBool:
        return CastElement<T>(b);
      default:
        return CastElement<T>(i);
    }
  }
  nlohmann::json ToJson() const;
  std::string DebugString() const;  // as Python writes it: 3, 2.5, True, 'text'
};

// `v` as a Scalar; InvalidArgument naming `op` and `key` otherwise (integers
// must fit int64).
Result<Scalar> ParseScalar(const nlohmann::json& v, const std::string& op, const std::string& key);

// True for the numeric element types, bool included (not bytes, not string).
bool IsNumericType(TensorType t);

// `t` as MindSpore holds it: a bytes value (e.g. a MindRecord bytes field)
// is a 1-D uint8 array, the same bytes, no copy. Other tensors unchanged.
Tensor AsMindSporeArray(const Tensor& t);

// Element i of a numeric tensor's bytes as T (a bool byte reads as != 0).
template <typename T>
T LoadElement(const uint8_t* data, int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return data[i] != 0;
  } else {
    return reinterpret_cast<const T*>(data)[i];
  }
}

// Calls f(T{}) with T the element type of numeric type t (bool for kBool,
// stored as one byte 0 / 1). t must be numeric.
template <typename F>
decltype(auto) VisitNumeric(TensorType t, F&& f) {
  switch (t) {
    case TensorType::kBool:
      return f(bool{});
    case TensorType::kInt8:
      return f(int8_t{});
    case TensorType::kInt16:
      return f(int16_t{});
    case TensorType::kInt32:
      return f(int32_t{});
    case TensorType::kInt64:
      return f(int64_t{});
    case TensorType::kFloat32:
      return f(float{});
    case TensorType::kFloat64:
      return f(double{});
    default:
      return f(uint8_t{});
  }
}

// Sets all n elements at `data` to v (bool as 0 / 1 bytes).
template <typename T>
void FillElements(uint8_t* data, int64_t n, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    std::fill(data, data + n, static_cast<uint8_t>(v));
  } else {
    T* p = reinterpret_cast<T*>(data);
    std::fill(p, p + n, v);
  }
}

}  // namespace mindrecord::ops
