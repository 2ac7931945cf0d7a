// MixNode: weighted mixing of several inputs (tf.data's sample_from_datasets,
// MosaicML's streams). Each position draws an input with probability
// proportional to its weight, from a generator seeded by (seed, epoch), and
// takes that input's next position; the epoch's sequence of draws is a pure
// function of the seed, the epoch and the inputs' sizes, so resume is exact
// and the worker count never matters. When a drawn input has no position
// left, the policy decides:
//   stop     the epoch ends (default: the epoch lasts until an input runs out)
//   restart  the input starts a new pass (its own epoch e + (pass << 32): a
//            new shuffle); the epoch ends after num_samples draws (default:
//            the inputs' sizes together)
//   drop     the input is left out and the others' weights renormalised;
//            the epoch ends when all have run out (or after num_samples)
// Every row carries a tag naming its input, counted per input in stats().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/nodes/positional.h"

namespace mindrecord {

enum class MixPolicy : uint8_t { kStop = 0, kRestart = 1, kDrop = 2 };

// Thread safety: as RowNode.
class MixNode : public RowNode {
 public:
  // `tag_base`: the statistic of input 0 (input k counts under tag_base + k).
  MixNode(std::vector<std::unique_ptr<RowNode>> inputs, std::vector<double> weights, MixPolicy policy,
          uint64_t num_samples, uint64_t seed, uint32_t tag_base);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;
  size_t num_inputs() const { return inputs_.size(); }

 private:
  // One epoch's draws: the input and its pass per position, and every
  // kCheckpoint positions each input's (pass, draws in that pass) before it.
  struct Draws {
    std::vector<uint32_t> input, pass;
    std::vector<std::vector<std::pair<uint32_t, uint64_t>>> checkpoints;
  };
  static constexpr uint64_t kCheckpoint = 1024;
  Result<std::shared_ptr<const Draws>> DrawsOf(uint64_t epoch) const;
  Result<Draws> Draw(uint64_t epoch) const;
  uint64_t InputEpoch(uint64_t epoch, uint32_t pass) const { return epoch + (static_cast<uint64_t>(pass) << 32); }

  std::vector<std::unique_ptr<RowNode>> inputs_;
  std::vector<double> weights_;
  MixPolicy policy_;
  uint64_t num_samples_;
  uint64_t seed_;
  uint32_t tag_base_;
  mutable std::mutex mu_;
  mutable std::map<uint64_t, std::pair<uint64_t, std::shared_ptr<const Draws>>> cache_;  // epoch -> (use, draws)
  mutable uint64_t clock_ = 0;
};

}  // namespace mindrecord
