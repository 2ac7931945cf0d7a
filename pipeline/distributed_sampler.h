// Distributed sampler: one rank's share of an epoch.
//   {"type": "distributed", "num_shards": N, "shard_id": i,
//    "shuffle": "global" | "partial" | "files" | "infile" | "off" | true | false,
//    "block_size": 1000000 (partial), "split": "round_robin" | "contiguous",
//    "pad": true, "num_samples": 0, "worker_count": 1, "worker_id": 0, "worker_batch": 1,
//    "elastic": {"epoch": e, "from": {old ranks' spec}, "positions": [p_0, ...]}}
// Every rank computes the same base order (the shuffle mode with the shared
// pipeline seed), padded by repeating its first rows up to a multiple of N when
// `pad` is on; rank i then takes positions i, i+N, ... (round_robin) or the
// i-th contiguous block. Ranks are disjoint and together cover every row once,
// apart from the padding; with pad every rank yields ceil(rows / N) ids, without
// pad the first rows % N ranks yield one more than the others; num_samples
// > 0 caps the rank's ids at that many (its first ones). With
// worker_count W > 1 the rank's ids are cut into batches of worker_batch and
// worker w takes batches w, w+W, ... (DataLoader workers of one rank, whose
// batches the DataLoader interleaves back into the rank's order): only the
// rank's last batch can be short.
//
// Elastic resume: "elastic" says that epoch e was begun by a run of
// from.num_shards ranks (their spec `from`: this spec's parameters as that run
// had them, without shard_id and the worker keys) and that old rank r had
// handed out the first positions[r] ids of its share. Epoch e then deals the
// rows of the epoch's base order that no old rank handed out (a padding copy
// handed out counts for its row), in base order, among this run's ranks by
// this spec's split and pad (padding repeats the first of those rows); every
// other epoch is this spec's as if "elastic" were absent. Over the old and
// new runs every row of epoch e is handed out once, plus the padding copies
// of either run. `from` must shuffle as this spec does (the same base order)
// and neither may cap num_samples. EpochSize(seed, e) is the elastic share's
// size.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/sampler.h"

namespace mindrecord {

Result<std::unique_ptr<Sampler>> MakeDistributedSampler(const nlohmann::json& spec, const DatasetLayout& layout);

}  // namespace mindrecord
