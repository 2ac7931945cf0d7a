#include "readers/remote_file.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "readers/fork_safe_mutex.h"
#include "readers/page_cache.h"

namespace mindrecord {

namespace {

// The first request of a file: enough for most headers in one request.
constexpr uint64_t kHeadBytes = 64 << 10;
// Adjacent pieces are joined into requests of at most this many bytes.
constexpr uint64_t kMaxRequestBytes = 64ull << 20;

struct RemoteTag {};
// Guards every store's memory, in-flight set and HTTP client, and the list
// of stores; held only for lookups and bookkeeping, never across I/O.
std::mutex& RemoteMu() { return ForkSafeMutex<RemoteTag>(); }
std::condition_variable& Cv() {
  static auto* cv = new std::condition_variable();
  return *cv;
}
// Bumped in a forked child: connections and in-flight fetches of the parent
// are not the child's (its memory pieces are).
std::atomic<uint64_t> g_generation{0};
std::atomic<uint64_t> g_memory_hits{0}, g_disk_hits{0}, g_pieces_fetched{0};

}  // namespace

// One per distinct set of options in a process: the HTTP client, the disk
// cache and the memory LRU of pieces. Thread safety: guarded by RemoteMu().
class RemoteStore {
 public:
  static Result<std::shared_ptr<RemoteStore>> Get(const RemoteOptions& o) {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { g_generation++; }); });
    std::shared_ptr<DiskPageCache> disk;
    if (o.cache_bytes > 0) {
      MR_ASSIGN_OR_RETURN(disk, DiskPageCache::Open(o.cache_dir, o.cache_bytes));
    }
    const std::string key = (disk ? disk->dir() : std::string()) + "\n" + std::to_string(o.cache_bytes) + "," +
                            std::to_string(o.memory_bytes) + "," + std::to_string(o.parallel) + "," +
                            std::to_string(o.retries) + "," + std::to_string(o.backoff_ms) + "," +
                            std::to_string(o.timeout_s);
    std::lock_guard<std::mutex> lock(RemoteMu());
    auto& slot = Stores()[key];
    if (!slot) slot.reset(new RemoteStore(o, std::move(disk)));
    return slot;
  }
  static std::map<std::string, std::shared_ptr<RemoteStore>>& Stores() {
    static auto* m = new std::map<std::string, std::shared_ptr<RemoteStore>>();
    return *m;
  }

  // Under RemoteMu().
  std::shared_ptr<HttpClient> HttpLocked() {
    if (!http_ || http_gen_ != g_generation.load()) {
      // A forked child must not share the parent's sockets: a new client;
      // the old one is left alone (closing would touch the parent's
      // connections' state).
      if (http_) new std::shared_ptr<HttpClient>(std::move(http_));
      http_ = std::make_shared<HttpClient>(options_);
      http_gen_ = g_generation.load();
    }
    return http_;
  }
  DiskPageCache* disk() const { return disk_.get(); }

  std::shared_ptr<const std::string> LookupLocked(const std::string& key) {
    auto it = memory_.find(key);
    if (it == memory_.end()) return nullptr;
    lru_.splice(lru_.end(), lru_, it->second.second);
    return it->second.first;
  }
  void InsertLocked(const std::string& key, std::shared_ptr<const std::string> bytes) {
    if (memory_.count(key)) return;
    lru_.push_back(key);
    used_ += bytes->size();
    memory_.emplace(key, std::make_pair(std::move(bytes), std::prev(lru_.end())));
    // The newest piece stays even when alone it passes the bound.
    while (used_ > options_.memory_bytes && lru_.size() > 1) {
      auto it = memory_.find(lru_.front());
      used_ -= it->second.first->size();
      memory_.erase(it);
      lru_.pop_front();
    }
  }
  // Removes the pieces whose key starts with `prefix`; returns their keys.
  std::vector<std::string> ForgetLocked(const std::string& prefix) {
    std::vector<std::string> keys;
    for (auto it = lru_.begin(); it != lru_.end();) {
      if (it->compare(0, prefix.size(), prefix) != 0) {
        ++it;
        continue;
      }
      auto m = memory_.find(*it);
      used_ -= m->second.first->size();
      memory_.erase(m);
      keys.push_back(*it);
      it = lru_.erase(it);
    }
    return keys;
  }
  void DropLocked() {
    memory_.clear();
    lru_.clear();
    used_ = 0;
  }
  // Claimed fetches: key -> generation of the claim.
  std::unordered_map<std::string, uint64_t> in_flight;

 private:
  RemoteStore(const RemoteOptions& o, std::shared_ptr<DiskPageCache> disk) : options_(o), disk_(std::move(disk)) {}
  RemoteOptions options_;
  std::shared_ptr<DiskPageCache> disk_;
  std::shared_ptr<HttpClient> http_;
  uint64_t http_gen_ = 0;
  std::list<std::string> lru_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<const std::string>, std::list<std::string>::iterator>>
      memory_;
  uint64_t used_ = 0;
};

