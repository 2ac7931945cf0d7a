#include "pipeline/sampler.h"

#include "pipeline/basic_samplers.h"
#include "pipeline/distributed_sampler.h"
#include "pipeline/pk_sampler.h"
#include "pipeline/sampler_wrappers.h"
#include "pipeline/shuffle_mode.h"
#include "readers/shard_reader.h"

namespace mindrecord {

uint64_t DatasetLayout::num_rows() const {
  uint64_t n = 0;
  for (uint64_t r : shard_rows) n += r;
  return n;
}

uint64_t DatasetLayout::first_row(size_t shard) const {
  uint64_t n = 0;
  for (size_t s = 0; s < shard && s < shard_rows.size(); ++s) n += shard_rows[s];
  return n;
}

DatasetLayout DatasetLayout::Uniform(uint64_t rows_per_shard, size_t shards) {
  DatasetLayout l;
  l.shard_rows.assign(shards, rows_per_shard);
  return l;
}

DatasetLayout LayoutOf(const ShardReader& reader, uint64_t padded_rows) {
  DatasetLayout l;
  for (uint32_t s = 0; s < reader.num_shards(); ++s) l.shard_rows.push_back(reader.shard_num_rows(s));
  if (padded_rows > 0) l.shard_rows.push_back(padded_rows);
  const ShardReader* r = &reader;
  l.group_by = [r](const std::string& field) { return r->GroupByIndexField(field); };
  return l;
}

Result<std::unique_ptr<Sampler>> MakeSampler(const nlohmann::json& spec, const DatasetLayout& layout) {
  if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string()) {
    return Status::InvalidArgument("sampler spec must be an object with a string 'type': " + spec.dump());
  }
  const std::string type = spec["type"].get<std::string>();
  if (type == "sequential") return MakeSequentialSampler(spec, layout);
  if (type == "random") return MakeRandomSampler(spec, layout);
  if (type == "shuffle") return MakeShuffleSampler(spec, layout);
  if (type == "distributed") return MakeDistributedSampler(spec, layout);
  if (type == "subset" || type == "subset_random") return MakeSubsetSampler(spec, layout);
  if (type == "pk") return MakePKSampler(spec, layout);
  if (type == "weighted_random") return MakeWeightedRandomSampler(spec, layout);
  if (type == "repeat") return MakeRepeatSampler(spec, layout);
  if (type == "buffer_shuffle") return MakeBufferShuffleSampler(spec, layout);
  if (type == "chain") return MakeChainSampler(spec, layout);
  return Status::InvalidArgument("unknown sampler type '" + type +
                                 "' (expected sequential, random, shuffle, distributed, subset, subset_random, pk, "
                                 "weighted_random, repeat, buffer_shuffle or chain)");
}

uint64_t MixSeed(std::initializer_list<uint64_t> words) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (uint64_t w : words) {
    uint64_t z = h ^ (w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    h = z ^ (z >> 31);
  }
  return h;
}

uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n) {
  // Lemire's multiply-shift with rejection: unbiased, one draw on average.
  unsigned __int128 m = static_cast<unsigned __int128>(rng()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(rng()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void ShuffleRange(uint64_t* first, uint64_t* last, std::mt19937_64& rng) {
  const uint64_t n = static_cast<uint64_t>(last - first);
  for (uint64_t i = n; i > 1; --i) {
    const uint64_t j = UniformBelow(rng, i);
    std::swap(first[i - 1], first[j]);
  }
}

Result<uint64_t> SpecUInt(const nlohmann::json& spec, const char* key, uint64_t def, const char* where) {
  if (!spec.contains(key) || spec[key].is_null()) return def;
  const auto& v = spec[key];
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return Status::InvalidArgument(std::string(where) + ": '" + key + "' must be a non-negative integer, got " +
                                 v.dump());
}

Result<bool> SpecBool(const nlohmann::json& spec, const char* key, bool def, const char* where) {
  if (!spec.contains(key) || spec[key].is_null()) return def;
  if (!spec[key].is_boolean()) {
    return Status::InvalidArgument(std::string(where) + ": '" + key + "' must be a bool, got " + spec[key].dump());
  }
  return spec[key].get<bool>();
}

Result<std::string> SpecString(const nlohmann::json& spec, const char* key, const std::string& def,
                               const char* where) {
  if (!spec.contains(key) || spec[key].is_null()) return def;
  if (!spec[key].is_string()) {
    return Status::InvalidArgument(std::string(where) + ": '" + key + "' must be a string, got " +
                                   spec[key].dump());
  }
  return spec[key].get<std::string>();
}

Status SpecCheckKeys(const nlohmann::json& spec, std::initializer_list<const char*> allowed, const char* where) {
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (!ok) return Status::InvalidArgument(std::string(where) + ": unknown parameter '" + it.key() + "'");
  }
  return Status::OK();
}

}  // namespace mindrecord
