#include "pipeline/basic_samplers.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mindrecord {

namespace {
constexpr uint64_t kSaltRandom = 0x72616e64ULL;
constexpr uint64_t kSaltSubset = 0x73756273ULL;
constexpr uint64_t kSaltWeighted = 0x77676874ULL;

class SequentialSampler : public Sampler {
 public:
  SequentialSampler(uint64_t start, uint64_t count, uint64_t num_samples, uint64_t rows, bool wrap)
      : start_(start), count_(count), num_samples_(num_samples), rows_(rows), wrap_(wrap) {}
  nlohmann::json ToJson() const override {
    nlohmann::json j = {{"type", "sequential"}, {"start", start_}, {"num_samples", num_samples_}};
    if (wrap_) j["wrap"] = true;
    return j;
  }
  uint64_t size() const override { return count_; }
  Result<std::vector<uint64_t>> Epoch(uint64_t, uint64_t) const override {
    std::vector<uint64_t> ids(count_);
    if (!wrap_) {
      std::iota(ids.begin(), ids.end(), start_);
      return ids;
    }
    for (uint64_t i = 0; i < count_; ++i) ids[i] = (start_ + i) % rows_;
    return ids;
  }

 private:
  uint64_t start_, count_, num_samples_, rows_;
  bool wrap_;
};

class RandomSampler : public Sampler {
 public:
  RandomSampler(uint64_t rows, bool replacement, uint64_t num_samples)
      : rows_(rows), replacement_(replacement), num_samples_(num_samples) {}
  nlohmann::json ToJson() const override {
    return {{"type", "random"}, {"replacement", replacement_}, {"num_samples", num_samples_}};
  }
  uint64_t size() const override {
    if (num_samples_ == 0) return rows_;
    return replacement_ ? num_samples_ : std::min(rows_, num_samples_);
  }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::mt19937_64 rng(MixSeed({seed, epoch, kSaltRandom}));
    std::vector<uint64_t> ids;
    if (replacement_) {
      ids.resize(size());
      for (auto& id : ids) id = UniformBelow(rng, rows_);
      return ids;
    }
    ids.resize(rows_);
    std::iota(ids.begin(), ids.end(), uint64_t{0});
    ShuffleRange(ids.data(), ids.data() + ids.size(), rng);
    ids.resize(size());
    return ids;
  }

 private:
  uint64_t rows_;
  bool replacement_;
  uint64_t num_samples_;
};

class SubsetSampler : public Sampler {
 public:
  SubsetSampler(std::vector<uint64_t> indices, bool random, uint64_t num_samples)
      : indices_(std::move(indices)), random_(random), num_samples_(num_samples) {}
  nlohmann::json ToJson() const override {
    return {{"type", random_ ? "subset_random" : "subset"}, {"indices", indices_}, {"num_samples", num_samples_}};
  }
  uint64_t size() const override {
    return num_samples_ == 0 ? indices_.size() : std::min<uint64_t>(indices_.size(), num_samples_);
  }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> ids = indices_;
    if (random_) {
      std::mt19937_64 rng(MixSeed({seed, epoch, kSaltSubset}));
      ShuffleRange(ids.data(), ids.data() + ids.size(), rng);
    }
    ids.resize(size());
    return ids;
  }

 private:
  std::vector<uint64_t> indices_;
  bool random_;
  uint64_t num_samples_;
};

class WeightedRandomSampler : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, uint64_t num_samples, bool replacement)
      : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement) {
    cumulative_.resize(weights_.size());
    double sum = 0;
    for (size_t i = 0; i < weights_.size(); ++i) cumulative_[i] = (sum += weights_[i]);
  }
  nlohmann::json ToJson() const override {
    return {{"type", "weighted_random"}, {"weights", weights_}, {"num_samples", num_samples_},
            {"replacement", replacement_}};
  }
  uint64_t size() const override { return num_samples_ == 0 ? weights_.size() : num_samples_; }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::mt19937_64 rng(MixSeed({seed, epoch, kSaltWeighted}));
    std::vector<uint64_t> ids(size());
    const double total = cumulative_.back();
    if (replacement_) {
      for (auto& id : ids) {
        const double u = Uniform01(rng) * total;
        auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
        // Skip zero-weight rows that share the boundary.
        size_t i = std::min<size_t>(it - cumulative_.begin(), weights_.size() - 1);
        while (weights_[i] <= 0 && i + 1 < weights_.size()) ++i;
        id = i;
      }
      return ids;
    }
    // Without replacement: Efraimidis-Spirakis keys u^(1/w), largest first.
    std::vector<std::pair<double, uint64_t>> keys;
    keys.reserve(weights_.size());
    for (size_t i = 0; i < weights_.size(); ++i) {
      const double u = Uniform01(rng);
      if (weights_[i] > 0) keys.emplace_back(std::log(u > 0 ? u : 1e-300) / weights_[i], i);
    }
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = keys[i].second;
    return ids;
  }

 private:
  std::vector<double> weights_;
  std::vector<double> cumulative_;
  uint64_t num_samples_;
  bool replacement_;
};
}  // namespace

