#include "pipeline/cache/cache_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "mindrecord/checksum.h"
#include "pipeline/cache/cache_entry.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr char kCountersMagic[8] = {'M', 'R', 'C', 'C', 'N', 'T', 'R', '1'};
constexpr size_t kCountersBytes = 64;
constexpr uint64_t kMaxEntryBytes = uint64_t{2} << 30;  // as max_batch_bytes' default: no row is larger
constexpr uint64_t kMaxMetaBytes = uint64_t{1} << 20;

std::string Errno(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// Writes `bytes` to a new file at `tmp`; false with errno set on failure.
bool WriteNew(const std::string& tmp, std::string_view bytes) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = e;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    return false;
  }
  return true;
}

Result<std::string> ReadSmall(const std::string& path, uint64_t max) {
  // The folder is untrusted: no links followed, and a FIFO or device
  // where a file should be is refused rather than waited on.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return Status::IOError(Errno("cannot open", path));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > max) {
    ::close(fd);
    return Status::Corruption("'" + path + "' is not a regular file of at most " + std::to_string(max) + " bytes");
  }
  std::string s(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < s.size()) {
    ssize_t r = ::pread(fd, s.data() + done, s.size() - done, static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  s.resize(done);
  return s;
}

Status ValidSession(const std::string& id) {
  bool ok = !id.empty() && id.size() <= 128 && id[0] != '.';
  for (char c : id) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
  if (!ok) {
    return Status::InvalidArgument("cache: session_id '" + id +
                                   "' must be 1-128 characters of [0-9A-Za-z_.-], not starting with '.'");
  }
  return Status::OK();
}

}  // namespace

