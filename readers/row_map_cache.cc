#include "readers/row_map_cache.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

using Key = PathIdentity;

struct RowMapCacheTag {};
std::mutex& RowMapMu() { return ForkSafeMutex<RowMapCacheTag>(); }

std::map<Key, std::weak_ptr<RowMap>>& Maps() {
  static auto* maps = new std::map<Key, std::weak_ptr<RowMap>>();  // never destroyed: safe at exit
  return *maps;
}

std::atomic<uint64_t> row_map_retention_bytes{kRetainedMapBytes};

// Strong references to the maps handed out last, newest at the front.
std::deque<std::shared_ptr<RowMap>>& RetainedRowMaps() {
  static auto* r = new std::deque<std::shared_ptr<RowMap>>();
  return *r;
}

// Under RowMapMu(): `map` becomes the newest retained map; the oldest go while the
// retained maps hold more than kRetainedMapBytes (the newest always stays).
void RetainRowMap(const std::shared_ptr<RowMap>& map) {
  auto& r = RetainedRowMaps();
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (*it == map) {
      r.erase(it);
      break;
    }
  }
  r.push_front(map);
  uint64_t bytes = 0;
  size_t keep = 0;
  for (; keep < r.size(); ++keep) {
    bytes += r[keep]->MemoryBytes();
    if (keep > 0 && bytes > row_map_retention_bytes.load(std::memory_order_relaxed)) break;
  }
  r.resize(keep);
}


}  // namespace

Result<std::shared_ptr<RowMap>> SharedRowMap(const std::string& path, const FileIdentity& id,
                                             const ShardHeader& header) {
  const bool shareable = IdentityQuiet(id);
  Key key{path, id};
  if (shareable) {
    std::lock_guard<std::mutex> lock(RowMapMu());
    auto it = Maps().find(key);
    if (it != Maps().end()) {
      if (std::shared_ptr<RowMap> m = it->second.lock()) {
        RetainRowMap(m);
        return m;
      }
    }
  }
  MR_ASSIGN_OR_RETURN(std::unique_ptr<RowMap> built, RowMap::Build(header, path));
  std::shared_ptr<RowMap> map(std::move(built));
  if (!shareable) return map;
  std::lock_guard<std::mutex> lock(RowMapMu());
  auto& maps = Maps();
  for (auto it = maps.begin(); it != maps.end();) it = it->second.expired() ? maps.erase(it) : std::next(it);
  auto [it, fresh] = maps.emplace(std::move(key), map);
  if (!fresh) {
    // Another reader built one meanwhile: use it if it is still alive.
    if (std::shared_ptr<RowMap> other = it->second.lock()) {
      RetainRowMap(other);
      return other;
    }
    it->second = map;
  }
  RetainRowMap(map);
  return map;
}

void UnshareRowMap(const RowMap* map) {
  std::lock_guard<std::mutex> lock(RowMapMu());
  auto& r = RetainedRowMaps();
  for (auto it = r.begin(); it != r.end();) it = it->get() == map ? r.erase(it) : std::next(it);
  auto& maps = Maps();
  for (auto it = maps.begin(); it != maps.end();) {
    std::shared_ptr<RowMap> m = it->second.lock();
    it = !m || m.get() == map ? maps.erase(it) : std::next(it);
  }
}

void SetRowMapRetentionBytes(uint64_t bytes) { row_map_retention_bytes.store(bytes, std::memory_order_relaxed); }

void ReleaseRetainedRowMaps() {
  std::deque<std::shared_ptr<RowMap>> dropped;
  {
    std::lock_guard<std::mutex> lock(RowMapMu());
    dropped.swap(RetainedRowMaps());
  }
}

}  // namespace mindrecord
