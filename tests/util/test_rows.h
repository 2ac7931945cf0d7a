// The small mixed schema the core tests write: an int64 id, a string name
// (raw part), a bytes image and an int32 array (blob part).
#pragma once

#include "mindrecord/schema.h"

namespace mindrecord::testing {

inline Schema IdNameImgSchema() {
  return *Schema::FromUserJsonString(
      R"({"id":{"type":"int64"},"name":{"type":"string"},"img":{"type":"bytes"},"v":{"type":"int32","shape":[-1]}})");
}

}  // namespace mindrecord::testing
