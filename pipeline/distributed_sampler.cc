#include "pipeline/distributed_sampler.h"

#include "pipeline/shuffle_mode.h"

namespace mindrecord {

namespace {
class DistributedSampler : public Sampler {
 public:
  struct WorkerSplit {
    uint64_t count = 1, id = 0, batch = 1;
  };

  DistributedSampler(uint64_t num_shards, uint64_t shard_id, ShuffleMode mode, uint64_t block, bool contiguous,
                     bool pad, uint64_t num_samples, WorkerSplit workers, DatasetLayout layout)
      : num_shards_(num_shards), shard_id_(shard_id), mode_(mode), block_(block), contiguous_(contiguous),
        pad_(pad), num_samples_(num_samples), workers_(workers), layout_(std::move(layout)) {}

  nlohmann::json ToJson() const override {
    nlohmann::json j = {{"type", "distributed"}, {"num_shards", num_shards_}, {"shard_id", shard_id_},
                        {"shuffle", ShuffleModeName(mode_)}, {"block_size", block_},
                        {"split", contiguous_ ? "contiguous" : "round_robin"}, {"pad", pad_}};
    if (num_samples_ != 0) j["num_samples"] = num_samples_;
    if (workers_.count > 1) {
      j["worker_count"] = workers_.count;
      j["worker_id"] = workers_.id;
      j["worker_batch"] = workers_.batch;
    }
    return j;
  }

  uint64_t size() const override {
    const uint64_t rank = RankSize();
    if (workers_.count == 1) return rank;
    // Whole batches dealt round robin; the last one may be short.
    const uint64_t b = workers_.batch, batches = (rank + b - 1) / b;
    const uint64_t mine = batches / workers_.count + (workers_.id < batches % workers_.count ? 1 : 0);
    uint64_t rows = mine * b;
    if (batches > 0 && (batches - 1) % workers_.count == workers_.id) rows -= batches * b - rank;
    return rows;
  }

  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> rank, RankEpoch(seed, epoch));
    if (workers_.count == 1) return rank;
    std::vector<uint64_t> out;
    out.reserve(size());
    for (uint64_t k = 0; k < rank.size(); ++k) {
      if ((k / workers_.batch) % workers_.count == workers_.id) out.push_back(rank[k]);
    }
    return out;
  }

 private:
  // The rank's share, at most num_samples_ (0: no cap).
  uint64_t RankSize() const {
    const uint64_t share = ShareSize();
    return num_samples_ != 0 ? std::min(share, num_samples_) : share;
  }
  uint64_t ShareSize() const {
    const uint64_t n = layout_.num_rows();
    if (pad_) return (n + num_shards_ - 1) / num_shards_;
    return n / num_shards_ + (shard_id_ < n % num_shards_ ? 1 : 0);
  }

  // This rank's ids, in order.
  Result<std::vector<uint64_t>> RankEpoch(uint64_t seed, uint64_t epoch) const {
    std::vector<uint64_t> base = ShuffleOrder(mode_, layout_, seed, epoch, block_);
    const uint64_t n = base.size();
    std::vector<uint64_t> out;
    if (n == 0) return out;
    const uint64_t per = ShareSize();
    out.reserve(per);
    if (pad_) {
      const uint64_t total = per * num_shards_;
      for (uint64_t i = n; i < total; ++i) base.push_back(base[(i - n) % n]);
      for (uint64_t k = 0; k < per; ++k) {
        out.push_back(contiguous_ ? base[shard_id_ * per + k] : base[k * num_shards_ + shard_id_]);
      }
      out.resize(RankSize());
      return out;
    }
    if (contiguous_) {
      // The first n % N ranks take one extra row.
      const uint64_t q = n / num_shards_, r = n % num_shards_;
      const uint64_t begin = shard_id_ * q + std::min(shard_id_, r);
      for (uint64_t k = 0; k < per; ++k) out.push_back(base[begin + k]);
    } else {
      for (uint64_t i = shard_id_; i < n; i += num_shards_) out.push_back(base[i]);
    }
    out.resize(RankSize());
    return out;
  }

  uint64_t num_shards_, shard_id_;
  ShuffleMode mode_;
  uint64_t block_;
  bool contiguous_, pad_;
  uint64_t num_samples_;
  WorkerSplit workers_;
  DatasetLayout layout_;
};
}  // namespace

Result<std::unique_ptr<Sampler>> MakeDistributedSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "distributed sampler";
  MR_RETURN_IF_ERROR(
      SpecCheckKeys(spec, {"type", "num_shards", "shard_id", "shuffle", "block_size", "split", "pad", "num_samples",
                           "worker_count", "worker_id", "worker_batch"},
                    where));
  MR_ASSIGN_OR_RETURN(uint64_t num_shards, SpecUInt(spec, "num_shards", 0, where));
  MR_ASSIGN_OR_RETURN(uint64_t shard_id, SpecUInt(spec, "shard_id", 0, where));
  if (num_shards == 0) return Status::InvalidArgument("distributed sampler: 'num_shards' must be >= 1");
  if (shard_id >= num_shards) {
    return Status::InvalidArgument("distributed sampler: 'shard_id' " + std::to_string(shard_id) +
                                   " is not in [0, " + std::to_string(num_shards) + ")");
  }
  ShuffleMode mode = ShuffleMode::kOff;
  if (spec.contains("shuffle")) {
    MR_ASSIGN_OR_RETURN(mode, ParseShuffleJson(spec["shuffle"], where));
  }
  MR_ASSIGN_OR_RETURN(uint64_t block, SpecUInt(spec, "block_size", kDefaultPartialBlock, where));
  if (block == 0) return Status::InvalidArgument("distributed sampler: 'block_size' must be > 0");
  MR_ASSIGN_OR_RETURN(std::string split, SpecString(spec, "split", "round_robin", where));
  if (split != "round_robin" && split != "contiguous") {
    return Status::InvalidArgument("distributed sampler: 'split' must be round_robin or contiguous, got '" + split +
                                   "'");
  }
  MR_ASSIGN_OR_RETURN(bool pad, SpecBool(spec, "pad", true, where));
  MR_ASSIGN_OR_RETURN(uint64_t num_samples, SpecUInt(spec, "num_samples", 0, where));
  DistributedSampler::WorkerSplit workers;
  MR_ASSIGN_OR_RETURN(workers.count, SpecUInt(spec, "worker_count", 1, where));
  MR_ASSIGN_OR_RETURN(workers.id, SpecUInt(spec, "worker_id", 0, where));
  MR_ASSIGN_OR_RETURN(workers.batch, SpecUInt(spec, "worker_batch", 1, where));
  if (workers.count == 0 || workers.batch == 0) {
    return Status::InvalidArgument("distributed sampler: 'worker_count' and 'worker_batch' must be >= 1");
  }
  if (workers.id >= workers.count) {
    return Status::InvalidArgument("distributed sampler: 'worker_id' " + std::to_string(workers.id) +
                                   " is not in [0, " + std::to_string(workers.count) + ")");
  }
  return std::unique_ptr<Sampler>(new DistributedSampler(num_shards, shard_id, mode, block, split == "contiguous", pad,
                                                         num_samples, workers, layout));
}

}  // namespace mindrecord
