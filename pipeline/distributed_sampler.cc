#include "pipeline/distributed_sampler.h"

#include "pipeline/shuffle_mode.h"

namespace mindrecord {

namespace {
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(uint64_t num_shards, uint64_t shard_id, ShuffleMode mode, uint64_t block, bool contiguous,
                     bool pad, DatasetLayout layout)
      : num_shards_(num_shards), shard_id_(shard_id), mode_(mode), block_(block), contiguous_(contiguous),
        pad_(pad), layout_(std::move(layout)) {}

  nlohmann::json ToJson() const override {
    return {{"type", "distributed"}, {"num_shards", num_shards_}, {"shard_id", shard_id_},
            {"shuffle", ShuffleModeName(mode_)}, {"block_size", block_},
            {"split", contiguous_ ? "contiguous" : "round_robin"}, {"pad", pad_}};
  }

  uint64_t size() const override {
    const uint64_t n = layout_.num_rows();
    if (pad_) return (n + num_shards_ - 1) / num_shards_;
    return n / num_shards_ + (shard_id_ < n % num_shards_ ? 1 : 0);
  }

  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> base = ShuffleOrder(mode_, layout_, seed, epoch, block_);
    const uint64_t n = base.size();
    std::vector<uint64_t> out;
    if (n == 0) return out;
    const uint64_t per = size();
    out.reserve(per);
    if (pad_) {
      const uint64_t total = per * num_shards_;
      for (uint64_t i = n; i < total; ++i) base.push_back(base[(i - n) % n]);
      for (uint64_t k = 0; k < per; ++k) {
        out.push_back(contiguous_ ? base[shard_id_ * per + k] : base[k * num_shards_ + shard_id_]);
      }
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
    return out;
  }

 private:
  uint64_t num_shards_, shard_id_;
  ShuffleMode mode_;
  uint64_t block_;
  bool contiguous_, pad_;
  DatasetLayout layout_;
};
}  // namespace

Result<std::unique_ptr<Sampler>> MakeDistributedSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "distributed sampler";
  MR_RETURN_IF_ERROR(
      SpecCheckKeys(spec, {"type", "num_shards", "shard_id", "shuffle", "block_size", "split", "pad"}, where));
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
  return std::unique_ptr<Sampler>(
      new DistributedSampler(num_shards, shard_id, mode, block, split == "contiguous", pad, layout));
}

}  // namespace mindrecord
