// Samplers: the row ids a pipeline reads in one epoch, in order. A sampler is a
// pure function of its spec, the dataset layout, the pipeline seed and the
// epoch; it never depends on timing or on the number of workers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord {

class ShardReader;

// Distinct values of an index field, each with its global row ids.
using IndexGroups = std::vector<std::pair<Value, std::vector<uint64_t>>>;

// What samplers need to know about a dataset.
// Thread safety: a value type; `group_by` must be callable from any thread.
struct DatasetLayout {
  std::vector<uint64_t> shard_rows;  // rows per shard, in shard order
  // For the PK sampler: ShardReader::GroupByIndexField. May be empty.
  std::function<Result<IndexGroups>(const std::string& field)> group_by;

  uint64_t num_rows() const;
  uint64_t first_row(size_t shard) const;
  static DatasetLayout Uniform(uint64_t rows_per_shard, size_t shards);
};

// The layout of an open reader; `reader` must outlive the layout.
// `padded_rows` > 0 adds them as one more shard after the last.
DatasetLayout LayoutOf(const ShardReader& reader, uint64_t padded_rows = 0);

// Thread safety: immutable after construction; Epoch() may be called from any
// number of threads at once.
class Sampler {
 public:
  virtual ~Sampler() = default;
  // The spec this sampler was built from, normalized (round-trips through
  // MakeSampler).
  virtual nlohmann::json ToJson() const = 0;
  // Number of ids Epoch() returns (the same for every epoch, apart from
  // those EpochSize names).
  virtual uint64_t size() const = 0;
  // Number of ids Epoch(seed, epoch) returns: size(), except for an epoch a
  // sampler deals differently (a distributed sampler's elastic epoch).
  virtual Result<uint64_t> EpochSize(uint64_t /*seed*/, uint64_t /*epoch*/) const { return size(); }
  // The ids of `epoch`, a pure function of (spec, layout, seed, epoch).
  virtual Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const = 0;
};

// Builds a sampler from its JSON spec ({"type": ..., parameters}); types:
// "sequential", "random", "shuffle" (MindDataset shuffle modes), "distributed",
// "subset", "subset_random", "pk", "weighted_random", and the wrappers of
// sampler_wrappers.h: "repeat", "buffer_shuffle", "chain". Bad specs are
// InvalidArgument naming the sampler and parameter.
Result<std::unique_ptr<Sampler>> MakeSampler(const nlohmann::json& spec, const DatasetLayout& layout);

// ---- Deterministic randomness shared by samplers and the runtime ----------
// std::shuffle and std::uniform_*_distribution are implementation-defined, so
// samplers use these (built on std::mt19937_64, which is fully specified) to
// give the same order on every platform.

// SplitMix64 finalizer over a sequence of words.
uint64_t MixSeed(std::initializer_list<uint64_t> words);
// Unbiased integer in [0, n); n > 0.
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n);
// Uniform double in [0, 1).
double Uniform01(std::mt19937_64& rng);
// Fisher-Yates over [first, last).
void ShuffleRange(uint64_t* first, uint64_t* last, std::mt19937_64& rng);

// Spec parameter helpers: a missing key gives `def`; a wrong type is an error
// naming `where` and the key.
Result<uint64_t> SpecUInt(const nlohmann::json& spec, const char* key, uint64_t def, const char* where);
Result<bool> SpecBool(const nlohmann::json& spec, const char* key, bool def, const char* where);
Result<std::string> SpecString(const nlohmann::json& spec, const char* key, const std::string& def,
                               const char* where);
// Rejects keys not in `allowed` (typos should not be silently ignored).
Status SpecCheckKeys(const nlohmann::json& spec, std::initializer_list<const char*> allowed, const char* where);

}  // namespace mindrecord
