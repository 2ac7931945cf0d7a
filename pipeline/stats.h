// Pipeline statistics (readable while running) and the resume state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"

namespace mindrecord {

// A dataset cache's counters (pipeline/cache/cache_store.h): what one
// process counted, and what the cache holds (shared by all processes).
struct CacheCounters {
  uint64_t hits = 0;      // rows served from the cache
  uint64_t misses = 0;    // rows computed (not cached yet, did not fit, or corrupt)
  uint64_t stored = 0;    // rows this process stored
  uint64_t rejected = 0;  // rows that did not fit under the cap
  uint64_t corrupt = 0;   // entries found corrupt (then re-read from the dataset)
  uint64_t bytes = 0;     // bytes of the cache's entries (all processes)
  uint64_t entries = 0;   // entries in the cache (all processes)
};

// Per-stage counters. Times are seconds summed over the threads of a stage, so
// io_s + transform_s can exceed elapsed_s with several workers. The stage with
// the largest share is the bottleneck: workers_blocked_s high means the
// consumer is slow; consumer_wait_s high means reading or transforming is.
struct PipelineStats {
  double elapsed_s = 0;          // since Open()
  uint64_t rows = 0;             // rows handed out in batches
  uint64_t batches = 0;          // batches handed out
  uint64_t batches_gathered = 0; // of the batches made, those the source copied straight into their buffers
  uint64_t rows_skipped = 0;     // rows dropped by on_error = skip
  uint64_t rows_filtered = 0;    // rows a filter node dropped (of the tasks consumed)
  double rows_per_s = 0;         // rows / elapsed_s
  double io_s = 0;               // workers inside ShardReader reads
  double transform_s = 0;        // workers converting, applying ops, batching
  double workers_blocked_s = 0;  // workers waiting for a free queue slot
  double consumer_wait_s = 0;    // Next() waiting for the next batch
  double sink_s = 0;             // Next() copying into the sink (CUDA)
  uint64_t sink_bytes = 0;         // CUDA sink: bytes copied to the device
  uint64_t sink_staged_bytes = 0;  // of those, staged through a pinned buffer (batch in pageable memory)
  // How the shards are read (the plan's io_mode as "auto" and fallbacks
  // resolved it): the mode all shards share, or "mixed"; and per shard.
  std::string io_mode;
  std::vector<std::string> shard_io_modes;
  uint32_t num_workers = 0;  // worker threads working now (autotune: its choice)
  uint32_t queue_depth = 0;  // batches prepared ahead at most now (autotune: its choice)
  // Autotune (autotune.h): on; the most workers it may run (the CPU
  // budget); how many changes it made; the last 32, described.
  bool autotune = false;
  uint32_t autotune_max_workers = 0;
  uint64_t autotune_changes = 0;
  std::vector<std::string> autotune_decisions;
  uint32_t in_flight = 0;        // batches being prepared or waiting now
  uint32_t max_in_flight = 0;    // high-water mark of in_flight (<= queue_depth)
  uint64_t queue_bytes = 0;         // the plan's cap on bytes prepared ahead
  uint64_t bytes_in_queue = 0;      // bytes of finished batches waiting now
  uint64_t max_bytes_in_queue = 0;  // high-water mark of bytes_in_queue
  std::vector<std::string> skipped_errors;  // first 16 skip messages
  // Per mix node (in the tree's order): rows handed out from each input.
  std::vector<std::vector<uint64_t>> mix_rows;
  // Per cache node (in the tree's order): this pipeline's hits, misses,
  // stored, rejected (did not fit) and corrupt rows; the cache's bytes and
  // entries (all processes).
  std::vector<CacheCounters> caches;

  nlohmann::json ToJson() const;
};

// Where a pipeline stands: restoring it into Pipeline::Open with the same plan
// (any num_workers, queue_depth or sink) yields exactly the rest of the
// sequence. Thread safety: a value type.
struct PipelineState {
  uint64_t seed = 0;
  uint64_t epoch = 0;     // epoch of the next row
  uint64_t position = 0;  // position of the next row in that epoch's sampler order
  uint64_t rows = 0;      // rows handed out so far (informational)
  uint64_t fingerprint = 0;  // Plan::SequenceFingerprint() of the plan
  // What the consumer has counted in this epoch before `position`, for trees
  // that count (take / skip after a filter or of batches, per_batch_map's
  // batch numbers after a filter): one count per take / skip of rows, the
  // batches made, one count per take / skip of batches. Empty otherwise.
  std::vector<uint64_t> counts;
  // A batch by length (bucket): the rows of this epoch the consumer took are
  // those before `absorbed`; of them, the positions still in buckets,
  // ascending (`position` is the first, or `absorbed` when none). Rows from
  // `position` on are read again and those before `absorbed` not listed are
  // dropped. Zero and empty otherwise.
  uint64_t absorbed = 0;
  std::vector<uint64_t> bucketed;

  nlohmann::json ToJson() const;
  static Result<PipelineState> FromJson(const nlohmann::json& j);
  bool operator==(const PipelineState& o) const {
    return seed == o.seed && epoch == o.epoch && position == o.position && fingerprint == o.fingerprint &&
           counts == o.counts && absorbed == o.absorbed && bucketed == o.bucketed;
  }
};

}  // namespace mindrecord
