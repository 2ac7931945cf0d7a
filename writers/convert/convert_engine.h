// The parallel engine behind every converter: a source describes each output
// dataset as a SplitPlan (a schema and a row builder indexed 0..N-1); the
// engine builds rows on worker threads into ordered slots and one thread
// writes them, so the output does not depend on the worker count.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

struct SplitPlan {
  std::string split;  // "" for a source without splits
  Schema schema;
  // Indexed fields; nullopt: MindSpore's default (every scalar non-bytes field).
  std::optional<std::vector<std::string>> index_fields;
  size_t num_items = 0;
  // The input behind item i, for error messages and the skip list.
  std::function<std::string(size_t)> item_name;
  // Builds the row of item i. Called concurrently from worker threads, each
  // index exactly once: must be thread-safe. An error is a bad input.
  std::function<Result<Row>(size_t)> make_row;
  // The input bytes behind item i (its files' sizes), by which shards are
  // balanced; 0 for a file that cannot be read (it fails when converted).
  // Thread-safe. Null: every item weighs the same (fixed-size records).
  std::function<uint64_t(size_t)> item_bytes;

  // make_row(i) for callers on worker threads, where an exception would
  // terminate the process: one make_row lets out becomes item i's error (a
  // JSON value of another type than expected: Corruption; anything else:
  // Internal). Thread safety: as make_row.
  Result<Row> MakeRow(size_t i) const;
};

// Items [begin, end) of a plan, all written to one shard, in order.
struct Segment {
  uint32_t shard = 0;
  size_t begin = 0, end = 0;
};
// Segment::shard for rows placed by ShardWriter::WriteRows (an append).
inline constexpr uint32_t kWriterPlacement = UINT32_MAX;

// Where RunSegments' rows go; every function runs on the calling thread.
struct RowSink {
  std::function<Status(const Segment&)> begin;  // optional: before a segment's first row
  std::function<Status(uint32_t shard, std::vector<Row>&& rows)> write;
  std::function<Status(const Segment&)> end;    // optional: after its last row
  std::function<Status()> poll;                 // optional: between batches; an error stops the run
};

// Builds the rows of `segments` in order on worker threads and hands them to
// `sink` in batches (ConvertOptions::batch_rows, 64 MiB), a batch never
// spanning two segments. Bad inputs go through ctx.BadInput.
Status RunSegments(const SplitPlan& plan, const std::vector<Segment>& segments, const RowSink& sink,
                   ConvertContext& ctx, OutputReport* out);

// The first item of each of `shards` shards, and the number of items last
// (shards + 1 entries): contiguous ranges whose summed `weights` are as
// close as can be to equal shares (each boundary the nearest to its share,
// a tie going to the earlier shard), each shard getting at least one item
// when there are enough (with fewer items, one each and the last shards
// empty; all weights 0: equal counts). Depends only on the weights and
// `shards`.
std::vector<size_t> ShardBoundaries(const std::vector<uint64_t>& weights, uint32_t shards);

// Every item's weight (SplitPlan::item_bytes; 1 each without it), for items
// [begin, end).
std::vector<uint64_t> ItemWeights(const SplitPlan& plan, size_t begin, size_t end);

// Writes every plan to SplitOutputPath(output, plan.split) and commits them
// all at the end; on error abandons them all (no output is left). Returns one
// OutputReport per plan. Thread safety: reentrant.
Result<std::vector<OutputReport>> RunPlans(const std::vector<SplitPlan>& plans, const std::string& output,
                                           ConvertContext& ctx);

// Worker threads for `requested` (0: all cores), at least 1.
unsigned EffectiveWorkers(uint32_t requested);

}  // namespace mindrecord::convert
