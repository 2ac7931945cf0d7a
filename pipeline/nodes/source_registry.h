// Sources a program adds to those the execution tree knows (mindrecord and
// raw leaves). A leaf
//   {"node": "source", "kind": K, "columns": [...], "rows": N, "name": ...,
//    "args": {...}, "sampler": ..., "seed": ..., "_...": process-local handles}
// is built by the factory registered for K (`args`: its own arguments, part
// of the plan's fingerprint). Built in: "textfile" (text_source.h), "csv" (csv_source.h),
// "tfrecord" (tfrecord_source.h), "imdb" (imdb_source.h), "tagged" (tagged_source.h),
// "celeba" (celeba_source.h), "image_list" (image_list_source.h), "catalog"
// (catalog_source.h), "clue" (clue_source.h). The
// Python binding registers "python" (GeneratorDataset: a Python object's
// rows, python/bind_pysource.cc).
// `columns` and `rows` are what the source must give; keys starting with
// '_' (a callable's id) are left out of the plan's fingerprint.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

using SourceFactory = std::function<Result<std::unique_ptr<Source>>(const nlohmann::json& node)>;

// Thread safety: any thread; pipelines already open keep their sources.
void RegisterSource(const std::string& kind, SourceFactory factory);

// The source of a normalized "source" leaf; NotFound when no factory is
// registered for its kind.
Result<std::unique_ptr<Source>> MakeRegisteredSource(const nlohmann::json& node);

// Checks a "source" leaf's keys and values, filling in the default sampler,
// naming what is wrong ("plan: PATH: ..."). The seed is left to the caller.
Result<nlohmann::json> NormalizeSourceLeaf(const nlohmann::json& j, const std::string& path);

}  // namespace mindrecord
