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
  (void)PickleToNdArrayU8((*root)->Get("data"), "data");
  for (const char* key : {"labels", "fine_labels", "coarse_labels"}) (void)PickleToIntList((*root)->Get(key), key);
  return 0;
}
