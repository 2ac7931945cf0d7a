#include "pipeline/nodes/row_scan_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <tuple>

namespace mindrecord {

namespace {

constexpr uint64_t kMaxBytes = 256ull << 20;

struct ScannedFile {
  std::string path, key;
  FileIdentity id;
  std::shared_ptr<const FileRows> rows;
};

struct Cache {
  std::mutex mu;
  std::list<ScannedFile> entries;  // most recently used first
  uint64_t bytes = 0;
};

Cache& TheCache() {
  static auto* c = new Cache();  // never destroyed: sources may outlive static destruction
  return *c;
}

}  // namespace

std::shared_ptr<const FileRows> CachedRows(const std::string& path, const FileIdentity& id, const std::string& key) {
  if (!id.valid) return nullptr;
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto it = c.entries.begin(); it != c.entries.end(); ++it) {
    if (it->path == path && it->key == key && it->id == id) {
      c.entries.splice(c.entries.begin(), c.entries, it);
      return c.entries.front().rows;
    }
  }
  return nullptr;
}

void KeepRows(const std::string& path, const FileIdentity& id, const std::string& key,
              std::shared_ptr<const FileRows> rows) {
  if (!IdentityQuiet(id) || rows->bytes() > kMaxBytes) return;
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto it = c.entries.begin(); it != c.entries.end();) {
    // One entry per path and key: an older identity of the file is stale.
    if (it->path == path && it->key == key) {
      c.bytes -= it->rows->bytes();
      it = c.entries.erase(it);
    } else {
      ++it;
    }
  }
  c.bytes += rows->bytes();
  c.entries.push_front(ScannedFile{path, key, id, std::move(rows)});
  while (c.bytes > kMaxBytes) {
    c.bytes -= c.entries.back().rows->bytes();
    c.entries.pop_back();
  }
}

Result<std::shared_ptr<const FileRows>> ScanRows(const std::string& path, const std::string& key, const ScanFn& scan,
                                                 uint64_t before, uint64_t limit) {
  if (before > limit) {
    return Status::Internal("ScanRows: " + std::to_string(before) + " rows before a limit of " + std::to_string(limit));
  }
  const FileIdentity id = IdentityOf(path);
  if (auto kept = CachedRows(path, id, key)) {
    if (kept->start.size() > limit - before) return TooManyIndexedRows(path, limit, "rows");
    return kept;
  }
  auto rows = std::make_shared<FileRows>();
  rows->before = before;
  rows->limit = limit;
  MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(path));
  MR_RETURN_IF_ERROR(scan(*f, rows.get()));
  std::shared_ptr<const FileRows> out = std::move(rows);
  if (IdentityOf(path) == id) KeepRows(path, id, key, out);  // unchanged while it was scanned
  return out;
}

Result<std::vector<std::shared_ptr<const FileRows>>> ScanSourceFiles(const std::vector<std::string>& files,
                                                                     const std::string& key, const ScanFn& scan) {
  MR_ASSIGN_OR_RETURN(const uint64_t limit, MaxIndexedRows());
  std::vector<std::shared_ptr<const FileRows>> out;
  uint64_t total = 0;
  for (const auto& path : files) {
    MR_ASSIGN_OR_RETURN(auto rows, ScanRows(path, key, scan, total, limit));
    total += rows->start.size();
    out.push_back(std::move(rows));
  }
  return out;
}

}  // namespace mindrecord
