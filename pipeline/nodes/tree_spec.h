// The execution tree's JSON form: one object per node, {"node": type, ...,
// "input": {child}} (or "inputs": [children]). A plan holds its tree under
// "tree"; a flat plan (source, columns, sampler, ops, batch, padded) means
// the tree FlatPlanTree() builds. Node types and keys (pipeline/README.md,
// "The execution tree"):
//
//   mindrecord  source, source_list, columns, sampler, padded, seed    (a leaf)
//   raw         a raw-format folder (a leaf; nodes/raw_source.h)
//   source      a registered source's rows (a leaf; nodes/source_registry.h)
//   map         input, operations, input_columns, output_columns, seed
//   ops         input, ops {column: [specs]}, seed     (per-column op lists)
//   filter      input, predicate, input_columns, seed
//   project     input, columns
//   rename      input, input_columns, output_columns
//   take, skip  input, count
//   repeat      input, count
//   shuffle     input, buffer_size, seed
//   shard       input, num_shards, shard_id, pad, split, worker_count, worker_id, worker_batch
//   concat      inputs
//   zip         inputs
//   mix         inputs, weights, policy, num_samples, seed
//   batch       input, batch_size, drop_remainder, ragged, per_batch_map, input_columns, output_columns
//   cache       input, session_id, size_bytes (0), dir ("")       (nodes/cache_node.h)
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"

namespace mindrecord {

struct Plan;

// The error for a bad value at `path` in a plan's tree: "plan: PATH: what".
Status PlanNodeError(const std::string& path, const std::string& what);

// Checks a tree (every node's type, keys and values; not yet the columns or
// the files, which the compiler checks) and returns it normalized: defaults
// filled in, so that normalizing the result gives it back unchanged. Errors
// are InvalidArgument naming the node's path ("tree.input.inputs[1]") and key.
Result<nlohmann::json> NormalizeTree(const nlohmann::json& tree);

// The tree a flat plan means: batch(ops(mindrecord leaf)).
nlohmann::json FlatPlanTree(const Plan& plan);

// A leaf's "sampler" (an object with a "type"; absent: sequential), or
// InvalidArgument "plan: PATH: ...".
Result<nlohmann::json> LeafSampler(const nlohmann::json& leaf, const std::string& path);

// A leaf's "seed", when it has one, copied to (*out)["seed"]; an integer
// >= 0, or InvalidArgument "plan: PATH: ...".
Status CopyLeafSeed(const nlohmann::json& leaf, nlohmann::json* out, const std::string& path);

// `j` with the keys starting with '_' of every op spec ({"op": ...}),
// batch map spec ({"map": ...}) and source leaf removed, at any depth: process-local handles
// (a Python callable's registry id), which the resume fingerprint leaves out.
nlohmann::json WithoutHandles(nlohmann::json j);

}  // namespace mindrecord
