#include "pipeline/shuffle_mode.h"

#include <numeric>

namespace mindrecord {

namespace {
constexpr uint64_t kSaltFiles = 0x66696c6573ULL;
constexpr uint64_t kSaltRows = 0x726f7773ULL;
constexpr uint64_t kSaltBlocks = 0x626c6b73ULL;

class ShuffleSampler : public Sampler {
 public:
  ShuffleSampler(ShuffleMode mode, uint64_t block, uint64_t num_samples, DatasetLayout layout)
      : mode_(mode), block_(block), num_samples_(num_samples), layout_(std::move(layout)) {}
  nlohmann::json ToJson() const override {
    return {{"type", "shuffle"}, {"mode", ShuffleModeName(mode_)}, {"block_size", block_},
            {"num_samples", num_samples_}};
  }
  uint64_t size() const override {
    uint64_t n = layout_.num_rows();
    return num_samples_ == 0 ? n : std::min(n, num_samples_);
  }
  Result<std::vector<uint64_t>> Epoch(uint64_t seed, uint64_t epoch) const override {
    std::vector<uint64_t> ids = ShuffleOrder(mode_, layout_, seed, epoch, block_);
    ids.resize(size());
    return ids;
  }

 private:
  ShuffleMode mode_;
  uint64_t block_;
  uint64_t num_samples_;
  DatasetLayout layout_;
};
}  // namespace

const char* ShuffleModeName(ShuffleMode m) {
  switch (m) {
    case ShuffleMode::kOff: return "off";
    case ShuffleMode::kGlobal: return "global";
    case ShuffleMode::kPartial: return "partial";
    case ShuffleMode::kFiles: return "files";
    case ShuffleMode::kInfile: return "infile";
    case ShuffleMode::kAdaptive: return "adaptive";
  }
  return "?";
}

Result<ShuffleMode> ParseShuffleMode(const std::string& name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (n == "off" || n == "false" || n == "none") return ShuffleMode::kOff;
  if (n == "global" || n == "true") return ShuffleMode::kGlobal;
  if (n == "partial") return ShuffleMode::kPartial;
  if (n == "files") return ShuffleMode::kFiles;
  if (n == "infile") return ShuffleMode::kInfile;
  if (n == "adaptive") return ShuffleMode::kAdaptive;
  return Status::InvalidArgument("unknown shuffle mode '" + name +
                                 "' (expected off, global, partial, files, infile or adaptive)");
}

Result<ShuffleMode> ParseShuffleJson(const nlohmann::json& j, const char* where) {
  if (j.is_boolean()) return j.get<bool>() ? ShuffleMode::kGlobal : ShuffleMode::kOff;
  if (j.is_string()) {
    auto m = ParseShuffleMode(j.get<std::string>());
    if (!m.ok()) return m.status().WithContext(where);
    return m;
  }
  return Status::InvalidArgument(std::string(where) + ": 'shuffle' must be a bool or a mode name");
}

std::vector<uint64_t> ShuffleOrder(ShuffleMode mode, const DatasetLayout& layout, uint64_t seed, uint64_t epoch,
                                   uint64_t block_size) {
  const uint64_t n = layout.num_rows();
  std::vector<uint64_t> ids(n);
  std::iota(ids.begin(), ids.end(), uint64_t{0});
  if (mode == ShuffleMode::kAdaptive) mode = n <= kAdaptiveGlobalLimit ? ShuffleMode::kGlobal : ShuffleMode::kPartial;
  if (block_size == 0) block_size = kDefaultPartialBlock;
  switch (mode) {
    case ShuffleMode::kOff:
    case ShuffleMode::kAdaptive:
      break;
    case ShuffleMode::kGlobal: {
      std::mt19937_64 rng(MixSeed({seed, epoch, kSaltRows}));
      ShuffleRange(ids.data(), ids.data() + n, rng);
      break;
    }
    case ShuffleMode::kPartial: {
      const uint64_t blocks = (n + block_size - 1) / block_size;
      std::vector<uint64_t> order(blocks);
      std::iota(order.begin(), order.end(), uint64_t{0});
      std::mt19937_64 brng(MixSeed({seed, epoch, kSaltBlocks}));
      ShuffleRange(order.data(), order.data() + blocks, brng);
      std::vector<uint64_t> out;
      out.reserve(n);
      for (uint64_t b : order) {
        const uint64_t lo = b * block_size, hi = std::min(n, lo + block_size);
        const size_t at = out.size();
        for (uint64_t r = lo; r < hi; ++r) out.push_back(r);
        std::mt19937_64 rng(MixSeed({seed, epoch, kSaltRows, b}));
        ShuffleRange(out.data() + at, out.data() + out.size(), rng);
      }
      ids = std::move(out);
      break;
    }
    case ShuffleMode::kFiles: {
      const size_t shards = layout.shard_rows.size();
      std::vector<uint64_t> order(shards);
      std::iota(order.begin(), order.end(), uint64_t{0});
      std::mt19937_64 rng(MixSeed({seed, epoch, kSaltFiles}));
      ShuffleRange(order.data(), order.data() + shards, rng);
      ids.clear();
      for (uint64_t s : order) {
        const uint64_t first = layout.first_row(s);
        for (uint64_t r = 0; r < layout.shard_rows[s]; ++r) ids.push_back(first + r);
      }
      break;
    }
    case ShuffleMode::kInfile: {
      for (size_t s = 0; s < layout.shard_rows.size(); ++s) {
        const uint64_t first = layout.first_row(s);
        std::mt19937_64 rng(MixSeed({seed, epoch, kSaltRows, s}));
        ShuffleRange(ids.data() + first, ids.data() + first + layout.shard_rows[s], rng);
      }
      break;
    }
  }
  return ids;
}

Result<std::unique_ptr<Sampler>> MakeShuffleSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  const char* where = "shuffle sampler";
  MR_RETURN_IF_ERROR(SpecCheckKeys(spec, {"type", "mode", "block_size", "num_samples"}, where));
  ShuffleMode mode = ShuffleMode::kGlobal;
  if (spec.contains("mode")) {
    MR_ASSIGN_OR_RETURN(mode, ParseShuffleJson(spec["mode"], where));
  }
  MR_ASSIGN_OR_RETURN(uint64_t block, SpecUInt(spec, "block_size", kDefaultPartialBlock, where));
  if (block == 0) return Status::InvalidArgument("shuffle sampler: 'block_size' must be > 0");
  MR_ASSIGN_OR_RETURN(uint64_t num, SpecUInt(spec, "num_samples", 0, where));
  return std::unique_ptr<Sampler>(new ShuffleSampler(mode, block, num, layout));
}

}  // namespace mindrecord
