#include "mindrecord/direct_file.h"
#include "mindrecord/own_file.h"

#include <fcntl.h>
#include <libaio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

namespace mindrecord {
namespace {

constexpr size_t kMinAlignment = 4096;
// ReadAt reads at most this much per system call (bounds its temporary buffer).
constexpr size_t kMaxChunk = 4 << 20;

Status Refused(const std::string& path, const char* what) {
  return Status::NotSupported(path + ": the file system refuses O_DIRECT (" + what +
                              "); read this dataset with io_mode pread or mmap");
}

}  // namespace

void AlignedBuffer::Free::operator()(char* p) const { std::free(p); }

Result<AlignedBuffer> AlignedBuffer::Allocate(size_t size, size_t alignment) {
  void* p = nullptr;
  if (posix_memalign(&p, alignment, std::max(size, alignment)) != 0) {
    return Status::IOError("cannot allocate " + std::to_string(size) + " bytes aligned to " +
                           std::to_string(alignment) + " for direct I/O");
  }
  AlignedBuffer b;
  b.data_.reset(static_cast<char*>(p));
  b.size_ = size;
  return b;
}

Result<std::unique_ptr<DirectFile>> DirectFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (refused below).
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return Status::NotFound(path + ": no such file");
    if (e == EINVAL) return Refused(path, "open: Invalid argument");
    return Status::IOError(path + ": open with O_DIRECT: " + std::strerror(e));
  }
  std::unique_ptr<DirectFile> f;
  MR_ASSIGN_OR_RETURN(const uint64_t size, RegularFileSizeOrClose(fd, path));
  size_t alignment = kMinAlignment;
#ifdef STATX_DIOALIGN
  struct statx sx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    // Reported as 0: this file does not support direct I/O.
    if (sx.stx_dio_offset_align == 0) {
      close(fd);
      return Refused(path, "statx reports no direct-I/O alignment");
    }
    alignment = std::max<size_t>({alignment, sx.stx_dio_offset_align, sx.stx_dio_mem_align});
  }
#endif
  f.reset(new DirectFile(path, fd, size, alignment));
  if (f->size_ > 0) {
    // Some file systems accept the flag at open and refuse the reads.
    MR_ASSIGN_OR_RETURN(AlignedBuffer probe, AlignedBuffer::Allocate(alignment, alignment));
    ssize_t r;
    do {
      r = pread(fd, probe.data(), alignment, 0);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
      if (errno == EINVAL) return Refused(path, "read: Invalid argument");
      return Status::IOError(path + ": direct read at offset 0: " + std::strerror(errno));
    }
  }
  return f;
}

DirectFile::~DirectFile() { close(fd_); }

