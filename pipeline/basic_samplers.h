// The simple samplers: sequential, random, subset / subset_random and
// weighted_random. Specs (JSON):
//   {"type": "sequential", "start": 0, "num_samples": 0}         rows start.. in order
//       "wrap": true: min(num_samples, rows) ids start, start+1, ... modulo
//       rows, as MindSpore's SequentialSampler (start may be past the end)
//   {"type": "random", "replacement": false, "num_samples": 0}   a new permutation per
//       epoch (truncated to num_samples), or num_samples uniform draws with replacement
//   {"type": "subset", "indices": [..]}                           the ids as given
//   {"type": "subset_random", "indices": [..]}                    the ids, permuted per epoch
//   {"type": "weighted_random", "weights": [..], "num_samples": N, "replacement": true}
//       row i drawn with probability weights[i] / sum (rows past weights.size() never)
// num_samples 0 means "all rows" (for weighted_random: weights.size()).
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/sampler.h"

namespace mindrecord {

Result<std::unique_ptr<Sampler>> MakeSequentialSampler(const nlohmann::json& spec, const DatasetLayout& layout);
Result<std::unique_ptr<Sampler>> MakeRandomSampler(const nlohmann::json& spec, const DatasetLayout& layout);
// Handles both "subset" and "subset_random".
Result<std::unique_ptr<Sampler>> MakeSubsetSampler(const nlohmann::json& spec, const DatasetLayout& layout);
Result<std::unique_ptr<Sampler>> MakeWeightedRandomSampler(const nlohmann::json& spec, const DatasetLayout& layout);

}  // namespace mindrecord
