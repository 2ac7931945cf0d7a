#include "pipeline/sampler_wrappers.h"

#include <limits>
#include <string>

namespace mindrecord {

namespace {

constexpr uint64_t kSaltBuffer = 0x62756666ULL;
constexpr uint64_t kSaltChain = 0x63686e6eULL;

// The inner spec of a wrapper, built over `layout`.
Result<std::unique_ptr<Sampler>> Inner(const nlohmann::json& spec, const char* key, const DatasetLayout& layout,
                                       const char* where) {
  if (!spec.contains(key) || !spec[key].is_object()) {
    return Status::InvalidArgument(std::string(where) + ": '" + key + "' must be a sampler spec object");
  }
  auto inner = MakeSampler(spec[key], layout);
  if (!inner.ok()) return inner.status().WithContext(where);
  return inner;
}

class RepeatSampler : public Sampler {
 public:
  RepeatSampler(uint64_t count, std::unique_ptr<Sampler> inner) : count_(count), inner_(std::move(inner)) {}
  nlohmann::json ToJson() const override {
    return {{"type", "repeat"}, {"count", count_}, {"sampler", inner_->ToJson()}};
  }
  uint64_t size() const override { return count_ * inner_->size(); }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> out;
    out.reserve(size());
    for (uint64_t j = 0; j < count_; ++j) {
      MR_ASSIGN_OR_RETURN(std::vector<uint64_t> pass, inner_->Epoch(seed, epoch * count_ + j));
      out.insert(out.end(), pass.begin(), pass.end());
    }
    return out;
  }

 private:
  uint64_t count_;
  std::unique_ptr<Sampler> inner_;
};

class BufferShuffleSampler : public Sampler {
 public:
  BufferShuffleSampler(uint64_t buffer, std::unique_ptr<Sampler> inner) : buffer_(buffer), inner_(std::move(inner)) {}
  nlohmann::json ToJson() const override {
    return {{"type", "buffer_shuffle"}, {"buffer_size", buffer_}, {"sampler", inner_->ToJson()}};
  }
  uint64_t size() const override { return inner_->size(); }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> in, inner_->Epoch(seed, epoch));
    std::mt19937_64 rng(MixSeed({seed, epoch, kSaltBuffer}));
    std::vector<uint64_t> out, buf;
    out.reserve(in.size());
    buf.reserve(std::min<uint64_t>(buffer_, in.size()));
    for (uint64_t id : in) {
      if (buf.size() < buffer_) {
        buf.push_back(id);
        continue;
      }
      const uint64_t r = UniformBelow(rng, buf.size());
      out.push_back(buf[r]);
      buf[r] = id;
    }
    while (!buf.empty()) {
      const uint64_t r = UniformBelow(rng, buf.size());
      out.push_back(buf[r]);
      buf[r] = buf.back();
      buf.pop_back();
    }
    return out;
  }

 private:
  uint64_t buffer_;
  std::unique_ptr<Sampler> inner_;
};

class ChainSampler : public Sampler {
 public:
  ChainSampler(std::unique_ptr<Sampler> parent, std::unique_ptr<Sampler> child)
      : parent_(std::move(parent)), child_(std::move(child)) {}
  nlohmann::json ToJson() const override {
    return {{"type", "chain"}, {"sampler", parent_->ToJson()}, {"child", child_->ToJson()}};
  }
  uint64_t size() const override { return parent_->size(); }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> rows, child_->Epoch(seed, epoch));
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> picks, parent_->Epoch(MixSeed({seed, kSaltChain}), epoch));
    for (uint64_t& p : picks) {
      if (p >= rows.size()) {
        return Status::Internal("chain sampler: id " + std::to_string(p) + " past the child's " +
                                std::to_string(rows.size()) + " ids");
      }
      p = rows[p];
    }
    return picks;
  }

 private:
  std::unique_ptr<Sampler> parent_, child_;
};

}  // namespace

Result<std::unique_ptr<Sampler>> MakeRepeatSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "repeat sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "count", "sampler"}, where));
  MR_ASSIGN_OR_RETURN(uint64_t count, SpecUInt(spec, "count", 0, where));
  if (count == 0) return Status::InvalidArgument("repeat sampler: 'count' must be >= 1");
  MR_ASSIGN_OR_RETURN(auto inner, Inner(spec, "sampler", layout, where));
  if (inner->size() != 0 && count > std::numeric_limits<uint32_t>::max() / inner->size()) {
    return Status::InvalidArgument("repeat sampler: " + std::to_string(count) + " passes of " +
                                   std::to_string(inner->size()) + " ids are too many for one epoch");
  }
  return std::unique_ptr<Sampler>(new RepeatSampler(count, std::move(inner)));
}

Result<std::unique_ptr<Sampler>> MakeBufferShuffleSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "buffer_shuffle sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "buffer_size", "sampler"}, where));
  MR_ASSIGN_OR_RETURN(uint64_t buffer, SpecUInt(spec, "buffer_size", 0, where));
  if (buffer < 2) return Status::InvalidArgument("buffer_shuffle sampler: 'buffer_size' must be >= 2");
  MR_ASSIGN_OR_RETURN(auto inner, Inner(spec, "sampler", layout, where));
  return std::unique_ptr<Sampler>(new BufferShuffleSampler(buffer, std::move(inner)));
}

Result<std::unique_ptr<Sampler>> MakeChainSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "chain sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "sampler", "child"}, where));
  MR_ASSIGN_OR_RETURN(auto child, Inner(spec, "child", layout, where));
  // The parent sees the child's ids as one shard of that many rows.
  DatasetLayout over = DatasetLayout::Uniform(child->size(), 1);
  over.group_by = nullptr;
  MR_ASSIGN_OR_RETURN(auto parent, Inner(spec, "sampler", over, where));
  return std::unique_ptr<Sampler>(new ChainSampler(std::move(parent), std::move(child)));
}

}  // namespace mindrecord
