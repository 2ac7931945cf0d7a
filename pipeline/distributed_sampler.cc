#include "pipeline/distributed_sampler.h"

#include <mutex>
#include <optional>

#include "pipeline/shuffle_mode.h"

namespace mindrecord {

namespace {

// One rank's share of `base` (an epoch's order) among `num_shards` ranks:
// positions shard_id, shard_id + N, ... (round robin) or the rank's block
// (contiguous); with `pad`, `base` is first extended by its own first rows
// to a multiple of N, so every rank gets ceil(n / N) ids.
std::vector<uint64_t> Deal(std::vector<uint64_t> base, uint64_t num_shards, uint64_t shard_id, bool pad,
                           bool contiguous) {
  const uint64_t n = base.size();
  std::vector<uint64_t> out;
  if (n == 0) return out;
  if (pad) {
    const uint64_t per = (n + num_shards - 1) / num_shards;
    const uint64_t total = per * num_shards;
    for (uint64_t i = n; i < total; ++i) base.push_back(base[(i - n) % n]);
    out.reserve(per);
    for (uint64_t k = 0; k < per; ++k) {
      out.push_back(contiguous ? base[shard_id * per + k] : base[k * num_shards + shard_id]);
    }
    return out;
  }
  if (contiguous) {
    // The first n % N ranks take one extra row.
    const uint64_t q = n / num_shards, r = n % num_shards;
    const uint64_t begin = shard_id * q + std::min(shard_id, r);
    const uint64_t per = q + (shard_id < r ? 1 : 0);
    out.assign(base.begin() + static_cast<ptrdiff_t>(begin), base.begin() + static_cast<ptrdiff_t>(begin + per));
  } else {
    for (uint64_t i = shard_id; i < n; i += num_shards) out.push_back(base[i]);
  }
  return out;
}

class DistributedSampler : public Sampler {
 public:
  struct WorkerSplit {
    uint64_t count = 1, id = 0, batch = 1;
  };
  // An elastic epoch (see distributed_sampler.h): the old run's rank spec
  // (without shard_id) and each old rank's position in that epoch.
  struct Elastic {
    uint64_t epoch = 0;
    nlohmann::json from;
    std::vector<uint64_t> positions;
  };

  DistributedSampler(uint64_t num_shards, uint64_t shard_id, ShuffleMode mode, uint64_t block, bool contiguous,
                     bool pad, uint64_t num_samples, WorkerSplit workers, std::optional<Elastic> elastic,
                     DatasetLayout layout)
      : num_shards_(num_shards), shard_id_(shard_id), mode_(mode), block_(block), contiguous_(contiguous),
        pad_(pad), num_samples_(num_samples), workers_(workers), elastic_(std::move(elastic)),
        layout_(std::move(layout)) {}

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
    if (elastic_) {
      j["elastic"] = {{"epoch", elastic_->epoch}, {"from", elastic_->from}, {"positions", elastic_->positions}};
    }
    return j;
  }

  uint64_t size() const override { return WorkerShare(RankSize()); }

  Result<uint64_t> EpochSize(uint64_t seed, uint64_t epoch) const override {
    if (!elastic_ || epoch != elastic_->epoch) return size();
    MR_ASSIGN_OR_RETURN(auto ids, ElasticRankEpoch(seed));
    return WorkerShare(ids->size());
  }

  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> rank;
    if (elastic_ && epoch == elastic_->epoch) {
      MR_ASSIGN_OR_RETURN(auto ids, ElasticRankEpoch(seed));
      rank = *ids;
    } else {
      rank = RankEpoch(seed, epoch);
    }
    if (workers_.count == 1) return rank;
    std::vector<uint64_t> out;
    out.reserve(WorkerShare(rank.size()));
    for (uint64_t k = 0; k < rank.size(); ++k) {
      if ((k / workers_.batch) % workers_.count == workers_.id) out.push_back(rank[k]);
    }
    return out;
  }

 private:
  // This worker's ids of a rank share of `rank` ids: whole batches dealt
  // round robin; the last one may be short.
  uint64_t WorkerShare(uint64_t rank) const {
    if (workers_.count == 1) return rank;
    const uint64_t b = workers_.batch, batches = (rank + b - 1) / b;
    const uint64_t mine = batches / workers_.count + (workers_.id < batches % workers_.count ? 1 : 0);
    uint64_t rows = mine * b;
    if (batches > 0 && (batches - 1) % workers_.count == workers_.id) rows -= batches * b - rank;
    return rows;
  }