Status DirectFile::ReadAligned(uint64_t offset, size_t len, size_t need, char* buf) const {
  size_t done = 0;
  while (done < need) {
    ssize_t r = pread(fd_, buf + done, len - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(path_ + ": direct read of " + std::to_string(len - done) + " bytes at offset " +
                             std::to_string(offset + done) + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(r);
    // A short read that is not a whole number of blocks is the end of the file.
    if (done < need && (r == 0 || done % alignment_ != 0)) {
      return Status::Corruption(path_ + ": unexpected end of file at offset " + std::to_string(offset + done));
    }
  }
  return Status::OK();
}

Status DirectFile::ReadAt(uint64_t offset, size_t n, char* out) const {
  if (offset > size_ || n > size_ - offset) {
    return Status::Corruption(path_ + ": read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                              " is past the end of the file (" + std::to_string(size_) + " bytes)");
  }
  if (n == 0) return Status::OK();
  const uint64_t end = offset + n;
  uint64_t a = AlignDown(offset);
  const size_t cap = static_cast<size_t>(std::min<uint64_t>(kMaxChunk, AlignUp(end) - a));
  MR_ASSIGN_OR_RETURN(AlignedBuffer buf, AlignedBuffer::Allocate(cap, alignment_));
  uint64_t pos = offset;
  while (pos < end) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(cap, AlignUp(end) - a));
    const size_t need = static_cast<size_t>(std::min<uint64_t>(end, a + len) - a);
    MR_RETURN_IF_ERROR(ReadAligned(a, len, need, buf.data()));
    const size_t take = static_cast<size_t>(a + need - pos);
    std::memcpy(out + (pos - offset), buf.data() + (pos - a), take);
    pos += take;
    a += len;
  }
  return Status::OK();
}

AioContextPool::~AioContextPool() {
  for (io_context* ctx : free_) io_destroy(ctx);
}

AioContextPool* AioContextPool::Shared(unsigned depth) {
  static std::mutex mu;
  static auto* pools = new std::map<unsigned, std::unique_ptr<AioContextPool>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& p = (*pools)[depth];
  if (!p) p = std::make_unique<AioContextPool>(depth);
  return p.get();
}

Result<io_context*> AioContextPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      io_context* ctx = free_.back();
      free_.pop_back();
      return ctx;
    }
  }
  io_context_t ctx = nullptr;
  int rc = io_setup(static_cast<int>(depth_), &ctx);
  if (rc < 0) {
    return Status::IOError("io_setup for " + std::to_string(depth_) + " requests: " + std::strerror(-rc) +
                           " (the system-wide limit is fs.aio-max-nr)");
  }
  return ctx;
}

void AioContextPool::Release(io_context* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(ctx);
}

struct AioReadStream::Request {
  uint64_t offset = 0, length = 0;  // what the caller asked for
  uint64_t a_off = 0;               // the enclosing aligned range
  size_t a_len = 0;
  size_t need = 0;                  // bytes from a_off that must be read
  bool past_end = false;
  bool issued = false;              // went to the kernel (counted in ahead_bytes_)
  bool done = false;
  long res = 0;                     // bytes read or -errno
  AlignedBuffer buf;
  struct iocb cb;
};

AioReadStream::AioReadStream(const DirectFile& file, AioContextPool* pool, uint64_t read_ahead)
    : file_(file), pool_(pool), read_ahead_(read_ahead) {
  auto ctx = pool_->Acquire();
  if (ctx.ok()) {
    ctx_ = *ctx;
  } else {
    ctx_status_ = ctx.status().WithContext(file_.path());
  }
}

AioReadStream::~AioReadStream() {
  while (in_flight_ > 0) {
    if (!Reap(1).ok()) {
      // io_destroy waits for the requests still in flight; then the buffers
      // can be freed.
      io_destroy(ctx_);
      return;
    }
  }
  if (ctx_) pool_->Release(ctx_);
}

void AioReadStream::Add(uint64_t offset, uint64_t length) {
  auto r = std::make_unique<Request>();
  r->offset = offset;
  r->length = length;
  r->past_end = offset > file_.size() || length > file_.size() - offset;
  r->a_off = file_.AlignDown(offset);
  r->a_len = static_cast<size_t>(file_.AlignUp(offset + length) - r->a_off);
  r->need = static_cast<size_t>(offset + length - r->a_off);
  queue_.push_back(std::move(r));
}

