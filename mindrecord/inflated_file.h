// Reading the decompressed bytes of a gzip or zlib file by position (the
// GZIP / ZLIB TFRecord files MindSpore's TFRecordDataset reads).
//
// One pass over the whole stream (InflateScan) hands its bytes to a sink in
// order and keeps an index of access points: at deflate block boundaries at
// least `span` decompressed bytes apart, the compressed offset (and bit) the
// next block starts at, the decompressed offset, and the 32 KiB of output
// before it, from which inflating can start again. The index holds at most
// `max_points` such points (their windows are 32 KiB each): past that, every
// other point is dropped and the span doubles, so a file's index is bounded
// in bytes whatever its size. InflatedFile then reads a range from the
// inflated pieces between points (segments) that hold it, kept in a cache of
// the process (kInflatedCacheBytes in all, least recently used out first):
// a segment not there is inflated from its point, or by continuing the
// cursor that inflated the one before it, so reads in file order inflate
// each byte once, and so do reads in any order of files whose segments fit
// the cache. Segments larger than kMaxCachedSegment are not kept: a read in
// one inflates from the nearest point or cursor before it to its end.
//
// The pass decodes every byte and checks the stream's own checksums (gzip
// CRC-32, zlib Adler-32), so a damaged stream fails it, naming the file and
// compressed offset; reads later only repeat what it decoded (a file changed
// since is caught by the records' own checksums, or fails to inflate).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

enum class StreamCompression : uint8_t { kNone, kGzip, kZlib };
// "" / "none", "gzip", "zlib" (any case); InvalidArgument naming others.
Result<StreamCompression> ParseStreamCompression(const std::string& name);
const char* StreamCompressionName(StreamCompression c);

struct InflatePoint {
  uint64_t in = 0;            // compressed offset of the first whole byte to feed
  uint64_t out = 0;           // decompressed offset
  uint8_t bits = 0;           // bits of the byte before `in` not yet decoded (0: none)
  bool member_start = false;  // a gzip / zlib header starts at `in` (no window needed)
  std::string window;         // up to 32 KiB of output before `out`
};

// The inflated segments kept for all InflatedFiles of the process, in bytes.
inline constexpr uint64_t kInflatedCacheBytes = uint64_t{64} << 20;
inline constexpr uint64_t kMaxCachedSegment = uint64_t{4} << 20;

struct InflateIndex {
  uint64_t id = 0;  // unique in the process: names the index's segments in the cache
  StreamCompression compression = StreamCompression::kNone;
  uint64_t size = 0;                 // decompressed bytes
  uint64_t span = 0;                 // decompressed bytes between points, at least
  std::vector<InflatePoint> points;  // ascending `out`; points[0] is the start
  uint64_t bytes() const;
};

struct InflateScanOptions {
  uint64_t span = uint64_t{64} << 10;  // doubled each time the points are thinned
  size_t max_points = 1024;            // at least 2
};

// Inflates all of `file` (compressed as `c`, not kNone), handing the output
// in order to `sink` in pieces of at most 32 KiB. Corruption naming the file
// and compressed offset when the stream is damaged or truncated, or (zlib)
// followed by other bytes; gzip files of several members are read through.
// `sink`'s errors stop the pass and are returned.
using InflateSink = std::function<Status(const char* data, size_t n)>;
Result<std::shared_ptr<const InflateIndex>> InflateScan(const RandomAccessFile& file, StreamCompression c,
                                                        const InflateSink& sink,
                                                        const InflateScanOptions& options = {});

// The decompressed bytes of `raw` as a file of index->size bytes.
// Thread safety: ReadAt may be called from any thread: segments are shared
// read-only; an inflate takes a cursor (an inflate state) from a small pool
// under a mutex and inflates outside it.
class InflatedFile : public RandomAccessFile {
 public:
  InflatedFile(std::shared_ptr<const RandomAccessFile> raw, std::shared_ptr<const InflateIndex> index);
  ~InflatedFile() override;
  // Corruption naming the file for a range past the end or a stream that no
  // longer inflates as it did when indexed.
  Status ReadAt(uint64_t offset, size_t n, char* out) const override;
  uint64_t size() const override { return index_->size; }
  const std::string& path() const override { return raw_->path(); }

 private:
  struct Cursor;
  // [offset, offset + n) inflated from the nearest point or cursor before it.
  Status InflateRange(uint64_t offset, size_t n, char* out) const;
  Status Start(Cursor& c, const InflatePoint& p) const;
  Status Refill(Cursor& c) const;
  Status Inflate(Cursor& c, char* dst, size_t n) const;  // dst == nullptr: skip n bytes

  static constexpr size_t kIdleCursors = 4;
  std::shared_ptr<const RandomAccessFile> raw_;
  std::shared_ptr<const InflateIndex> index_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Cursor>> idle_;  // most recently used last
};

}  // namespace mindrecord