// The mapped counters file: a magic, then 64-bit counters that every process
// of the machine updates with atomic ops.
struct CacheStore::Shared {
  char magic[8];
  std::atomic<uint64_t> bytes, entries, hits, misses;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared counters need lock-free 64-bit atomics");

std::string DefaultCacheRoot() {
  const char* env = std::getenv("MINDRECORD_CACHE_DIR");
  return env && *env ? std::string(env) : std::string("/dev/shm/mindrecord-cache");
}

Result<std::unique_ptr<CacheStore>> CacheStore::Open(const CacheOptions& options, uint64_t fingerprint,
                                                     const nlohmann::json& meta, size_t num_columns,
                                                     uint64_t num_rows) {
  MR_RETURN_IF_ERROR(ValidSession(options.session_id));
  const std::string root = options.dir.empty() ? DefaultCacheRoot() : options.dir;
  std::unique_ptr<CacheStore> c(new CacheStore());
  c->fingerprint_ = fingerprint;
  c->num_columns_ = num_columns;
  c->num_rows_ = num_rows;
  c->present_.reset(new std::atomic<uint64_t>[(num_rows + 63) / 64]());
  c->folder_ = root + "/" + options.session_id + "/" + ChecksumHex(fingerprint);
  std::error_code ec;
  fs::create_directories(c->folder_ + "/e", ec);
  if (ec) return Status::IOError("cache: cannot create '" + c->folder_ + "/e': " + ec.message());
  const std::string tmp = c->folder_ + "/.tmp-open-" + std::to_string(::getpid());
  // meta.json: informational (cache ls), written once.
  const std::string meta_path = c->folder_ + "/meta.json";
  if (::access(meta_path.c_str(), F_OK) != 0) {
    if (!WriteNew(tmp, meta.dump())) return Status::IOError(Errno("cache: cannot write", tmp));
    ::link(tmp.c_str(), meta_path.c_str());  // EEXIST: another process wrote the same
    ::unlink(tmp.c_str());
  }
  // The counters: created whole and committed with link; a file of the wrong
  // size or magic (untrusted) is replaced by a fresh one.
  const std::string counters = c->folder_ + "/counters";
  std::string fresh(kCountersBytes, '\0');
  std::memcpy(fresh.data(), kCountersMagic, 8);
  int fd = -1;
  for (int attempt = 0; attempt < 3 && fd < 0; ++attempt) {
    fd = ::open(counters.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st;
      char magic[8] = {};
      if (::fstat(fd, &st) == 0 && st.st_size == static_cast<off_t>(kCountersBytes) &&
          ::pread(fd, magic, 8, 0) == 8 && std::memcmp(magic, kCountersMagic, 8) == 0) {
        break;
      }
      ::close(fd);
      fd = -1;
      if (!WriteNew(tmp, fresh)) return Status::IOError(Errno("cache: cannot write", tmp));
      if (::rename(tmp.c_str(), counters.c_str()) != 0) return Status::IOError(Errno("cache: cannot replace", counters));
      continue;
    }
    if (errno != ENOENT) return Status::IOError(Errno("cache: cannot open", counters));
    if (!WriteNew(tmp, fresh)) return Status::IOError(Errno("cache: cannot write", tmp));
    ::link(tmp.c_str(), counters.c_str());
    ::unlink(tmp.c_str());
  }
  if (fd < 0) return Status::IOError("cache: cannot open the counters '" + counters + "'");
  void* m = ::mmap(nullptr, kCountersBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return Status::IOError(Errno("cache: cannot map", counters));
  static_assert(sizeof(Shared) <= kCountersBytes);
  c->shared_ = static_cast<Shared*>(m);
  c->cap_ = options.size_bytes;
  if (c->cap_ == 0) {
    struct statvfs sv;
    if (::statvfs(c->folder_.c_str(), &sv) != 0) return Status::IOError(Errno("cache: cannot statvfs", c->folder_));
    c->cap_ = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize / 2;
  }
  return c;
}

CacheStore::~CacheStore() {
  if (shared_ != nullptr) ::munmap(shared_, kCountersBytes);
}

std::string CacheStore::EntryPath(uint64_t key) const { return folder_ + "/e/" + std::to_string(key); }

bool CacheStore::Known(uint64_t key) const {
  return key < num_rows_ && (present_[key / 64].load(std::memory_order_relaxed) >> (key % 64) & 1);
}

void CacheStore::SetKnown(uint64_t key, bool on) {
  if (key >= num_rows_) return;
  const uint64_t bit = uint64_t{1} << (key % 64);
  if (on) present_[key / 64].fetch_or(bit, std::memory_order_relaxed);
  else present_[key / 64].fetch_and(~bit, std::memory_order_relaxed);
}

bool CacheStore::Contains(uint64_t key) {
  if (Known(key)) return true;
  if (::access(EntryPath(key).c_str(), F_OK) != 0) return false;
  SetKnown(key, true);
  return true;
}

Result<std::vector<Tensor>> CacheStore::Get(uint64_t key) {
  const std::string path = EntryPath(key);
  auto bad = [&](Status st) -> Status {
    corrupt_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mu_);
    corrupt_keys_.insert(key);
    return st;
  };
  // Untrusted folder: a link is not followed, a FIFO not waited on.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) return bad(Status::Corruption("dataset cache entry '" + path + "' is a symbolic link"));
    SetKnown(key, false);
    return Status::NotFound(Errno("dataset cache: cannot open entry", path));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    ::close(fd);
    return bad(Status::Corruption("dataset cache entry '" + path + "': not a regular file of at most 2 GiB"));
  }
  // Read into a pooled, uninitialized buffer (pipeline/tensor.h), not a fresh
  // zero-filled one (a memset and page faults per entry). The columns are
  // views of it.
  auto buf = std::make_shared<Tensor>(Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(st.st_size)}));
  uint8_t* data = buf->MutableData();
  const size_t size = static_cast<size_t>(st.st_size);
  size_t done = 0;
  while (done < size) {
    ssize_t r = ::pread(fd, data + done, size - done, static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  auto cols = DecodeCacheEntry(buf, std::span<const uint8_t>(data, done), fingerprint_, key, num_columns_,
                               "'" + path + "'");
  if (!cols.ok()) return bad(cols.status());
  hits_.fetch_add(1, std::memory_order_relaxed);
  shared_->hits.fetch_add(1, std::memory_order_relaxed);
  return cols;
}

Status CacheStore::Put(uint64_t key, const std::vector<Tensor>& columns) {
  bool replace = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    replace = corrupt_keys_.erase(key) > 0;
  }
  if (!replace && Known(key)) return Status::OK();
  const std::string entry = EncodeCacheEntry(fingerprint_, key, columns);
  const uint64_t size = entry.size();
  const std::string path = EntryPath(key);
  struct stat old;
  const uint64_t old_size = replace && ::stat(path.c_str(), &old) == 0 ? static_cast<uint64_t>(old.st_size) : 0;
  // Reserve the bytes under the cap first: concurrent writers never pass it.
  uint64_t cur = shared_->bytes.load(std::memory_order_relaxed);
  do {
    if (size > cap_ || cur + size > cap_ + old_size) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::OK();
    }
  } while (!shared_->bytes.compare_exchange_weak(cur, cur + size, std::memory_order_relaxed));
  auto release = [&](uint64_t n) { shared_->bytes.fetch_sub(n, std::memory_order_relaxed); };
  const std::string tmp = folder_ + "/e/.tmp-" + std::to_string(::getpid()) + "-" +
                          std::to_string(tmp_seq_.fetch_add(1, std::memory_order_relaxed));
  if (!WriteNew(tmp, entry)) {
    release(size);
    // The file system is full, or the cache was dropped meanwhile: not stored.
    if (errno == ENOSPC || errno == EDQUOT || errno == ENOENT) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::OK();
    }
    return Status::IOError(Errno("dataset cache: cannot write entry", tmp));
  }
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const Status st = Status::IOError(Errno("dataset cache: cannot commit entry", path));
      ::unlink(tmp.c_str());
      release(size);
      return st;
    }
    if (old_size > 0) release(old_size);
    else shared_->entries.fetch_add(1, std::memory_order_relaxed);
  } else if (::link(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    release(size);
    if (e == ENOENT) {  // dropped meanwhile
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::OK();
    }
    if (e != EEXIST) {
      errno = e;
      return Status::IOError(Errno("dataset cache: cannot commit entry", path));
    }
  } else {
    ::unlink(tmp.c_str());
    shared_->entries.fetch_add(1, std::memory_order_relaxed);
  }
  stored_.fetch_add(1, std::memory_order_relaxed);
  SetKnown(key, true);
  return Status::OK();
}