RemoteCounters GetRemoteCounters() {
  RemoteCounters c;
  const HttpCounters h = GetHttpCounters();
  c.requests = h.requests;
  c.bytes_fetched = h.bytes;
  c.retries = h.retries;
  c.memory_hits = g_memory_hits.load();
  c.disk_hits = g_disk_hits.load();
  c.pieces_fetched = g_pieces_fetched.load();
  std::lock_guard<std::mutex> lock(RemoteMu());
  for (auto& [k, s] : RemoteStore::Stores()) {
    if (s->disk()) c.disk_damaged += s->disk()->counters().damaged;
  }
  return c;
}

void DropRemoteMemory() {
  std::lock_guard<std::mutex> lock(RemoteMu());
  for (auto& [k, s] : RemoteStore::Stores()) s->DropLocked();
}

RemoteFile::RemoteFile(RemoteObject object, ObjectStat stat, std::shared_ptr<RemoteStore> store,
                       const RemoteOptions& options)
    : object_(std::move(object)), stat_(std::move(stat)), store_(std::move(store)), options_(options) {
  if (options_.block_bytes == 0) options_.block_bytes = 1 << 20;
  key_prefix_ = object_.url + "\n" + object_.http_url + "\n" + stat_.Version() + "\n" + std::to_string(stat_.size);
  head_bytes_ = std::min(stat_.size, kHeadBytes);
  if (head_bytes_ > 0) segments_.push_back({0, head_bytes_, true, false, {}});
  if (stat_.size > head_bytes_) segments_.push_back({head_bytes_, stat_.size, false, false, {}});
}

RemoteFile::~RemoteFile() = default;

Result<std::unique_ptr<RemoteFile>> RemoteFile::Open(const std::string& url, const RemoteOptions& options) {
  MR_ASSIGN_OR_RETURN(RemoteObject object, ResolveRemote(url, options));
  MR_ASSIGN_OR_RETURN(auto store, RemoteStore::Get(options));
  std::shared_ptr<HttpClient> http;
  {
    std::lock_guard<std::mutex> lock(RemoteMu());
    http = store->HttpLocked();
  }
  MR_ASSIGN_OR_RETURN(ObjectStat stat, http->Stat(object));
  return std::unique_ptr<RemoteFile>(new RemoteFile(std::move(object), std::move(stat), std::move(store), options));
}

