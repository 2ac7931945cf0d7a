// v3.0 integer-array packing: a 4-byte big-endian element count, a bitmap of
// ceil(n/4) bytes with 2 bits per element (MSB first: element i at shift
// 2*(3 - i%4); 0=int8 1=int16 2=int32 3=int64), then each element in that
// width, little-endian, sign-extended on unpack.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord {

// `elems` holds n little-endian elements of `elem_size` (4 or 8) bytes.
std::string PackIntegers(std::string_view elems, size_t elem_size);
// Inverse of PackIntegers; every read is bounds-checked, and a value that
// does not fit `elem_size` is Corruption.
Result<std::string> UnpackIntegers(std::string_view packed, size_t elem_size);

}  // namespace mindrecord
