// Padded rows (MindSpore's padded_sample / num_padded): `count` copies of one
// row appended after the dataset's rows, as global row ids num_rows ..
// num_rows + count - 1, sampled, transformed and batched like real rows.
//
// Plan form: "padded": {"count": N, "row": {column: value}} with one value per
// output column: an integer or a number for scalar numeric fields, a string
// for string fields, {"hex": "..."} for bytes fields and
// {"shape": [...], "hex": "..."} for array fields (elements little-endian, of
// the field's type).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord {

// Thread safety: value types and pure functions.
struct PaddedRows {
  uint64_t count = 0;
  Row row;  // exactly the output columns
};

nlohmann::json PaddedValueToJson(const Value& v);
// A value of field `f` from its plan form, validated against the field.
Result<Value> PaddedValueFromJson(const nlohmann::json& j, const Field& f);
// The plan's "padded" object; its row must hold exactly `columns`.
Result<PaddedRows> ParsePadded(const nlohmann::json& j, const Schema& schema, const std::vector<std::string>& columns);
// Checks the shape of a "padded" object (count, row object) without a schema.
Status CheckPaddedSpec(const nlohmann::json& j);

}  // namespace mindrecord
