// The small mixed schema the core tests write: an int64 id, a string name
// (raw part), a bytes image and an int32 array (blob part).
#pragma once

#include <cstddef>
#include <string>

#include "mindrecord/schema.h"
#include "mindrecord/value.h"

namespace mindrecord::testing {

inline Schema IdNameImgSchema() {
  return *Schema::FromUserJsonString(
      R"({"id":{"type":"int64"},"name":{"type":"string"},"img":{"type":"bytes"},"v":{"type":"int32","shape":[-1]}})");
}

// Row `i` of that schema: id i, name "row<i>", `img_bytes` bytes of (char)i,
// v [i, -i].
inline Row IdNameImgRow(int i, size_t img_bytes) {
  return Row{{"id", Value::Int(i)},
             {"name", Value::String("row" + std::to_string(i))},
             {"img", Value::Bytes(std::string(img_bytes, static_cast<char>(i)))},
             {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, -i})}};
}

}  // namespace mindrecord::testing
