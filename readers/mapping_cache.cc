#include "readers/mapping_cache.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "readers/fork_safe_mutex.h"

namespace mindrecord {

namespace {

using MappingKey = PathIdentity;

struct Kept {
  MappingKey key;
  std::shared_ptr<RandomAccessFile> file;
};

struct MappingCacheTag {};
std::mutex& MappingMu() { return ForkSafeMutex<MappingCacheTag>(); }

// Never destroyed: safe at exit.
std::map<MappingKey, std::weak_ptr<RandomAccessFile>>& Shared() {
  static auto* m = new std::map<MappingKey, std::weak_ptr<RandomAccessFile>>();
  return *m;
}
// Strong references to the mappings handed out last, newest at the front.
std::deque<Kept>& RetainedMappings() {
  static auto* r = new std::deque<Kept>();
  return *r;
}

std::atomic<uint64_t> mapping_retention_bytes{kRetainedMappingBytes};


// Under MappingMu(): `file` becomes the newest kept mapping; the oldest beyond the
// caps go.
void RetainMapping(const MappingKey& key, const std::shared_ptr<RandomAccessFile>& file) {
  auto& r = RetainedMappings();
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it->file == file) {
      r.erase(it);
      break;
    }
  }
  r.push_front({key, file});
  const uint64_t cap = mapping_retention_bytes.load(std::memory_order_relaxed);
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
  MappingKey key{path, id};
  std::lock_guard<std::mutex> lock(MappingMu());
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
  RetainMapping(key, out);
  return out;
}

void DropStaleMappings() {
  std::deque<Kept> drop;
  std::lock_guard<std::mutex> lock(MappingMu());
  auto& r = RetainedMappings();
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
    std::lock_guard<std::mutex> lock(MappingMu());
    drop.swap(RetainedMappings());
  }
}  // unmapped here, outside the lock

void SetMappingRetentionBytes(uint64_t bytes) { mapping_retention_bytes.store(bytes, std::memory_order_relaxed); }

}  // namespace mindrecord
