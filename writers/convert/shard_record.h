// What one rank of a distributed conversion knows about a shard: the
// fingerprints that say which inputs and options it was written from, its
// record as the ranks exchange it, and the check that keeps a shard a
// previous run completed (resume). Internal to writers/convert.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "writers/convert/convert_context.h"
#include "writers/convert/convert_engine.h"
#include "writers/shard_part.h"

namespace mindrecord::convert {

// Thread safety: reentrant.

// What decides the bytes of a plan's shards: its schema, its inputs in
// order, and the options that shape the files. Ranks compare it before
// writing; a resumed run keeps only parts written for the same one.
std::string PlanFingerprint(const SplitPlan& plan, const ConvertOptions& o, const std::string& path);
// A shard's: the plan's, its id, its input range and the sizes of those
// inputs (`sizes`: every input's, by index).
std::string ShardFingerprint(const std::string& plan_fp, uint32_t shard, size_t begin, size_t end,
                             const std::vector<uint64_t>& sizes);

// One shard as a rank leaves it: written, or kept from an earlier run.
struct ShardDone {
  size_t plan = 0;
  uint32_t shard = 0;
  uint64_t rows = 0, bytes = 0;
  PartTotals totals;
  bool kept = false;
  bool final = false;  // kept in its final place (an interrupted finish)
  nlohmann::json skipped = nlohmann::json::array();  // [[input, "input: reason"], ...], at most kKeptSkipped
  uint64_t skipped_unlisted = 0;                      // skipped past those
};
// As the ranks exchange it.
nlohmann::json ToJson(const ShardDone& d);
Result<ShardDone> ShardDoneFromJson(const nlohmann::json& j);

// A kept shard (resume): the part of shard `s` of `paths`, or its final
// file left by an interrupted finish (only with `keep_final`), when it
// verifies (writers/shard_part.h) and was written for `fingerprint` (a
// final file: for this plan's schema and shard names). What is not kept is
// noted in `ctx` with the reason. `plan` is left 0.
std::optional<ShardDone> KeepShard(const SplitPlan& plan, const std::vector<std::string>& paths, uint32_t s,
                                   const std::string& fingerprint, bool keep_final, ConvertContext& ctx);

}  // namespace mindrecord::convert
