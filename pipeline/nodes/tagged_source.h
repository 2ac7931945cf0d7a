// TaggedSource: tagged sentences (MindSpore's CoNLL2000Dataset and
// UDPOSDataset): one token per line, its fields split at `delimiter` (' '
// or '\t'), sentences separated by blank lines (only spaces, or a '\r'). A
// row is a sentence; its three columns are 1-D string arrays holding the
// tokens' first, second and third fields (more fields are ignored, fewer
// are a row error naming the file and line). A line's '\r' end and the
// spaces around it are dropped. A last sentence without a blank line after
// it is a row (MindSpore drops it).
//
// The leaf: {"node": "source", "kind": "tagged", "columns": [3 names],
// "rows": N, "args": {"files": [...], "delimiter": " " | "\t"}}; `rows`
// must be CountTaggedSentences' total.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// Sentences per file, in order; NotFound / IOError naming a file.
Result<std::vector<uint64_t>> CountTaggedSentences(const std::vector<std::string>& files);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenTaggedSource(const nlohmann::json& node);

}  // namespace mindrecord