  // The rank's share, at most num_samples_ (0: no cap).
  uint64_t RankSize() const {
    const uint64_t n = layout_.num_rows();
    const uint64_t share =
        pad_ ? (n + num_shards_ - 1) / num_shards_ : n / num_shards_ + (shard_id_ < n % num_shards_ ? 1 : 0);
    return num_samples_ != 0 ? std::min(share, num_samples_) : share;
  }

  // This rank's ids, in order.
  std::vector<uint64_t> RankEpoch(uint64_t seed, uint64_t epoch) const {
    std::vector<uint64_t> out =
        Deal(ShuffleOrder(mode_, layout_, seed, epoch, block_), num_shards_, shard_id_, pad_, contiguous_);
    out.resize(std::min<uint64_t>(out.size(), RankSize()));
    return out;
  }

  // The elastic epoch's ids of this rank: its rest order dealt among this
  // run's ranks. Computed once per seed.
  Result<std::shared_ptr<const std::vector<uint64_t>>> ElasticRankEpoch(uint64_t seed) const {
    MR_ASSIGN_OR_RETURN(auto rest, ElasticRest(seed));
    std::lock_guard<std::mutex> lock(elastic_mu_);
    if (!elastic_ids_ || elastic_seed_ != seed) {
      elastic_ids_ = std::make_shared<const std::vector<uint64_t>>(
          Deal(*rest, num_shards_, shard_id_, pad_, contiguous_));
      elastic_seed_ = seed;
    }
    return elastic_ids_;
  }

 public:
  // The order the elastic epoch deals from: the old run's order of that
  // epoch (its own rest order when it was itself resumed elastically in it,
  // else the epoch's base order) less the rows an old rank handed out before
  // its position (a padding copy counts for its row). Computed once per seed.
  Result<std::shared_ptr<const std::vector<uint64_t>>> ElasticRest(uint64_t seed) const {
    std::lock_guard<std::mutex> lock(elastic_mu_);
    if (elastic_rest_ && rest_seed_ == seed) return elastic_rest_;
    const Elastic& el = *elastic_;
    const uint64_t n = layout_.num_rows();
    std::vector<bool> taken(n, false);
    std::vector<uint64_t> base;
    for (uint64_t r = 0; r < el.positions.size(); ++r) {
      nlohmann::json spec = el.from;
      spec["type"] = "distributed";
      spec["shard_id"] = r;
      MR_ASSIGN_OR_RETURN(auto old, MakeDistributedSampler(spec, layout_));
      MR_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, old->Epoch(seed, el.epoch));
      if (el.positions[r] > ids.size()) {
        return Status::InvalidArgument("distributed sampler: elastic resume: old rank " + std::to_string(r) +
                                       " is at position " + std::to_string(el.positions[r]) + " of epoch " +
                                       std::to_string(el.epoch) + ", which has " + std::to_string(ids.size()) +
                                       " rows on that rank");
      }
      for (uint64_t k = 0; k < el.positions[r]; ++k) taken[ids[k]] = true;
      if (r == 0) {
        const auto* prev = static_cast<const DistributedSampler*>(old.get());
        if (prev->elastic_ && prev->elastic_->epoch == el.epoch) {
          MR_ASSIGN_OR_RETURN(auto prev_rest, prev->ElasticRest(seed));
          base = *prev_rest;
        } else {
          base = ShuffleOrder(mode_, layout_, seed, el.epoch, block_);
        }
      }
    }
    std::vector<uint64_t> rest;
    for (uint64_t id : base) {
      if (!taken[id]) {
        rest.push_back(id);
        taken[id] = true;  // each row once
      }
    }
    elastic_rest_ = std::make_shared<const std::vector<uint64_t>>(std::move(rest));
    rest_seed_ = seed;
    return elastic_rest_;
  }

 private:
  uint64_t num_shards_, shard_id_;
  ShuffleMode mode_;
  uint64_t block_;
  bool contiguous_, pad_;
  uint64_t num_samples_;
  WorkerSplit workers_;
  std::optional<Elastic> elastic_;
  DatasetLayout layout_;
  mutable std::mutex elastic_mu_;
  mutable std::shared_ptr<const std::vector<uint64_t>> elastic_ids_, elastic_rest_;
  mutable uint64_t elastic_seed_ = 0, rest_seed_ = 0;
};