void RemoteFile::SetLayout(const ShardHeader& header, bool verify_checksums) {
  uint64_t len = 0;
  if (stat_.size < 8 || !ReadAt(0, 8, reinterpret_cast<char*>(&len)).ok() || len > stat_.size - 8) return;
  const uint64_t header_end = 8 + len;
  // The header as it was fetched: the first request's bytes and, when it
  // is longer, the rest. Pages start at header_size, which may lie inside
  // the first request (small headers): the header's piece then ends there.
  std::vector<Segment> data;
  uint64_t at;
  if (header_end > head_bytes_) {
    data.push_back({0, head_bytes_, true, false, {}});
    data.push_back({head_bytes_, header_end, true, false, {}});
    at = header_end;
  } else {
    at = std::min({head_bytes_, header.header_size, stat_.size});
    if (at == 0) return;
    data.push_back({0, at, true, false, {}});
  }
  std::vector<Segment> pages;
  for (const PageInfo& p : header.pages) {
    const uint64_t off = header.PageOffset(p.page_id);
    if (p.used_bytes == 0) continue;
    if (off > stat_.size || p.used_bytes > stat_.size - off) return;
    Segment s{off, off + p.used_bytes, false, false, {}};
    auto it = p.extra.find(kPageChecksumKey);
    if (verify_checksums && it != p.extra.end() && it->is_string()) {
      s.whole = true;
      s.checksum = it->get<std::string>();
    }
    pages.push_back(std::move(s));
  }
  std::sort(pages.begin(), pages.end(), [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
  std::vector<Segment> out = data;
  for (Segment& s : pages) {
    if (s.begin < at) return;  // overlaps the header or another page: keep plain blocks
    if (s.begin > at) out.push_back({at, s.begin, false, true, {}});
    at = s.end;
    out.push_back(std::move(s));
  }
  if (at < stat_.size) out.push_back({at, stat_.size, false, true, {}});
  segments_ = std::move(out);
  has_layout_ = true;
}

RemoteFile::Piece RemoteFile::PieceAt(uint64_t offset) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                             [](uint64_t x, const Segment& s) { return x < s.begin; });
  const Segment& s = *std::prev(it);
  if (s.whole) return {s.begin, s.end, s.checksum};
  const uint64_t k = (offset - s.begin) / options_.block_bytes;
  const uint64_t b = s.begin + k * options_.block_bytes;
  return {b, std::min(s.end, b + options_.block_bytes), {}};
}

std::vector<RemoteFile::Piece> RemoteFile::PiecesFor(uint64_t offset, uint64_t n) const {
  std::vector<Piece> out;
  if (n == 0) return out;
  // Before the layout is known (the header, a .db, an encrypted shard)
  // reads past the first request's bytes fetch exactly what they ask: the
  // rest of a long header is one piece, a whole .db one more.
  if (!has_layout_) {
    if (offset < head_bytes_) out.push_back({0, head_bytes_, {}});
    if (offset + n > head_bytes_) out.push_back({std::max(offset, head_bytes_), offset + n, {}});
    return out;
  }
  for (uint64_t at = offset; at < offset + n;) {
    out.push_back(PieceAt(at));
    at = out.back().end;
  }
  return out;
}

bool RemoteFile::NextPiece(const Piece& p, Piece* next) const {
  uint64_t at = p.end;
  while (at < stat_.size) {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), at,
                               [](uint64_t x, const Segment& s) { return x < s.begin; });
    const Segment& s = *std::prev(it);
    if (!s.padding) {
      *next = PieceAt(at);
      return true;
    }
    at = s.end;
  }
  return false;
}

std::string RemoteFile::Key(const Piece& p) const {
  return key_prefix_ + "\n" + std::to_string(p.begin) + "-" + std::to_string(p.end);
}

Status RemoteFile::ReadAt(uint64_t offset, size_t n, char* out) const {
  if (offset > stat_.size || n > stat_.size - offset) {
    return Status::Corruption(object_.url + ": read of " + std::to_string(n) + " bytes at offset " +
                              std::to_string(offset) + " is past the end of the object (" +
                              std::to_string(stat_.size) + " bytes)");
  }
  const std::vector<Piece> pieces = PiecesFor(offset, n);
  std::vector<std::shared_ptr<const std::string>> bytes;
  MR_RETURN_IF_ERROR(Ensure(pieces, &bytes, true));
  last_end_.store(pieces.back().end, std::memory_order_relaxed);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const uint64_t b = std::max(offset, pieces[i].begin), e = std::min<uint64_t>(offset + n, pieces[i].end);
    std::memcpy(out + (b - offset), bytes[i]->data() + (b - pieces[i].begin), e - b);
  }
  return Status::OK();
}

void RemoteFile::Forget() const {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(RemoteMu());
    keys = store_->ForgetLocked(key_prefix_ + "\n");
  }
  if (DiskPageCache* disk = store_->disk()) {
    for (const std::string& k : keys) std::remove(disk->EntryPath(k).c_str());
  }
}

Status RemoteFile::Prefetch(const std::vector<ByteRange>& ranges) const {
  std::vector<Piece> pieces;
  for (const ByteRange& r : ranges) {
    if (r.end <= r.begin || r.end > stat_.size) continue;
    for (Piece& p : PiecesFor(r.begin, r.end - r.begin)) pieces.push_back(std::move(p));
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.begin < b.begin; });
  pieces.erase(std::unique(pieces.begin(), pieces.end(),
                           [](const Piece& a, const Piece& b) { return a.begin == b.begin && a.end == b.end; }),
               pieces.end());
  std::vector<std::shared_ptr<const std::string>> ignored;
  return Ensure(pieces, &ignored, false);
}

