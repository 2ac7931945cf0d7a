// ReaderOptions: how ShardReader opens and reads a dataset's shard files
// (I/O mode and its tuning, checksum verification, an explicit file list).
// The pipeline's Plan holds one; IoMode names live here and only here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "readers/remote_options.h"

namespace mindrecord {

enum class IoMode : uint8_t {
  kPread = 0,   // pread(2) per row or page: no address-space cost
  kMmap = 1,    // map each shard read-only; fastest for hot page-cache data
  kDirect = 2,  // O_DIRECT, bypassing the page cache (for datasets larger
                // than RAM): scans read whole pages through libaio with
                // several reads in flight, single rows their two parts at
                // once, ReadRows a whole list of rows at once.
                // See mindrecord/direct_file.h.
  kAuto = 3,    // (default) decided at Open: kDirect when the shard files
                // together exceed ReaderOptions::auto_direct_above (default:
                // the memory the page cache can use, AvailableMemoryBytes()),
                // with pread for shards whose file system refuses O_DIRECT;
                // otherwise ReaderOptions::auto_cached_mode.
};

// Every mode, in the order error messages and documentation list them.
inline constexpr IoMode kIoModes[] = {IoMode::kAuto, IoMode::kPread, IoMode::kMmap, IoMode::kDirect};

// "pread", "mmap", "direct", "auto".
const char* IoModeName(IoMode mode);
// The inverse of IoModeName; InvalidArgument naming the accepted values.
Result<IoMode> ParseIoMode(const std::string& name);

// The bytes the page cache could hold for a dataset now: MemAvailable from
// /proc/meminfo (free memory plus reclaimable cache), lowered to what this
// process's memory cgroup limit (v2 memory.max or v1 limit_in_bytes) leaves
// for page cache when that is less (page cache is charged to the cgroup);
// physical RAM when /proc/meminfo cannot be read.
uint64_t AvailableMemoryBytes();

// Thread safety: a value type; the FileSystem it points to must outlive the
// readers opened with it.
struct ReaderOptions {
  // Explicit files, read exactly as listed and in this order (MindSpore's
  // file lists): any subset of a dataset's shards, or shards of several
  // datasets whose headers agree (schema, index fields, sizes, version); each
  // file's rows come in the list's order, the shard_addresses and shard_id in
  // their headers are not followed. Open's `path` must be the first. Empty:
  // the opened file and every sibling in its shard_addresses, resolved
  // relative to its folder.
  std::vector<std::string> shard_paths;
  IoMode io_mode = IoMode::kAuto;
  // kAuto: read directly when the shard files' total size exceeds this many
  // bytes. 0 (default): AvailableMemoryBytes() at Open. A dataset larger than
  // the page cache misses it on every pass (each epoch evicts the pages the
  // next one needs first) while pushing everything else out; one that fits is
  // served from memory after the first epoch, which direct reads never are
  // (random single rows read directly are ~10x slower than cached pread).
  // Also the figure mapped shards are compared with (kMmap, or kAuto choosing
  // it): a dataset that fits is mapped as huge-page memory
  // (RandomAccessFile::AdviseHugePages), one that does not keeps 4 KiB pages.
  uint64_t auto_direct_above = 0;
  // kAuto: the mode for a dataset that fits (kPread or kMmap).
  IoMode auto_cached_mode = IoMode::kPread;
  // kDirect on a file system that refuses O_DIRECT (tmpfs before Linux 6.6,
  // some FUSE and network file systems): false (default): Open fails with
  // NotSupported naming the shard; true: that shard is read with pread and
  // shard_io_mode() reports kPread for it. kAuto always falls back.
  bool direct_fallback = false;
  // kDirect scans: libaio requests in flight per scanning thread (>= 1), and
  // the bytes of pages read ahead of the pages in use (at least one page is
  // always read ahead). Memory per scan: this plus up to four pages (the raw
  // and blob page in use, two spare buffers).
  uint32_t direct_queue_depth = 4;
  uint64_t direct_read_ahead = 64ull << 20;
  // kDirect ReadRows: row parts read in flight at once per call (>= 1).
  // Random rows are latency-bound, so more requests in flight is what makes
  // them faster; each holds one aligned buffer of its part's size.
  uint32_t direct_rows_in_flight = 32;
  // kPread: bytes of row groups' raw parts (the scalar fields) a reader may
  // keep, each group read whole once its rows' raw parts have been read one
  // by one about as often as a read of the whole costs (RawGroupCache): a
  // row is then one read instead of two. 0: every raw part read on its own.
  uint64_t raw_group_cache_bytes = 64ull << 20;
  // Shard files go through this seam (tests refuse O_DIRECT); nullptr: POSIX.
  FileSystem* file_system = nullptr;
  // Check the header checksum at open and each page's checksum the first
  // time a page is touched (when the dataset carries them).
  bool verify_checksums = true;
  // Datasets named by URL (http://, https://, s3://): endpoint, page cache,
  // parallelism, retries (readers/remote_options.h). Read with pread
  // semantics; io_mode mmap or direct and file_system are refused for them.
  RemoteOptions remote;
};

}  // namespace mindrecord