// The "elastic" object of a spec whose other parameters are parsed.
Result<DistributedSampler::Elastic> ParseElastic(const nlohmann::json& j, ShuffleMode mode, uint64_t block,
                                                 uint64_t num_samples, const DatasetLayout& layout) {
  const char* where = "distributed sampler: 'elastic'";
  if (!j.is_object()) return Status::InvalidArgument(std::string(where) + " must be an object");
  MR_RETURN_IF_ERROR(SpecCheckKeys(j, {"epoch", "from", "positions"}, where));
  DistributedSampler::Elastic el;
  MR_ASSIGN_OR_RETURN(el.epoch, SpecUInt(j, "epoch", 0, where));
  if (!j.contains("from") || !j["from"].is_object()) {
    return Status::InvalidArgument(std::string(where) + ": 'from' must be the old ranks' sampler spec (an object)");
  }
  if (num_samples != 0) {
    return Status::InvalidArgument(std::string(where) + ": not with 'num_samples' (a capped epoch leaves rows that "
                                   "no rank was to read)");
  }
  nlohmann::json from = j["from"];
  for (const char* k : {"shard_id", "worker_count", "worker_id", "worker_batch"}) {
    if (from.contains(k)) {
      return Status::InvalidArgument(std::string(where) + ": 'from' names the old ranks' spec without '" + k + "'");
    }
  }
  from["type"] = "distributed";
  from["shard_id"] = 0;
  MR_ASSIGN_OR_RETURN(auto probe, MakeDistributedSampler(from, layout));
  nlohmann::json norm = probe->ToJson();
  if (norm.value("num_samples", uint64_t{0}) != 0) {
    return Status::InvalidArgument(std::string(where) + ": the old ranks' spec has 'num_samples'");
  }
  if (norm["shuffle"] != ShuffleModeName(mode) || norm["block_size"] != block) {
    return Status::InvalidArgument(std::string(where) + ": the old ranks shuffled with " + norm["shuffle"].dump() +
                                   " (block_size " + norm["block_size"].dump() + "), this rank with \"" +
                                   ShuffleModeName(mode) + "\" (block_size " + std::to_string(block) +
                                   "): the epoch's order must be the same");
  }
  // A nested elastic epoch matters only when it is this one.
  if (norm.contains("elastic") && norm["elastic"]["epoch"] != el.epoch) norm.erase("elastic");
  norm.erase("type");
  norm.erase("shard_id");
  el.from = std::move(norm);
  if (!j.contains("positions") || !j["positions"].is_array()) {
    return Status::InvalidArgument(std::string(where) + ": 'positions' must be a list (one per old rank)");
  }
  for (const auto& p : j["positions"]) {
    if (!p.is_number_integer() || (!p.is_number_unsigned() && p.get<int64_t>() < 0)) {
      return Status::InvalidArgument(std::string(where) + ": 'positions' must hold non-negative integers");
    }
    el.positions.push_back(p.is_number_unsigned() ? p.get<uint64_t>() : static_cast<uint64_t>(p.get<int64_t>()));
  }
  if (el.positions.size() != el.from["num_shards"].get<uint64_t>()) {
    return Status::InvalidArgument(std::string(where) + ": " + std::to_string(el.positions.size()) +
                                   " positions for " + el.from["num_shards"].dump() + " old ranks");
  }
  return el;
}
}  // namespace

Result<std::unique_ptr<Sampler>> MakeDistributedSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "distributed sampler";
  MR_RETURN_IF_ERROR(
      SpecCheckKeys(spec, {"type", "num_shards", "shard_id", "shuffle", "block_size", "split", "pad", "num_samples",
                           "worker_count", "worker_id", "worker_batch", "elastic"},
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
  std::optional<DistributedSampler::Elastic> elastic;
  if (spec.contains("elastic") && !spec["elastic"].is_null()) {
    MR_ASSIGN_OR_RETURN(elastic, ParseElastic(spec["elastic"], mode, block, num_samples, layout));
  }
  return std::unique_ptr<Sampler>(new DistributedSampler(num_shards, shard_id, mode, block, split == "contiguous", pad,
                                                         num_samples, workers, std::move(elastic), layout));
}

}  // namespace mindrecord
