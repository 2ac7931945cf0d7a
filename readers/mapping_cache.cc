#include "readers/mapping_cache.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

using Key = PathIdentity;

struct Kept {
  Key key;
  std::shared_ptr<RandomAccessFile> file;
};

struct MappingCacheTag {};
std::mutex& Mu() { return ForkSafeMutex<MappingCacheTag>(); }

// Never destroyed: safe at exit.
std::map<Key, std::weak_ptr<RandomAccessFile>>& Shared() {
  static auto* m = new std::map<Key, std::weak_ptr<RandomAccessFile>>();
  return *m;
}
// Strong references to the mappings handed out last, newest at the front.
std::deque<Kept>& Retained() {
  static auto* r = new std::deque<Kept>();
  return *r;
}

std::atomic<uint64_t> retention_bytes{kRetainedMappingBytes};


// Under Mu(): `file` becomes the newest kept mapping; the oldest beyond the
// caps go.
void Retain(const Key& key, const std::shared_ptr<RandomAccessFile>& file) {
  auto& r = Retained();
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it->file == file) {
      r.erase(it);
      break;
    }
  }
  r.push_front({key, file});
  const uint64_t cap = retention_bytes.load(std::memory_order_relaxed);
  uint64_t bytes = 0;
  size_t keep = 0;
  for (; keep < r.size() && keep < kRetainedMappings; ++keep) {
    bytes += r[keep].file->size();
    if (bytes > cap) break;
  }
  r.resize(keep);
}

}  // namespace

std::shared_ptr<RandomAccessFile> SharedMapping(const std::string& path, const FileIdentity& id,
                                                std::shared_ptr<RandomAccessFile> opened) {
  if (!opened || opened->MappedData() == nullptr || !IdentityQuiet(id) || opened->size() != id.size) return opened;
  Key key{path, id};
  std::lock_guard<std::mutex> lock(Mu());
  auto& shared = Shared();
  for (auto it = shared.begin(); it != shared.end();) it = it->second.expired() ? shared.erase(it) : std::next(it);
  auto [it, fresh] = shared.emplace(key, opened);
  std::shared_ptr<RandomAccessFile> out = opened;
  if (!fresh) {
    if (std::shared_ptr<RandomAccessFile> other = it->second.lock()) {
      out = std::move(other);  // `opened` (not yet touched) is unmapped on return
    } else {
      it->second = opened;
    }
  }
  Retain(key, out);
  return out;
}

void DropStaleMappings() {
  std::deque<Kept> drop;
  std::lock_guard<std::mutex> lock(Mu());
  auto& r = Retained();
  for (auto it = r.begin(); it != r.end();) {
    if (IdentityOf(it->key.path) == it->key.id) {
      ++it;
    } else {
      drop.push_back(std::move(*it));
      it = r.erase(it);
    }
  }
}  // unmapped here (`drop` outlives the lock: declared before it)

void ReleaseRetainedMappings() {
  std::deque<Kept> drop;
  {
    std::lock_guard<std::mutex> lock(Mu());
    drop.swap(Retained());
  }
}  // unmapped here, outside the lock

void SetMappingRetentionBytes(uint64_t bytes) { retention_bytes.store(bytes, std::memory_order_relaxed); }

}  // namespace mindrecord
