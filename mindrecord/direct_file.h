// The O_DIRECT + libaio read backend (IoMode::kDirect): reads bypass the page
// cache, so a dataset larger than RAM does not evict everything else.
//
// O_DIRECT needs the file offset, the length and the memory address aligned to
// the file system's direct-I/O alignment. DirectFile reads the enclosing
// aligned range of every request into an aligned buffer and hands out the
// requested slice. Alignment: statx(STATX_DIOALIGN) where the kernel reports
// it, never less than 4096 (the page size; larger requests cost nothing on
// block devices).
//
// Single reads (ReadAt) are one synchronous pread(2) on the O_DIRECT
// descriptor; AioReadStream reads a queue of ranges through libaio with
// several requests in flight, for page-by-page scans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

struct io_context;  // libaio's context (io_context_t is a pointer to it)

namespace mindrecord {

// A heap buffer aligned for O_DIRECT. Thread safety: a value type.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  static Result<AlignedBuffer> Allocate(size_t size, size_t alignment);
  char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

// A shard file opened with O_DIRECT. Thread safety: ReadAt may be called from
// any number of threads at once (positional reads into per-call buffers).
class DirectFile final : public RandomAccessFile {
 public:
  // NotSupported naming the file when its file system refuses O_DIRECT (open
  // or the first aligned read fails with EINVAL); NotFound / IOError as
  // OpenRead otherwise.
  static Result<std::unique_ptr<DirectFile>> Open(const std::string& path);
  ~DirectFile() override;

  // Reads the aligned range enclosing [offset, offset + n) and copies the
  // requested bytes to `out`.
  Status ReadAt(uint64_t offset, size_t n, char* out) const override;
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

  int fd() const { return fd_; }
  size_t alignment() const { return alignment_; }
  uint64_t AlignDown(uint64_t v) const { return v & ~static_cast<uint64_t>(alignment_ - 1); }
  uint64_t AlignUp(uint64_t v) const { return AlignDown(v + alignment_ - 1); }
  // Synchronous aligned reads into `buf` (aligned) of the file range starting
  // at the aligned `offset` until at least `need` bytes are in, reading `len`
  // (aligned, >= need) at most. Short of `need` at end of file is Corruption.
  Status ReadAligned(uint64_t offset, size_t len, size_t need, char* buf) const;

 private:
  DirectFile(std::string path, int fd, uint64_t size, size_t alignment)
      : path_(std::move(path)), fd_(fd), size_(size), alignment_(alignment) {}
  std::string path_;
  int fd_;
  uint64_t size_;
  size_t alignment_;
};

// libaio contexts, each with room for `depth` requests, reused across scans:
// io_destroy waits for an RCU grace period (tens of ms), too slow to pay per
// scan or per reader. Thread safety: Acquire and Release may be called from
// any number of threads at once; a context is used by one thread at a time.
class AioContextPool {
 public:
  explicit AioContextPool(unsigned depth) : depth_(depth) {}
  // Destroys the free contexts.
  ~AioContextPool();
  // The process-wide pool for `depth`, never destroyed (its contexts end with
  // the process). Holds as many contexts as scans ever ran at once.
  static AioContextPool* Shared(unsigned depth);
  AioContextPool(const AioContextPool&) = delete;
  AioContextPool& operator=(const AioContextPool&) = delete;

  unsigned depth() const { return depth_; }
  // A free context or a new one (io_setup); IOError when the kernel refuses
  // (e.g. fs.aio-max-nr reached).
  Result<io_context*> Acquire();
  void Release(io_context* ctx);

 private:
  const unsigned depth_;
  std::mutex mu_;
  std::vector<io_context*> free_;
};

// Reads queued byte ranges of one DirectFile in queue order through libaio,
// keeping up to the pool's depth of requests and `read_ahead` bytes in flight
// ahead of the consumer (always at least one request).
// Thread safety: not thread-safe; one stream per scanning thread. The file
// and the pool must outlive it.
class AioReadStream {
 public:
  // A range's bytes: view() is valid while the Block lives. Thread safety: a
  // movable value; a finished Block may be handed to another thread.
  class Block {
   public:
    std::string_view view() const { return {buf_.data() + skip_, size_}; }

   private:
    friend class AioReadStream;
    AlignedBuffer buf_;
    size_t skip_ = 0;
    size_t size_ = 0;
  };

  AioReadStream(const DirectFile& file, AioContextPool* pool, uint64_t read_ahead);
  // Waits for the requests still in flight (their buffers belong to the kernel
  // until then) and returns the context to the pool.
  ~AioReadStream();
  AioReadStream(const AioReadStream&) = delete;
  AioReadStream& operator=(const AioReadStream&) = delete;

  // Queues [offset, offset + length); Next() returns ranges in this order.
  void Add(uint64_t offset, uint64_t length);
  // The oldest queued range, once read. Errors name the file, the offset and
  // the cause; a range past the end of the file is Corruption.
  Result<Block> Next();
  // Gives a finished block's buffer back for reuse by later reads.
  void Recycle(Block&& block);
  // The most requests that were in flight at once (for tests and tuning).
  size_t peak_in_flight() const { return peak_in_flight_; }

 private:
  struct Request;
  Status Submit();
  Status Reap(long min_events);
  Status Finish(Request& r);

  const DirectFile& file_;
  AioContextPool* pool_;
  io_context* ctx_ = nullptr;
  Status ctx_status_;
  const uint64_t read_ahead_;
  std::deque<std::unique_ptr<Request>> queue_;  // added, not yet returned
  size_t submitted_ = 0;                        // queue_[0, submitted_) are submitted
  size_t in_flight_ = 0;                        // submitted, not yet completed
  size_t peak_in_flight_ = 0;
  uint64_t ahead_bytes_ = 0;                    // buffered bytes of submitted requests
  std::vector<AlignedBuffer> spare_;
};

}  // namespace mindrecord
