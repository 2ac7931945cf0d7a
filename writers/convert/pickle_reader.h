// A strict, bounds-checked reader for the subset of Python's pickle format
// that CIFAR-10/100 "python version" batches use (protocols 2-4: dicts,
// lists, tuples, ints, bytes/str, numpy arrays via _reconstruct / BUILD).
// It builds a tree of values and never executes anything: GLOBAL/REDUCE are
// recorded as data and only numpy's array reconstruction is interpreted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord::convert {

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

// Thread safety: plain data; a parsed tree may be read from many threads.
struct PickleValue {
  enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kBytes, kStr, kList, kTuple, kDict, kGlobal, kReduce };
  Kind kind = Kind::kNone;
  int64_t i = 0;                // kBool, kInt
  double f = 0;                 // kFloat
  std::string s;                // kBytes, kStr (UTF-8), kGlobal ("module name")
  std::vector<PickleRef> items; // kList, kTuple; kDict: key, value, key, value...; kReduce: callable, args
  PickleRef state;              // kReduce: the BUILD state, if any
  uint32_t depth = 1;           // nesting depth of this value's tree (bounded by the parser)
  bool contained = false;       // already inside another value: the parser refuses to mutate it

  // Dict lookup by a str or bytes key equal to `key`; nullptr when absent.
  PickleRef Get(std::string_view key) const;
};

// Parses one pickle. `file` names the source in error messages.
Result<PickleRef> ParsePickle(std::string_view data, const std::string& file);

// A numpy ndarray of uint8 reconstructed from a pickle value.
struct NdArrayU8 {
  std::vector<int64_t> shape;
  std::string data;  // C order
};
// Interprets numpy.core.multiarray._reconstruct(...) + BUILD state. Only
// dtype uint8 ('u1') in C order is accepted; anything else is NotSupported.
Result<NdArrayU8> PickleToNdArrayU8(const PickleRef& v, const std::string& what);

// Interprets a list of ints (e.g. CIFAR labels).
Result<std::vector<int64_t>> PickleToIntList(const PickleRef& v, const std::string& what);

}  // namespace mindrecord::convert
