// Plan: the serializable description of a pipeline: what to read and how
// (an execution tree of nodes, or the flat form: source, columns, sampler,
// ops per column, batching), and how to run it (sink, parallelism, seed,
// error policy). A plan is printed as JSON and parsed back unchanged;
// Pipeline::Open builds the runtime from it (the only way to build one).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/autotune.h"
#include "pipeline/batch.h"
#include "readers/reader_options.h"

namespace mindrecord {

// What a read or transform error does. Values are frozen.
enum class ErrorPolicy : uint8_t {
  kFail = 0,  // Next() returns the error, naming shard and row (default)
  kSkip = 1,  // the row is dropped, counted and reported in stats(); the
              // order of the remaining rows is unchanged
};

struct SinkSpec {
  enum class Kind : uint8_t { kHost = 0, kCuda = 1 };
  Kind kind = Kind::kHost;
  int device = 0;        // CUDA device ordinal
  uint32_t buffers = 3;  // pinned + device buffer sets (>= 2): 2 double, 3 triple buffering
};

// ReaderOptions' defaults, except that a dataset which fits in memory is read
// mapped (auto_cached_mode kMmap).
inline ReaderOptions PipelineReaderDefaults() {
  ReaderOptions o;
  o.auto_cached_mode = IoMode::kMmap;
  return o;
}

// The plan's "remote" object into `out` (keys as RemoteOptions' fields; each
// optional, unknown keys and bad values InvalidArgument naming them). Python's
// remote= keyword goes through it too.
Status ParseRemoteOptions(const nlohmann::json& value, RemoteOptions* out);

// Thread safety: a value type.
struct Plan {
  // Shard files. One path: that file and its siblings (from its header);
  // several: exactly these files, in this order (ReaderOptions::shard_paths).
  std::vector<std::string> source;
  // JSON "source_list": true reads exactly the files of `source` also when
  // it names one (MindSpore's MindDataset given a list).
  bool source_list = false;
  // How the shard files are read (readers/reader_options.h). JSON keys
  // "io_mode" ("auto", "pread", "mmap", "direct"), "direct_fallback" and
  // "auto_direct_above"; "remote" (an object of RemoteOptions' fields:
  // endpoint, cache_dir, cache_bytes, memory_bytes, block_bytes, parallel,
  // read_ahead_bytes, retries, backoff_ms, timeout_s) for sources named by
  // URL. The pipeline reads a dataset that fits in memory
  // mapped (auto_cached_mode kMmap: sequential runs are served from mapped
  // pages without copies). `source` and `source_list` name the files:
  // Pipeline::Open refuses a non-empty `read.shard_paths`. Stats report what
  // each shard uses.
  ReaderOptions read = PipelineReaderDefaults();
  // Columns to read, in output order. Empty: every schema field (sorted).
  std::vector<std::string> columns;
  // Sampler spec (see sampler.h). Default: every row in order.
  nlohmann::json sampler = {{"type", "sequential"}};
  // Op specs applied to a column, in order (see pipeline/ops/op.h).
  std::map<std::string, std::vector<nlohmann::json>> ops;
  BatchOptions batch;
  SinkSpec sink;
  uint32_t num_workers = 4;  // worker threads, >= 1; does not change the output
  // Batches prepared ahead of the consumer, >= 1 (also bounded in bytes by
  // queue_bytes).
  uint32_t queue_depth = 4;
  // Bytes of batches prepared ahead of the consumer: finished batches waiting
  // plus those being prepared, estimated from the size of the batches so far.
  // A worker waits while one more batch would go past it; the batch the
  // consumer needs next is always prepared, so a batch larger than the cap
  // still goes through, alone. Until the first batch is finished its size is
  // unknown and one batch per worker may be in flight. >= 1; default 1 GiB.
  uint64_t queue_bytes = 1ull << 30;
  // Most bytes one batch may hold: its rows as read (blobs decompressed), and
  // its transformed tensors, each counted as it is produced. A batch that
  // goes past it stops the pipeline with InvalidArgument naming the row and
  // shard where it did (rows that inflate far beyond what the batch size
  // suggests: a decompression bomb, or a limit set too low for the data). A
  // task holds at most this plus one row (itself <= 256 MiB decompressed,
  // mindrecord/limits.h). >= 1; default 2 GiB.
  uint64_t max_batch_bytes = 2ull << 30;
  // Rows that the reader hands over as views of a mapped shard (ragged
  // columns batched as lists, an unbatched row) are copied by the workers
  // into buffers each batch owns (BatchBuilder::CopyViews), for consumers
  // that would copy them anyway (Python iterators with do_copy=True). Does
  // not change the output.
  bool copy_views = false;
  // JSON "autotune" (pipeline/autotune.h): the runtime picks and adjusts the
  // worker threads (num_workers is where it starts, within the CPU budget)
  // and the queue depth while it runs; queue_bytes still caps the bytes
  // prepared ahead. Does not change the output.
  AutotuneOptions autotune;
  uint64_t seed = 0;    // sampler shuffles and random ops
  uint64_t epochs = 1;  // 0: endless
  ErrorPolicy on_error = ErrorPolicy::kFail;
  // Padded rows appended after the dataset's rows (see pipeline/padded.h);
  // null: none. Part of the sequence fingerprint.
  nlohmann::json padded = nullptr;
  // The execution tree (JSON key "tree"; pipeline/nodes/tree_spec.h), kept
  // normalized. Null: the plan is flat and means FlatPlanTree(*this). A plan
  // with a tree leaves source, source_list, columns, sampler, ops, batch and
  // padded at their defaults (their JSON keys are refused beside "tree").
  nlohmann::json tree = nullptr;

  nlohmann::json ToJson() const;
  std::string ToString(int indent = 2) const { return ToJson().dump(indent); }
  // Unknown keys and bad values are InvalidArgument naming the key.
  static Result<Plan> FromJson(const nlohmann::json& j);
  static Result<Plan> Parse(std::string_view text);
  // `read` with the files of `source` as ReaderOptions::shard_paths when the
  // plan lists them; open the reader at source[0] with it.
  ReaderOptions ReaderOptionsForSource() const;
  // The execution tree: `tree`, or the one the flat form means.
  nlohmann::json Tree() const;
  // A hash of everything that decides the row sequence (not num_workers,
  // autotune, queue_depth, queue_bytes, max_batch_bytes, sink, io_mode and its
  // options, epochs, or op spec keys starting with '_', which are
  // process-local handles); a resume state must match it.
  uint64_t SequenceFingerprint() const;
};

}  // namespace mindrecord
