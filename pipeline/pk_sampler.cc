#include "pipeline/pk_sampler.h"

#include <numeric>

namespace mindrecord {

namespace {
constexpr uint64_t kSaltClasses = 0x636c7373ULL;
constexpr uint64_t kSaltMembers = 0x6d656d62ULL;

class PKSampler : public Sampler {
 public:
  PKSampler(std::string field, uint64_t k, uint64_t num_classes, bool shuffle, uint64_t num_samples,
            IndexGroups groups)
      : field_(std::move(field)), k_(k), num_classes_(num_classes), shuffle_(shuffle), num_samples_(num_samples),
        groups_(std::move(groups)) {}

  nlohmann::json ToJson() const override {
    return {{"type", "pk"}, {"field", field_}, {"k", k_}, {"num_classes", num_classes_},
            {"shuffle", shuffle_}, {"num_samples", num_samples_}};
  }
  uint64_t classes() const {
    return num_classes_ == 0 ? groups_.size() : std::min<uint64_t>(num_classes_, groups_.size());
  }
  uint64_t size() const override {
    const uint64_t all = classes() * k_;
    return num_samples_ == 0 ? all : std::min(all, num_samples_);
  }

  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> order(groups_.size());
    std::iota(order.begin(), order.end(), uint64_t{0});
    if (shuffle_) {
      std::mt19937_64 rng(MixSeed({seed, epoch, kSaltClasses}));
      ShuffleRange(order.data(), order.data() + order.size(), rng);
    }
    std::vector<uint64_t> out;
    out.reserve(classes() * k_);
    for (uint64_t c = 0; c < classes(); ++c) {
      const std::vector<uint64_t>& rows = groups_[order[c]].second;
      if (!shuffle_) {
        for (uint64_t i = 0; i < k_; ++i) out.push_back(rows[i % rows.size()]);
        continue;
      }
      std::mt19937_64 rng(MixSeed({seed, epoch, kSaltMembers, order[c]}));
      if (rows.size() >= k_) {
        // Partial Fisher-Yates: the first K of a random permutation.
        std::vector<uint64_t> pick = rows;
        for (uint64_t i = 0; i < k_; ++i) {
          std::swap(pick[i], pick[i + UniformBelow(rng, pick.size() - i)]);
          out.push_back(pick[i]);
        }
      } else {
        for (uint64_t i = 0; i < k_; ++i) out.push_back(rows[UniformBelow(rng, rows.size())]);
      }
    }
    out.resize(size());
    return out;
  }

 private:
  std::string field_;
  uint64_t k_, num_classes_;
  bool shuffle_;
  uint64_t num_samples_;
  IndexGroups groups_;
};
}  // namespace

Result<std::unique_ptr<Sampler>> MakePKSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "pk sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "field", "k", "num_classes", "shuffle", "num_samples"}, where));
  MR_ASSIGN_OR_RETURN(std::string field, SpecString(spec, "field", "label", where));
  MR_ASSIGN_OR_RETURN(uint64_t k, SpecUInt(spec, "k", 0, where));
  if (k == 0) return Status::InvalidArgument("pk sampler: 'k' (rows per class) must be >= 1");
  MR_ASSIGN_OR_RETURN(uint64_t num_classes, SpecUInt(spec, "num_classes", 0, where));
  MR_ASSIGN_OR_RETURN(bool shuffle, SpecBool(spec, "shuffle", false, where));
  MR_ASSIGN_OR_RETURN(uint64_t num_samples, SpecUInt(spec, "num_samples", 0, where));
  if (!layout.group_by) return Status::NotSupported("pk sampler: this dataset has no index to group rows by");
  auto groups = layout.group_by(field);
  if (!groups.ok()) return groups.status().WithContext("pk sampler: field '" + field + "'");
  IndexGroups g = std::move(groups).value();
  for (auto it = g.begin(); it != g.end();) it = it->second.empty() ? g.erase(it) : it + 1;
  return std::unique_ptr<Sampler>(new PKSampler(field, k, num_classes, shuffle, num_samples, std::move(g)));
}

}  // namespace mindrecord
