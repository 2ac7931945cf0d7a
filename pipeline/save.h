// Saving a pipeline's output as a MindRecord dataset (MindSpore's
// Dataset.save): every row the plan hands out, in order, written through
// ShardWriter; the schema is taken from the first row as MindSpore's
// SaveToDisk takes it.
//
// Columns -> fields (the first row decides; every later row must agree):
//   int8, int16, int32, bool -> int32; int64 -> int64; float32, float64 as
//   they are; a scalar is a scalar field (indexed, as MindSpore indexes every
//   scalar), an array an array field of shape [-1, rest of the first row's
//   shape] (the first dimension may vary, as MindSpore's note allows);
//   uint8: a scalar -> int32, an array -> bytes (its shape dropped);
//   bytes -> bytes; string -> string.
// Column names have their punctuation replaced by '_' (MindSpore's rule).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/plan.h"
#include "writers/shard_writer.h"

namespace mindrecord {

struct SaveOptions {
  // Shard count, overwrite, page sizes, checksums... Dataset.save uses
  // shard_count and pad_shard_suffix = false (MindSpore's file names).
  WriterOptions writer;
  // true: each batch the plan hands out is one row (a batched dataset, as
  // MindSpore saves one); false: each row of each batch is a row.
  bool batched = false;
};

struct SaveResult {
  uint64_t rows = 0;
  std::vector<std::string> files;  // the shard files written
  nlohmann::json schema;           // the user schema written (FileWriter's add_schema form)
};

// Runs `plan` to its end and writes its rows to `path` (shard files as
// WriterOptions names them). Nothing is left at `path` unless every row was
// written and committed (ShardWriter's temporaries and commit). Errors:
// InvalidArgument for a plan without rows, a column that no field type
// holds (naming it), or a row that disagrees with the first (naming the row,
// the column and both shapes or types); the pipeline's and the writer's own.
// Thread safety: a function; the plan's Python callables run on the
// pipeline's workers (the caller must not hold the GIL).
Result<SaveResult> SavePlan(const Plan& plan, const std::string& path, const SaveOptions& options);

}  // namespace mindrecord
