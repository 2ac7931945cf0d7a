// The processes of one distributed conversion (ConvertOptions::ranks) and
// the little they tell each other: plan fingerprints, input sizes, per-shard
// totals and failures. Rows never move between ranks; each rank writes its
// own shards. Implementations: LocalRankGroup (one process), the CLI's MPI
// group (cli/mpi_rank_group.h) and the Python package's torch.distributed
// group.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord::convert {

// Thread safety: used by one thread of each process (the one running
// Convert()). Collective calls (AllGather) are made by every rank in the
// same order; AnnounceFailure and PollFailure never wait for other ranks.
class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // Whether the ranks can exchange anything. False: each rank writes its
  // shards as parts and stops; a later `--resume` run finishes the dataset.
  virtual bool connected() const { return true; }
  // Collective: every rank's `mine`, in rank order.
  virtual Result<std::vector<std::string>> AllGather(const std::string& mine) = 0;
  // Tells the other ranks, without waiting, that this one failed and why,
  // so that they stop early. At most once per conversion.
  virtual void AnnounceFailure(const std::string& why) { (void)why; }
  // A failure another rank announced and that has arrived, if any. Never waits.
  virtual std::optional<std::string> PollFailure() { return std::nullopt; }
  // After the last AllGather of a conversion: `announced` lists the ranks
  // that called AnnounceFailure; an implementation takes in the notices
  // still on their way, so that nothing is left pending.
  virtual Status SettleFailures(const std::vector<uint32_t>& announced) {
    (void)announced;
    return Status::OK();
  }
};

// One process, or one of several that cannot talk (connected() false):
// AllGather returns this rank's own message alone.
class LocalRankGroup : public RankGroup {
 public:
  LocalRankGroup(uint32_t rank = 0, uint32_t size = 1) : rank_(rank), size_(size) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  bool connected() const override { return size_ == 1; }
  Result<std::vector<std::string>> AllGather(const std::string& mine) override {
    if (size_ != 1) return Status::InvalidArgument("the ranks of this conversion cannot exchange messages");
    return std::vector<std::string>{mine};
  }

 private:
  uint32_t rank_, size_;
};

}  // namespace mindrecord::convert
