// RemoteFile: a dataset file named by URL, read by ranges through the local
// page cache. The file is cut into pieces sized by the format: the header
// (its first 64 KiB in one request, then the rest when it is longer), each
// page whole when it carries a checksum (verified before it enters either
// cache), and aligned blocks of RemoteOptions::block_bytes elsewhere (pages
// without checksums, anything outside the page list). A read takes its
// pieces from this process's memory, else the disk cache (entries checked,
// pages' checksums checked again), else fetches the missing ones together:
// adjacent pieces in one request, several requests in flight, and, when the
// reads walk forward, the next pieces up to read_ahead_bytes in the same
// round. Threads wanting the same piece wait for one fetch.
//
// RemoteFileSystem serves such files through the FileSystem seam (reads
// only: writes are NotSupported naming the URL).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "readers/http_client.h"
#include "readers/remote_options.h"
#include "readers/remote_url.h"

namespace mindrecord {

// What remote reads cost, process-wide since start.
struct RemoteCounters {
  uint64_t requests = 0;       // HTTP requests sent (HEADs, GETs, retries)
  uint64_t bytes_fetched = 0;  // body bytes received
  uint64_t retries = 0;
  uint64_t memory_hits = 0;    // pieces found in memory
  uint64_t disk_hits = 0;      // pieces found intact in the disk cache
  uint64_t disk_damaged = 0;   // disk entries found damaged (and fetched again)
  uint64_t pieces_fetched = 0; // pieces fetched over the network
};
RemoteCounters GetRemoteCounters();
// Drops every piece held in memory by this process (tests, benchmarks: a
// "cold" read then goes to the disk cache or the network).
void DropRemoteMemory();

class RemoteStore;

// Thread safety: ReadAt, Prefetch and the getters may be called from any
// number of threads at once. SetLayout must be called before the file is
// shared between threads (ShardReader::Open does, right after the header).
class RemoteFile : public RandomAccessFile {
 public:
  // A HEAD gives the size and version (ETag); NotFound or IOError naming the
  // URL when the object cannot be read.
  static Result<std::unique_ptr<RemoteFile>> Open(const std::string& url, const RemoteOptions& options);
  ~RemoteFile() override;

  Status ReadAt(uint64_t offset, size_t n, char* out) const override;
  uint64_t size() const override { return stat_.size; }
  const std::string& path() const override { return object_.url; }
  const ObjectStat& stat() const { return stat_; }

  // Pieces from the shard's header: header, pages (checksummed ones whole
  // when `verify_checksums`), padding. A header whose pages overlap keeps
  // plain blocks.
  void SetLayout(const ShardHeader& header, bool verify_checksums);
  // Drops this object's pieces from memory and the disk cache: for bytes
  // found wrong by a check above this layer (a header checksum), so that
  // the next read fetches them again.
  void Forget() const;
  // Fetches the pieces covering `ranges` that no cache holds, together
  // (several requests in flight), without copying them out.
  Status Prefetch(const std::vector<ByteRange>& ranges) const;

 private:
  struct Piece {
    uint64_t begin = 0, end = 0;
    std::string checksum;  // XXH3 hex of the piece, when the page has one
  };
  struct Segment {
    uint64_t begin = 0, end = 0;
    bool whole = false;    // one piece; else blocks of block_bytes
    bool padding = false;  // bytes no reader needs (skipped by read-ahead)
    std::string checksum;
  };
  RemoteFile(RemoteObject object, ObjectStat stat, std::shared_ptr<RemoteStore> store, const RemoteOptions& options);
  Piece PieceAt(uint64_t offset) const;
  // The pieces covering [offset, offset + n).
  std::vector<Piece> PiecesFor(uint64_t offset, uint64_t n) const;
  // The next piece after `p` that a reader may want; false at the end.
  bool NextPiece(const Piece& p, Piece* next) const;
  std::string Key(const Piece& p) const;
  Status Ensure(const std::vector<Piece>& pieces, std::vector<std::shared_ptr<const std::string>>* out,
                bool allow_read_ahead) const;
  Status FetchPieces(const std::vector<Piece>& pieces, std::vector<std::shared_ptr<const std::string>>* out) const;

  RemoteObject object_;
  ObjectStat stat_;
  std::shared_ptr<RemoteStore> store_;
  RemoteOptions options_;
  std::string key_prefix_;
  uint64_t head_bytes_ = 0;      // the first request's size
  bool has_layout_ = false;
  std::vector<Segment> segments_;  // tile [0, size), by begin
  mutable std::atomic<uint64_t> last_end_{0};  // end of the last piece ReadAt used
};

// Thread safety: as FileSystem (every method from any thread).
class RemoteFileSystem : public FileSystem {
 public:
  explicit RemoteFileSystem(RemoteOptions options) : options_(std::move(options)) {}
  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path, bool mmap = false) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenDirect(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenUpdate(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenUpdateNoFollow(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  bool Exists(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;
  Status SyncPath(const std::string& path) override;
  const RemoteOptions& options() const { return options_; }

 private:
  RemoteOptions options_;
};

// The whole of a (small) remote object, e.g. a shard's .db for field
// queries, through the page cache.
Result<std::string> ReadWholeRemote(const std::string& url, const RemoteOptions& options);

}  // namespace mindrecord
