// ClueSource: MindSpore's CLUEDataset: each non-empty line of the files a
// JSON object, a row of the task's columns (`columns`, in MindSpore's
// order: sorted by name), each read from the key of its name (WSC's span
// columns from target.<name>). A value's type is its JSON type's, as
// MindSpore's: a string a string, an integer int32 (MindSpore: uint32 for
// non-negative ones), a float float32, an array of strings a 1-D string
// array. A line that is not JSON (or nests deeper than 64), a missing key,
// another JSON type (bool, null, object, an array of non-strings) or an
// integer outside int32 is a row error naming the file and the line's
// byte offset.
//
// The leaf: {"node": "source", "kind": "clue", "columns": [...], "rows": N,
// "args": {"files": [...], "nested": [names read under "target"]}}; `rows`
// must be the files' non-empty line count.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenClueSource(const nlohmann::json& node);

}  // namespace mindrecord
