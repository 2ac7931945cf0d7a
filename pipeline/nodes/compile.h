// Compiles a plan's execution tree (tree_spec.h) into what the runtime runs:
// the positional row tree (row_node.h) with its sources and row steps, the
// batch node, the steps above it, and the counts kept on the consumer side.
//
// The runtime cuts each epoch of the row tree into tasks of positions, which
// workers resolve, read and transform in parallel (chains of per-row nodes
// run as one worker step per row); the consumer re-batches rows that a filter
// (or on_error skip) dropped. Nodes that need the stream after a filter are
// the hard case: take and skip directly above a filter (with only map,
// project and rename between them and the batch) are counted by the
// consumer over the rows that survive; take / skip elsewhere above a filter
// (under a concat, repeat, shuffle, shard or another filter), zip and mix of
// a filtered input, and take / skip above a repeat above the batch are
// refused with InvalidArgument naming them (they would give a different
// result, never silently).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/batch.h"
#include "pipeline/cache/cache_store.h"
#include "pipeline/nodes/batch_steps.h"
#include "pipeline/nodes/bucket.h"
#include "pipeline/nodes/row_node.h"
#include "pipeline/nodes/row_steps.h"
#include "pipeline/nodes/source.h"
#include "readers/reader_options.h"

namespace mindrecord {

// take (or skip) `count` items of the stream, counted by the consumer.
struct StreamOp {
  bool take = true;
  uint64_t count = 0;
};

// A mix node's inputs in the statistics: tags tag_base .. tag_base + inputs - 1.
struct MixStatsSlot {
  uint32_t tag_base = 0;
  uint32_t inputs = 0;
};

// Thread safety: immutable once compiled; its parts are thread-safe for
// their documented uses.
struct ExecTree {
  std::vector<std::unique_ptr<Source>> sources;  // kRead's source index
  std::vector<std::unique_ptr<RowStep>> steps;   // kStep's step index
  std::vector<std::unique_ptr<CacheStore>> caches;  // kCacheGet / kCachePut's cache index
  std::unique_ptr<RowNode> root;                 // the positional row tree
  std::vector<StreamOp> row_stream;              // rows after the filters, in order
  BatchOptions batch;                            // batch_size 1 without a batch node
  // A batch by length: the consumer puts rows in buckets (column
  // bucket_column of the row tree) and batches each bucket with its size;
  // batch.batch_size is then the largest, the positions of a task.
  std::optional<BucketSpec> bucket;
  size_t bucket_column = 0;
  std::unique_ptr<BatchMap> bucket_length_map;  // the bucket's length map, or null
  std::vector<size_t> bucket_length_columns;     // its input columns
  // A batch size per batch (MindSpore's batch(batch_size=callable)): a batch
  // map of no columns giving one integer for the BatchInfo; the consumer
  // re-batches, and batch.batch_size is the positions of a task.
  std::unique_ptr<BatchMap> batch_size_map;
  std::unique_ptr<BatchMap> batch_map;           // per_batch_map, or null
  BatchMapLayout batch_map_layout;
  std::vector<std::string> batch_columns;        // the batch node's columns
  std::vector<std::unique_ptr<BatchStep>> batch_steps;  // nodes above the batch, in order
  std::vector<std::string> columns;              // the output columns
  std::vector<StreamOp> batch_stream;            // batches, counted by the consumer
  uint64_t passes = 1;                           // repeat above the batch: row epochs per epoch
  // The step whose results are the batch's rows (the rows' last step): it may
  // write them straight into the batch buffer. -1: none.
  int final_step = -1;
  std::vector<MixStatsSlot> mixes;
  uint32_t num_tags = 0;
  bool drops_rows = false;  // a filter: positions may give no row
};

// `seed`: the plan's (nodes without their own "seed" use it); `skip_errors`:
// on_error is "skip" (rows may go missing, as with a filter).
Result<ExecTree> CompileTree(const nlohmann::json& tree, const ReaderOptions& read, uint64_t seed, bool skip_errors);

}  // namespace mindrecord