Status RemoteFile::Ensure(const std::vector<Piece>& pieces, std::vector<std::shared_ptr<const std::string>>* out,
                          bool allow_read_ahead) const {
  out->assign(pieces.size(), nullptr);
  std::vector<std::string> keys;
  for (const Piece& p : pieces) keys.push_back(Key(p));
  for (;;) {
    std::vector<size_t> mine;     // claimed here: fetch them
    std::vector<Piece> ahead;     // read-ahead pieces claimed here
    bool waiting = false;
    {
      std::unique_lock<std::mutex> lock(RemoteMu());
      const uint64_t gen = g_generation.load();
      for (size_t i = 0; i < pieces.size(); ++i) {
        if ((*out)[i]) continue;
        if (auto hit = store_->LookupLocked(keys[i])) {
          (*out)[i] = std::move(hit);
          g_memory_hits++;
          continue;
        }
        auto f = store_->in_flight.find(keys[i]);
        if (f != store_->in_flight.end() && f->second == gen) {
          waiting = true;
          continue;
        }
        store_->in_flight[keys[i]] = gen;
        mine.push_back(i);
      }
      // Reads walking forward (the first piece missed follows the last one
      // read): the pieces after the last one wanted come in the same round.
      Piece after_last, follows;
      after_last.end = last_end_.load(std::memory_order_relaxed);
      const bool forward = !mine.empty() && NextPiece(after_last, &follows) && follows.begin == pieces[mine[0]].begin;
      if (allow_read_ahead && forward && has_layout_ && options_.read_ahead_bytes > 0) {
        Piece p = pieces.back(), next;
        uint64_t budget = options_.read_ahead_bytes;
        while (NextPiece(p, &next) && next.end - next.begin <= budget) {
          budget -= next.end - next.begin;
          p = next;
          const std::string k = Key(next);
          if (store_->LookupLocked(k)) continue;
          auto f = store_->in_flight.find(k);
          if (f != store_->in_flight.end() && f->second == gen) continue;
          store_->in_flight[k] = gen;
          ahead.push_back(next);
        }
      }
      if (mine.empty() && waiting) {
        Cv().wait(lock);
        continue;
      }
    }
    if (mine.empty()) return Status::OK();
    std::vector<Piece> fetch;
    for (size_t i : mine) fetch.push_back(pieces[i]);
    const size_t wanted = fetch.size();
    fetch.insert(fetch.end(), ahead.begin(), ahead.end());
    std::vector<std::shared_ptr<const std::string>> got;
    Status st = FetchPieces(fetch, &got);
    {
      std::lock_guard<std::mutex> lock(RemoteMu());
      for (size_t j = 0; j < fetch.size(); ++j) {
        const std::string k = Key(fetch[j]);
        if (st.ok() && got[j]) store_->InsertLocked(k, got[j]);
        store_->in_flight.erase(k);
      }
    }
    Cv().notify_all();
    if (!st.ok()) return st;
    for (size_t j = 0; j < wanted; ++j) (*out)[mine[j]] = got[j];
    if (!waiting) return Status::OK();
  }
}

