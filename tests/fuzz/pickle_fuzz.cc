// The pickle reader (CIFAR python batches), in memory: parse, then interpret
// 'data' as a uint8 ndarray and the label lists as ints, as the CIFAR
// converter does.
#include <string_view>

#include "writers/convert/pickle_reader.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord::convert;

MINDRECORD_FUZZ_TARGET(pickle) {
  auto root = ParsePickle(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!root.ok() || !*root) return 0;
  if ((*root)->kind != PickleValue::Kind::kDict) return 0;
  auto arr = PickleToNdArrayU8((*root)->Get("data"), "data");
  if (arr.ok()) {
    // The array's bytes are exactly the product of its dimensions.
    uint64_t count = 1;
    for (int64_t d : arr->shape)
      if (d < 0 || __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) __builtin_trap();
    if (count != arr->data.size()) __builtin_trap();
  }
  for (const char* key : {"labels", "fine_labels", "coarse_labels"}) (void)PickleToIntList((*root)->Get(key), key);
  return 0;
}
