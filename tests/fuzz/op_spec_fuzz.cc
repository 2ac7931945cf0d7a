// The tensor ops (pipeline/ops) on tensors a dataset could hold: any element
// type, rank 0-4, dimensions 0-32, NaN / infinities / extreme values, inputs
// that are read-only views (as rows of a mapped shard are), under any spec.
// Input: byte 0 seeds the values and the op's generator; then three 6-byte
// tensor descriptions (type, rank | 0x80 for a read-only view, four
// dimensions; type 10 is an array of strings, some not UTF-8), one per
// input column the op takes; the rest is the op's JSON
// spec. A spec is made into an op (any numbers); the op runs only when every
// number in it lies in [-512, 512], which bounds what it may allocate. Any
// input gives a result or an error, never a crash, undefined behaviour, a
// write into a read-only input, or a read outside a tensor.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/json_guard.h"
#include "pipeline/ops/op.h"
#include "pipeline/strings.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

using mindrecord::Tensor;
using mindrecord::TensorType;

constexpr size_t kDescBytes = 6;
constexpr size_t kInputs = 3;
constexpr size_t kHeader = 1 + kDescBytes * kInputs;
constexpr double kRunBound = 512;

// Pages mapped read-only after filling: an op that writes into its input
// (which a mapped shard's rows forbid) faults. The view tensors own them.
struct ReadOnlyPages {
  void* p = MAP_FAILED;
  size_t n = 0;
  ReadOnlyPages() = default;
  ReadOnlyPages(const ReadOnlyPages&) = delete;
  ReadOnlyPages& operator=(const ReadOnlyPages&) = delete;
  ~ReadOnlyPages() {
    if (p != MAP_FAILED) munmap(p, n);
  }
};

bool Bounded(const nlohmann::json& j) {
  if (j.is_number()) return std::fabs(j.get<double>()) <= kRunBound;
  if (j.is_array() || j.is_object()) {
    for (const auto& v : j)
      if (!Bounded(v)) return false;
  }
  return true;
}

template <typename T>
void FillNumbers(uint8_t* dst, size_t n, std::mt19937_64& rng, bool extreme) {
  for (size_t i = 0; i < n; ++i) {
    T v;
    const uint64_t r = rng();
    if (extreme && r % 7 == 0) {
      if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
        const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                              -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::max(),
                              std::numeric_limits<T>::lowest(), T(-0.0)};
        v = specials[(r >> 8) % std::size(specials)];
      } else {
        v = (r >> 8) % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
      }
    } else if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(static_cast<double>(r % 100000) / 100.0 - 200.0);
    } else {
      v = static_cast<T>(r);
    }
    std::memcpy(dst + i * sizeof(T), &v, sizeof(T));
  }
}