Status RemoteFile::FetchPieces(const std::vector<Piece>& pieces,
                               std::vector<std::shared_ptr<const std::string>>* out) const {
  out->assign(pieces.size(), nullptr);
  DiskPageCache* disk = store_->disk();
  auto checked = [&](const Piece& p, std::string_view bytes) {
    if (p.checksum.empty()) return Status::OK();
    const std::string computed = ChecksumHex(Xxh3(bytes));
    if (computed == p.checksum) return Status::OK();
    return Status::Corruption("page checksum mismatch: stored " + p.checksum + ", computed " + computed);
  };
  // Disk first.
  std::vector<size_t> net;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (disk) {
      if (auto bytes = disk->Get(Key(p), p.end - p.begin)) {
        if (checked(p, *bytes).ok()) {
          g_disk_hits++;
          (*out)[i] = std::make_shared<const std::string>(std::move(*bytes));
          continue;
        }
        std::remove(disk->EntryPath(Key(p)).c_str());  // intact as an entry, wrong as a page
      }
    }
    net.push_back(i);
  }
  if (net.empty()) return Status::OK();
  // Adjacent pieces travel in one request.
  std::sort(net.begin(), net.end(), [&](size_t a, size_t b) { return pieces[a].begin < pieces[b].begin; });
  std::vector<ByteRange> requests;
  std::vector<std::vector<size_t>> members;
  for (size_t i : net) {
    const Piece& p = pieces[i];
    if (!requests.empty() && requests.back().end == p.begin && p.end - requests.back().begin <= kMaxRequestBytes) {
      requests.back().end = p.end;
      members.back().push_back(i);
    } else {
      requests.push_back({p.begin, p.end});
      members.push_back({i});
    }
  }
  std::shared_ptr<HttpClient> http;
  {
    std::lock_guard<std::mutex> lock(RemoteMu());
    http = store_->HttpLocked();
  }
  std::vector<std::string> bodies;
  auto check = [&](size_t r, std::string_view body) {
    for (size_t i : members[r]) {
      const Piece& p = pieces[i];
      Status st = checked(p, body.substr(p.begin - requests[r].begin, p.end - p.begin));
      if (!st.ok()) return st.WithContext("page at bytes [" + std::to_string(p.begin) + ", " + std::to_string(p.end) + ")");
    }
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(http->Fetch(object_, stat_, requests, &bodies, check));
  for (size_t r = 0; r < requests.size(); ++r) {
    for (size_t i : members[r]) {
      const Piece& p = pieces[i];
      auto bytes = std::make_shared<const std::string>(bodies[r].substr(p.begin - requests[r].begin, p.end - p.begin));
      if (disk) disk->Put(Key(p), *bytes);
      g_pieces_fetched++;
      (*out)[i] = std::move(bytes);
    }
  }
  return Status::OK();
}

// ---- RemoteFileSystem --------------------------------------------------------

namespace {
Status ReadOnly(const std::string& path) {
  return Status::NotSupported(path + ": remote datasets are read-only (write to a local folder)");
}
}  // namespace

Result<std::unique_ptr<RandomAccessFile>> RemoteFileSystem::OpenRead(const std::string& path, bool mmap) {
  if (mmap) return Status::NotSupported(path + ": a remote file cannot be memory-mapped (use io_mode auto or pread)");
  MR_ASSIGN_OR_RETURN(auto f, RemoteFile::Open(path, options_));
  return std::unique_ptr<RandomAccessFile>(std::move(f));
}
Result<std::unique_ptr<RandomAccessFile>> RemoteFileSystem::OpenDirect(const std::string& path) {
  return Status::NotSupported(path + ": a remote file cannot be read with O_DIRECT (use io_mode auto or pread)");
}
Result<std::unique_ptr<WritableFile>> RemoteFileSystem::OpenWrite(const std::string& path) { return ReadOnly(path); }
Result<std::unique_ptr<WritableFile>> RemoteFileSystem::OpenUpdate(const std::string& path) { return ReadOnly(path); }
Result<std::unique_ptr<WritableFile>> RemoteFileSystem::OpenUpdateNoFollow(const std::string& path) {
  return ReadOnly(path);
}
Status RemoteFileSystem::Rename(const std::string& from, const std::string&) { return ReadOnly(from); }
Status RemoteFileSystem::Remove(const std::string& path) { return ReadOnly(path); }
bool RemoteFileSystem::Exists(const std::string& path) { return RemoteFile::Open(path, options_).ok(); }
Status RemoteFileSystem::SyncDir(const std::string& dir) { return ReadOnly(dir); }
Status RemoteFileSystem::SyncPath(const std::string& path) { return ReadOnly(path); }

Result<std::string> ReadWholeRemote(const std::string& url, const RemoteOptions& options) {
  MR_ASSIGN_OR_RETURN(auto f, RemoteFile::Open(url, options));
  std::string out(f->size(), '\0');
  MR_RETURN_IF_ERROR(f->ReadAt(0, out.size(), out.data()));
  return out;
}

}  // namespace mindrecord
