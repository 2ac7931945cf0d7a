// Samplers built from other samplers, for MindSpore's dataset operations:
//   {"type": "repeat", "count": k, "sampler": {...}}
//       one epoch is k epochs of the inner sampler back to back (epochs e*k ..
//       e*k+k-1), so batches run across the passes (Dataset.repeat before
//       batch); size k * inner size.
//   {"type": "buffer_shuffle", "buffer_size": B, "sampler": {...}}
//       the inner epoch's order through a shuffle buffer of B ids, as
//       MindSpore's Dataset.shuffle(buffer_size): the first B ids fill the
//       buffer; each further id replaces the one drawn at random from it,
//       which is emitted; the rest of the buffer is then emitted in random
//       order. B >= the epoch's size is a uniform permutation of it.
//   {"type": "chain", "sampler": {...}, "child": {...}}
//       `sampler` drawn over the ids the child yields (MindSpore's child
//       samplers, e.g. use_sampler() on a split): the child's epoch list L
//       is taken as a dataset of |L| rows in one shard and each id j of
//       `sampler` over it becomes L[j].
// Randomness is a pure function of (seed, epoch) as for every sampler.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/sampler.h"

namespace mindrecord {

Result<std::unique_ptr<Sampler>> MakeRepeatSampler(const nlohmann::json& spec, const DatasetLayout& layout);
Result<std::unique_ptr<Sampler>> MakeBufferShuffleSampler(const nlohmann::json& spec, const DatasetLayout& layout);
Result<std::unique_ptr<Sampler>> MakeChainSampler(const nlohmann::json& spec, const DatasetLayout& layout);

}  // namespace mindrecord
