#include "readers/shard_paths.h"

#include "mindrecord/file.h"
#include "mindrecord/own_file.h"

namespace mindrecord {

std::string RecordedShardName(const ShardHeader& h) {
  return h.shard_id < h.shard_addresses.size() ? BaseName(h.shard_addresses[h.shard_id]) : std::string();
}

Result<std::vector<std::string>> ShardPathsFor(const std::string& opened, const ShardHeader& h) {
  const size_t n = h.shard_addresses.size();
  if (n == 0) return Status::Corruption(opened + ": header lists no shard_addresses");
  if (h.shard_id >= n) {
    return Status::Corruption(opened + ": header says shard_id " + std::to_string(h.shard_id) + " of " +
                              std::to_string(n) + " shards");
  }
  std::vector<std::string> names;
  for (const auto& a : h.shard_addresses) {
    names.push_back(BaseName(a));
    if (!IsPlainBaseName(names.back())) {
      return Status::Corruption(opened + ": shard_addresses holds '" + a + "', not a file name");
    }
  }
  if (n == 1) return std::vector<std::string>{opened};
  const std::string dir = DirName(opened), base = BaseName(opened);
  std::vector<std::string> out(n);
  const std::string& own = names[h.shard_id];
  if (base == own) {
    for (size_t i = 0; i < n; ++i) out[i] = JoinPath(dir, names[i]);
  } else {
    // Renamed: the recorded names' common prefix gives way to the opened one's.
    size_t common = names[0].size();
    for (const auto& x : names) {
      size_t k = 0;
      while (k < common && k < x.size() && x[k] == names[0][k]) ++k;
      common = k;
    }
    const std::string suffix = own.substr(common);
    if (base.size() <= suffix.size() || base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return Status::Corruption(opened + ": is shard " + std::to_string(h.shard_id) + " of a dataset written as '" +
                                own + "', renamed so that its " + std::to_string(n - 1) +
                                " sibling shards cannot be found (keep the shard number suffix, e.g. '" +
                                names[0].substr(0, common) + "' -> 'NEW', shard '" + own + "' -> 'NEW" + suffix +
                                "')");
    }
    const std::string prefix = base.substr(0, base.size() - suffix.size());
    for (size_t i = 0; i < n; ++i) out[i] = JoinPath(dir, prefix + names[i].substr(common));
  }
  out[h.shard_id] = opened;
  return out;
}

}  // namespace mindrecord
