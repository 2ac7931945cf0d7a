// The distributed conversion (ConvertOptions::ranks, resume): every rank
// plans the same inputs, the shards' input ranges are cut from the input
// sizes the ranks measured between them, each rank writes its own shards
// and commits each as a part (writers/shard_part.h), and once every rank has
// succeeded the parts become the dataset (shard 0 last). Only metadata moves
// between ranks: plan fingerprints, input sizes, per-shard totals and the
// skipped inputs. Internal to writers/convert.
#pragma once

#include <string>
#include <vector>

#include "writers/convert/convert_context.h"
#include "writers/convert/convert_engine.h"
#include "writers/convert/rank_group.h"

namespace mindrecord::convert {

struct DistributedResult {
  std::vector<OutputReport> outputs;   // the whole datasets' (every rank's shards)
  std::vector<std::string> skipped;    // every rank's "INPUT: reason", in input order (the first 10,000)
  std::vector<std::string> skipped_inputs;
  uint64_t skipped_count = 0;          // all of them
  std::string skipped_file;            // OUTPUT.skipped.txt when any was skipped (rank 0 writes it)
  uint64_t rank_rows = 0;              // rows and payload bytes this rank converted
  uint64_t rank_bytes = 0;
  std::vector<ConvertReport::RankStats> ranks;  // every rank's
  bool parts_only = false;             // the ranks cannot talk: this rank's parts are written, no more
};

// `setup`: how planning went on this rank; an error there is exchanged
// like any other, so every rank stops with it.
// Thread safety: one call per process and conversion; the ranks of `group`
// call it together with the same plans and options.
Result<DistributedResult> RunPlansDistributed(const std::vector<SplitPlan>& plans, const std::string& output,
                                              ConvertContext& ctx, RankGroup& group, const Status& setup);

}  // namespace mindrecord::convert
