// ImdbSource: MindSpore's IMDBDataset folder as rows: for each usage
// ("train", "test"; "all": train then test) the files of <dir>/<usage>/pos
// (label 1) then <dir>/<usage>/neg (label 0), each folder's regular files
// in byte order of their names, as MindSpore lists them. A row is the
// file's last non-empty line (lines split at '\n', '\r' kept: MindSpore's
// getline loop; "" for a file without one) as column "text" and its label
// as column "label" (int32). A file that is not UTF-8, or larger than
// kMaxDecompressedRowBytes, is a row error naming it.
//
// The leaf: {"node": "source", "kind": "imdb", "columns": ["text", "label"],
// "rows": N, "args": {"dataset_dir": D, "usage": "train" | "test" | "all"}};
// `rows` must be what CountImdbFiles gives (the folder is listed again when
// the source opens; another count means it changed).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// The rows of the folder for `usage`; NotFound naming a missing folder,
// InvalidArgument for another usage.
Result<uint64_t> CountImdbFiles(const std::string& dataset_dir, const std::string& usage);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenImdbSource(const nlohmann::json& node);

}  // namespace mindrecord
