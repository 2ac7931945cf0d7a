#include "readers/row_map_cache.h"

#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

struct Key {
  std::string path;
  FileIdentity id;
  bool operator<(const Key& o) const {
    return std::tie(path, id.dev, id.ino, id.size, id.mtime_ns, id.ctime_ns) <
           std::tie(o.path, o.id.dev, o.id.ino, o.id.size, o.id.mtime_ns, o.id.ctime_ns);
  }
};

struct RowMapCacheTag {};
std::mutex& Mu() { return ForkSafeMutex<RowMapCacheTag>(); }

std::map<Key, std::weak_ptr<RowMap>>& Maps() {
  static auto* maps = new std::map<Key, std::weak_ptr<RowMap>>();  // never destroyed: safe at exit
  return *maps;
}

bool Quiet(const FileIdentity& id) {
  const int64_t wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  return id.valid && wall_ns - id.ctime_ns >= kQuietSeconds * 1000000000LL;
}

}  // namespace

Result<std::shared_ptr<RowMap>> SharedRowMap(const std::string& path, const FileIdentity& id,
                                             const ShardHeader& header) {
  const bool shareable = Quiet(id);
  Key key{path, id};
  if (shareable) {
    std::lock_guard<std::mutex> lock(Mu());
    auto it = Maps().find(key);
    if (it != Maps().end()) {
      if (std::shared_ptr<RowMap> m = it->second.lock()) return m;
    }
  }
  MR_ASSIGN_OR_RETURN(std::unique_ptr<RowMap> built, RowMap::Build(header, path));
  std::shared_ptr<RowMap> map(std::move(built));
  if (!shareable) return map;
  std::lock_guard<std::mutex> lock(Mu());
  auto& maps = Maps();
  for (auto it = maps.begin(); it != maps.end();) it = it->second.expired() ? maps.erase(it) : std::next(it);
  auto [it, fresh] = maps.emplace(std::move(key), map);
  if (!fresh) {
    // Another reader built one meanwhile: use it if it is still alive.
    if (std::shared_ptr<RowMap> other = it->second.lock()) return other;
    it->second = map;
  }
  return map;
}

void UnshareRowMap(const RowMap* map) {
  std::lock_guard<std::mutex> lock(Mu());
  auto& maps = Maps();
  for (auto it = maps.begin(); it != maps.end();) {
    std::shared_ptr<RowMap> m = it->second.lock();
    it = !m || m.get() == map ? maps.erase(it) : std::next(it);
  }
}

}  // namespace mindrecord