void CacheStore::CountMiss() {
  misses_.fetch_add(1, std::memory_order_relaxed);
  shared_->misses.fetch_add(1, std::memory_order_relaxed);
}

CacheCounters CacheStore::counters() const {
  CacheCounters c;
  c.hits = hits_.load(std::memory_order_relaxed);
  c.misses = misses_.load(std::memory_order_relaxed);
  c.stored = stored_.load(std::memory_order_relaxed);
  c.rejected = rejected_.load(std::memory_order_relaxed);
  c.corrupt = corrupt_.load(std::memory_order_relaxed);
  c.bytes = shared_->bytes.load(std::memory_order_relaxed);
  c.entries = shared_->entries.load(std::memory_order_relaxed);
  return c;
}

Result<std::vector<CacheListing>> ListCaches(const std::string& root) {
  std::vector<CacheListing> out;
  std::error_code ec;
  if (!fs::exists(root, ec)) return out;
  for (const auto& session : fs::directory_iterator(root, ec)) {
    if (!session.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(session.path(), ec)) {
      if (!f.is_directory()) continue;
      CacheListing l;
      l.session_id = session.path().filename().string();
      l.fingerprint = f.path().filename().string();
      auto meta = ReadSmall(f.path().string() + "/meta.json", kMaxMetaBytes);
      if (meta.ok()) l.meta = nlohmann::json::parse(*meta, nullptr, false);
      if (l.meta.is_discarded()) l.meta = nullptr;
      auto counters = ReadSmall(f.path().string() + "/counters", kCountersBytes);
      if (counters.ok() && counters->size() == kCountersBytes && counters->compare(0, 8, kCountersMagic, 8) == 0) {
        auto at = [&](size_t i) {
          uint64_t v;
          std::memcpy(&v, counters->data() + 8 + 8 * i, 8);
          return v;
        };
        l.counters.bytes = at(0);
        l.counters.entries = at(1);
        l.counters.hits = at(2);
        l.counters.misses = at(3);
      }
      for (const auto& e : fs::directory_iterator(f.path().string() + "/e", ec)) {
        if (e.is_regular_file()) l.disk_bytes += e.file_size();
      }
      out.push_back(std::move(l));
    }
  }
  if (ec) return Status::IOError("cache: cannot list '" + root + "': " + ec.message());
  std::sort(out.begin(), out.end(), [](const CacheListing& a, const CacheListing& b) {
    return std::tie(a.session_id, a.fingerprint) < std::tie(b.session_id, b.fingerprint);
  });
  return out;
}

Status DropCache(const std::string& root, const std::string& session_id) {
  MR_RETURN_IF_ERROR(ValidSession(session_id));
  const std::string path = root + "/" + session_id;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return Status::NotFound("cache: no cache '" + session_id + "' under '" + root + "'");
  fs::remove_all(path, ec);
  if (ec) return Status::IOError("cache: cannot remove '" + path + "': " + ec.message());
  return Status::OK();
}

}  // namespace mindrecord
