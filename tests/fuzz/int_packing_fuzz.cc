// v3.0 integer-array packing: unpacking is bounds-checked, and what unpacks
// packs and unpacks back to the same elements. First byte: element size
// (bit 0: 8 bytes, else 4); the rest is the packed column.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "mindrecord/int_packing.h"
#include "tests/fuzz/fuzz_target.h"

MINDRECORD_FUZZ_TARGET(int_packing) {
  if (size < 1) return 0;
  const size_t elem = (data[0] & 1) ? 8 : 4;
  std::string_view packed(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto elems = mindrecord::UnpackIntegers(packed, elem);
  if (!elems.ok()) return 0;
  if (elems->size() % elem != 0) {
    std::fprintf(stderr, "unpacked %zu bytes, not a multiple of %zu\n", elems->size(), elem);
    std::abort();
  }
  const std::string repacked = mindrecord::PackIntegers(*elems, elem);
  auto back = mindrecord::UnpackIntegers(repacked, elem);
  if (!back.ok() || *back != *elems) {
    std::fprintf(stderr, "pack/unpack round trip differs\n");
    std::abort();
  }
  return 0;
}