Status AioReadStream::Submit() {
  MR_RETURN_IF_ERROR(ctx_status_);
  while (submitted_ < queue_.size() && in_flight_ < pool_->depth()) {
    Request& r = *queue_[submitted_];
    if (r.past_end || r.length == 0) {
      r.done = true;
      submitted_++;
      continue;
    }
    if (ahead_bytes_ > 0 && ahead_bytes_ + r.a_len > read_ahead_) break;
    auto spare =
        std::find_if(spare_.begin(), spare_.end(), [&](const AlignedBuffer& b) { return b.size() >= r.a_len; });
    if (spare != spare_.end()) {
      r.buf = std::move(*spare);
      spare_.erase(spare);
    } else {
      MR_ASSIGN_OR_RETURN(r.buf, AlignedBuffer::Allocate(r.a_len, file_.alignment()));
    }
    io_prep_pread(&r.cb, file_.fd(), r.buf.data(), r.a_len, static_cast<long long>(r.a_off));
    r.cb.data = &r;
    struct iocb* cbs[1] = {&r.cb};
    int rc = io_submit(ctx_, 1, cbs);
    if (rc == -EAGAIN && in_flight_ > 0) break;  // the kernel is full: retry after a completion
    if (rc != 1) {
      return Status::IOError(file_.path() + ": io_submit of " + std::to_string(r.a_len) + " bytes at offset " +
                             std::to_string(r.a_off) + ": " + std::strerror(rc < 0 ? -rc : EIO));
    }
    r.issued = true;
    peak_in_flight_ = std::max(peak_in_flight_, ++in_flight_);
    ahead_bytes_ += r.a_len;
    submitted_++;
  }
  return Status::OK();
}

Status AioReadStream::Reap(long min_events) {
  struct io_event events[64];
  const long max = std::min<long>(64, static_cast<long>(pool_->depth()));
  int n;
  do {
    n = io_getevents(ctx_, min_events, max, events, nullptr);
  } while (n == -EINTR);
  if (n < 0) return Status::IOError(file_.path() + ": io_getevents: " + std::strerror(-n));
  for (int i = 0; i < n; ++i) {
    auto* r = static_cast<Request*>(events[i].data);
    r->done = true;
    r->res = static_cast<long>(events[i].res);
    in_flight_--;
  }
  return Status::OK();
}

Status AioReadStream::Finish(Request& r) {
  if (r.past_end) {
    return Status::Corruption(file_.path() + ": read of " + std::to_string(r.length) + " bytes at offset " +
                              std::to_string(r.offset) + " is past the end of the file (" +
                              std::to_string(file_.size()) + " bytes)");
  }
  if (r.length == 0) return Status::OK();
  if (r.res < 0) {
    return Status::IOError(file_.path() + ": direct read of " + std::to_string(r.a_len) + " bytes at offset " +
                           std::to_string(r.a_off) + ": " + std::strerror(static_cast<int>(-r.res)));
  }
  const size_t got = static_cast<size_t>(r.res);
  if (got >= r.need) return Status::OK();
  if (got % file_.alignment() != 0) {
    return Status::Corruption(file_.path() + ": unexpected end of file at offset " + std::to_string(r.a_off + got));
  }
  // A short read of whole blocks: read the rest synchronously.
  return file_.ReadAligned(r.a_off + got, r.a_len - got, r.need - got, r.buf.data() + got);
}

Result<AioReadStream::Block> AioReadStream::Next() {
  if (queue_.empty()) return Status::Internal(file_.path() + ": AioReadStream::Next with nothing queued");
  MR_RETURN_IF_ERROR(Submit());
  Request& r = *queue_.front();
  if (submitted_ == 0) return Status::Internal(file_.path() + ": the oldest direct read was not submitted");
  while (!r.done) MR_RETURN_IF_ERROR(Reap(1));
  Status st = Finish(r);
  Block b;
  b.buf_ = std::move(r.buf);
  b.skip_ = static_cast<size_t>(r.offset - r.a_off);
  b.size_ = static_cast<size_t>(r.length);
  if (r.issued) ahead_bytes_ -= r.a_len;
  queue_.pop_front();
  submitted_--;
  MR_RETURN_IF_ERROR(st);
  // Start the next reads before the caller works on this block.
  MR_RETURN_IF_ERROR(Submit());
  return b;
}

void AioReadStream::Recycle(Block&& block) {
  // A scan holds two blocks (a raw and a blob page); keeping two spares covers
  // the steady state without hoarding page-sized buffers.
  if (block.buf_.data() != nullptr && spare_.size() < 2) spare_.push_back(std::move(block.buf_));
}

}  // namespace mindrecord
