// Rendering rows for `mindrecord cat`: JSON (bytes as base64, arrays as
// nested lists following their shape) and a plain text table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/value.h"

namespace mindrecord::cli {

std::string Base64(const std::string& bytes);
nlohmann::json ValueToJson(const Value& v);
// One short cell: scalars as is, bytes as "<N bytes>", arrays as "int32[2,3]".
std::string ValueToCell(const Value& v);

}  // namespace mindrecord::cli
