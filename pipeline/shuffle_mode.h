// MindDataset shuffle modes: the row order of one epoch over a sharded dataset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/sampler.h"

namespace mindrecord {

// Values are frozen (used in plans).
enum class ShuffleMode : uint8_t {
  kOff = 0,       // shard 0's rows in order, then shard 1's, ...
  kGlobal = 1,    // a permutation of all rows (files and samples)
  kPartial = 2,   // rows shuffled within consecutive blocks of `block_size`
                  // rows, blocks visited in a shuffled order
  kFiles = 3,     // shard order shuffled, rows within each shard in order
  kInfile = 4,    // shard order kept, rows shuffled within each shard
  kAdaptive = 5,  // kGlobal up to 100M rows, kPartial above
};

inline constexpr uint64_t kDefaultPartialBlock = 1000000;
inline constexpr uint64_t kAdaptiveGlobalLimit = 100000000;

const char* ShuffleModeName(ShuffleMode m);  // "off", "global", ...
// Accepts the names above (also "false" = off, "true" = global).
Result<ShuffleMode> ParseShuffleMode(const std::string& name);
// A JSON "shuffle" value: a bool or a mode name.
Result<ShuffleMode> ParseShuffleJson(const nlohmann::json& j, const char* where);

// The order of all rows of `layout` for (seed, epoch).
std::vector<uint64_t> ShuffleOrder(ShuffleMode mode, const DatasetLayout& layout, uint64_t seed, uint64_t epoch,
                                   uint64_t block_size = kDefaultPartialBlock);

// Sampler "shuffle": {"type": "shuffle", "mode": "global", "block_size": N,
// "num_samples": 0 (all)}; the MindDataset(shuffle=...) order.
Result<std::unique_ptr<Sampler>> MakeShuffleSampler(const nlohmann::json& spec, const DatasetLayout& layout);

}  // namespace mindrecord
