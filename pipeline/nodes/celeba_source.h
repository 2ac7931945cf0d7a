// CelebASource: MindSpore's CelebADataset folder as rows. The folder holds
// the images and list_attr_celeba.txt: a first line with the row count, a
// second with the attribute names, then one line per image, "name v1 .. vn"
// (whitespace-separated; n = the names' count). usage "train" / "valid" /
// "test" keeps the images that list_eval_partition.txt ("name 0|1|2", line
// by line beside the attribute lines, as MindSpore pairs them; a name that
// differs is an error) puts in that partition; "all" every line. With
// `extensions`, only names with one of them (exact, e.g. ".jpg") are rows.
// Columns: "image" (the file's bytes, or with `decode` HWC RGB uint8) and
// "attr" (int32 [n]: 1 where the value is 1, else 0, as MindSpore's).
//
// The lists are untrusted: a line whose values are not integers, whose
// count differs from the names', a name with a path separator or "..",
// an unknown partition, a partition file out of step: Corruption naming
// the file and line. An image that does not decode is that row's error.
//
// The leaf: {"node": "source", "kind": "celeba", "columns": ["image",
// "attr"], "rows": N, "args": {"dataset_dir": D, "usage": U, "decode": B,
// "extensions": [...]}}; `rows` must be what CountCelebARows gives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// The rows of the folder for `usage` and `extensions` (empty: all).
Result<uint64_t> CountCelebARows(const std::string& dataset_dir, const std::string& usage,
                                 const std::vector<std::string>& extensions);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenCelebASource(const nlohmann::json& node);

}  // namespace mindrecord