Result<std::unique_ptr<Sampler>> MakeSequentialSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "sequential sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "start", "num_samples", "wrap"}, where));
  MR_ASSIGN_OR_RETURN(uint64_t start, SpecUInt(spec, "start", 0, where));
  MR_ASSIGN_OR_RETURN(uint64_t num, SpecUInt(spec, "num_samples", 0, where));
  MR_ASSIGN_OR_RETURN(bool wrap, SpecBool(spec, "wrap", false, where));
  const uint64_t rows = layout.num_rows();
  if (wrap) {
    // MindSpore's SequentialSampler: min(num_samples, rows) rows from
    // `start`, wrapping around past the last row.
    const uint64_t count = num != 0 ? std::min(num, rows) : rows;
    return std::unique_ptr<Sampler>(new SequentialSampler(start, count, num, rows, true));
  }
  if (start > rows) {
    return Status::InvalidArgument("sequential sampler: 'start' " + std::to_string(start) + " is past the " +
                                   std::to_string(rows) + " rows");
  }
  uint64_t count = rows - start;
  if (num != 0) count = std::min(count, num);
  return std::unique_ptr<Sampler>(new SequentialSampler(start, count, num, rows, false));
}

Result<std::unique_ptr<Sampler>> MakeRandomSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "random sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "replacement", "num_samples"}, where));
  MR_ASSIGN_OR_RETURN(bool replacement, SpecBool(spec, "replacement", false, where));
  MR_ASSIGN_OR_RETURN(uint64_t num, SpecUInt(spec, "num_samples", 0, where));
  if (replacement && layout.num_rows() == 0 && num > 0) {
    return Status::InvalidArgument("random sampler: cannot draw with replacement from an empty dataset");
  }
  return std::unique_ptr<Sampler>(new RandomSampler(layout.num_rows(), replacement, num));
}

Result<std::unique_ptr<Sampler>> MakeSubsetSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const bool random = spec.value("type", "") == "subset_random";
  const char* where = random ? "subset_random sampler" : "subset sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "indices", "num_samples"}, where));
  if (!spec.contains("indices") || !spec["indices"].is_array()) {
    return Status::InvalidArgument(std::string(where) + ": 'indices' must be a list of row ids");
  }
  std::vector<uint64_t> indices;
  const uint64_t rows = layout.num_rows();
  for (const auto& v : spec["indices"]) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<uint64_t>() >= rows) {
      return Status::InvalidArgument(std::string(where) + ": index " + v.dump() + " is not a row id in [0, " +
                                     std::to_string(rows) + ")");
    }
    indices.push_back(v.get<uint64_t>());
  }
  MR_ASSIGN_OR_RETURN(uint64_t num, SpecUInt(spec, "num_samples", 0, where));
  return std::unique_ptr<Sampler>(new SubsetSampler(std::move(indices), random, num));
}

Result<std::unique_ptr<Sampler>> MakeWeightedRandomSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "weighted_random sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "weights", "num_samples", "replacement"}, where));
  if (!spec.contains("weights") || !spec["weights"].is_array() || spec["weights"].empty()) {
    return Status::InvalidArgument("weighted_random sampler: 'weights' must be a non-empty list of numbers");
  }
  std::vector<double> weights;
  size_t positive = 0;
  for (const auto& w : spec["weights"]) {
    if (!w.is_number() || !(w.get<double>() >= 0) || !std::isfinite(w.get<double>())) {
      return Status::InvalidArgument("weighted_random sampler: weight " + w.dump() +
                                     " is not a finite number >= 0");
    }
    weights.push_back(w.get<double>());
    positive += weights.back() > 0;
  }
  if (weights.size() > layout.num_rows()) {
    return Status::InvalidArgument("weighted_random sampler: " + std::to_string(weights.size()) +
                                   " weights for " + std::to_string(layout.num_rows()) + " rows");
  }
  if (positive == 0) return Status::InvalidArgument("weighted_random sampler: all weights are zero");
  MR_ASSIGN_OR_RETURN(uint64_t num, SpecUInt(spec, "num_samples", 0, where));
  MR_ASSIGN_OR_RETURN(bool replacement, SpecBool(spec, "replacement", true, where));
  const uint64_t want = num == 0 ? weights.size() : num;
  if (!replacement && want > positive) {
    return Status::InvalidArgument("weighted_random sampler: " + std::to_string(want) +
                                   " samples without replacement but only " + std::to_string(positive) +
                                   " rows have a positive weight");
  }
  return std::unique_ptr<Sampler>(new WeightedRandomSampler(std::move(weights), num, replacement));
}

}  // namespace mindrecord