// The tensor described by `d` (6 bytes), its values drawn from `rng`.
Tensor MakeInput(const uint8_t* d, std::mt19937_64& rng, bool extreme) {
  const auto type = static_cast<TensorType>(d[0] % 11);
  const bool view = (d[1] & 0x80) != 0;
  const bool text = type == TensorType::kBytes || type == TensorType::kString;
  const bool strings = type == TensorType::kStrings;
  const int rank = text ? 1 : strings ? d[1] % 3 : d[1] % 5;
  mindrecord::Shape shape;
  int64_t elems = 1;
  for (int i = 0; i < rank; ++i) {
    shape.push_back(d[2 + i] % 33);
    elems *= shape.back();
  }
  size_t bytes = static_cast<size_t>(elems) * mindrecord::TensorTypeSize(type);
  std::vector<uint8_t> data(bytes);
  if (strings) {  // strings of 0-15 bytes: mostly ASCII words and spaces, some any byte (not UTF-8)
    mindrecord::StringsBuilder b;
    std::string s;
    for (int64_t i = 0; i < elems; ++i) {
      s.clear();
      for (uint64_t k = 0, n = rng() % 16; k < n; ++k) {
        const uint64_t r = rng();
        s.push_back(r % 8 == 0 ? ' ' : r % 8 == 1 ? static_cast<char>(r >> 8) : static_cast<char>('a' + (r >> 8) % 4));
      }
      b.Add(s);
    }
    Tensor t = b.Finish(shape);
    bytes = t.size_bytes();
    data.assign(t.data(), t.data() + bytes);
    if (!view) return t;
  }
  switch (type) {
    case TensorType::kUInt8: FillNumbers<uint8_t>(data.data(), elems, rng, extreme); break;
    case TensorType::kInt8: FillNumbers<int8_t>(data.data(), elems, rng, extreme); break;
    case TensorType::kInt16: FillNumbers<int16_t>(data.data(), elems, rng, extreme); break;
    case TensorType::kInt32: FillNumbers<int32_t>(data.data(), elems, rng, extreme); break;
    case TensorType::kInt64: FillNumbers<int64_t>(data.data(), elems, rng, extreme); break;
    case TensorType::kFloat32: FillNumbers<float>(data.data(), elems, rng, extreme); break;
    case TensorType::kFloat64: FillNumbers<double>(data.data(), elems, rng, extreme); break;
    case TensorType::kBool:
      for (auto& b : data) b = rng() & 1;
      break;
    default:  // bytes, string: any bytes (a string field of a hostile file need not be UTF-8)
      for (auto& b : data) b = static_cast<uint8_t>(rng());
  }
  if (!view) {
    Tensor t = text ? Tensor::FromString(type, std::string(data.begin(), data.end())) : Tensor::Make(type, shape);
    if (!text && bytes) std::memcpy(t.MutableData(), data.data(), bytes);
    return t;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto ro = std::make_shared<ReadOnlyPages>();
  ro->n = std::max(page, (bytes + page - 1) / page * page);
  ro->p = mmap(nullptr, ro->n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ro->p == MAP_FAILED) std::abort();
  // The view ends where its pages end, so a read past it faults as well.
  auto* at = static_cast<uint8_t*>(ro->p) + (ro->n - bytes);
  if (bytes) std::memcpy(at, data.data(), bytes);
  mprotect(ro->p, ro->n, PROT_READ);
  if (strings) return Tensor::View(TensorType::kUInt8, {static_cast<int64_t>(bytes)}, ro, at).AsStrings(shape);
  return Tensor::View(type, shape, ro, at);
}

// Reads every byte of a result, so that a result over freed or foreign
// memory shows under AddressSanitizer.
void Touch(const Tensor& t) {
  if (!t.defined()) return;
  volatile uint8_t sum = 0;
  const uint8_t* p = t.data();
  for (size_t i = 0; i < t.size_bytes(); ++i) sum = sum + p[i];
}

}  // namespace

MINDRECORD_FUZZ_TARGET(op_spec) {
  if (size < kHeader + 2) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + kHeader, size - kHeader);
  // Specs come from the user's own code: bound their nesting as the library
  // bounds untrusted JSON, so that the harness tests the ops, not the parser.
  if (!mindrecord::CheckJsonShape(text, "spec", mindrecord::JsonLimits{16, 10000}).ok()) return 0;
  const nlohmann::json spec = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) return 0;
  auto op = mindrecord::MakeOp(spec);
  if (!op.ok() || !Bounded(spec)) return 0;
  const int n = (*op)->num_inputs();
  if (n < 1 || n > static_cast<int>(kInputs)) return 0;
  std::mt19937_64 values(data[0]);
  std::vector<Tensor> inputs;
  for (int i = 0; i < n; ++i) inputs.push_back(MakeInput(data + 1 + kDescBytes * i, values, data[0] & 1));
  // As the runtime does: arrays of strings go only to ops that take them.
  if (!mindrecord::CheckStringInputs(**op, inputs.data(), inputs.size()).ok()) return 0;
  std::mt19937_64 rng(data[0]);
  if (n == 1 && (*op)->num_outputs() == 1) {
    auto out = (*op)->Apply(std::move(inputs[0]), rng);
    if (out.ok()) Touch(*out);
    return 0;
  }
  auto outs = (*op)->ApplyColumns(std::move(inputs), rng);
  if (outs.ok())
    for (const Tensor& t : *outs) Touch(t);
  return 0;
}
