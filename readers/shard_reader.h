// ShardReader: opens a MindRecord dataset (any one shard finds its siblings),
// checks that all shards agree, and reads rows by global row id, sequentially,
// or in projections that skip unread columns.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/row_codec.h"
#include "mindrecord/row_view.h"
#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "readers/reader_options.h"

namespace mindrecord {

// Which columns a read returns; built by ShardReader::MakeProjection. Reads
// that need no raw column skip the raw page, and blob fields not selected are
// not split out or unpacked.
struct Projection {
  std::vector<int> field_ids;  // schema field indexes, ascending
  bool need_raw = false;
  bool need_blob = false;
  bool Selects(int field_id) const;
};

// Rows are located without the SQLite index: from the header's page list at
// Open (O(pages)) and each row group's length prefixes, walked the first time
// one of its rows is read (see readers/row_map.h, readers/README.md). The
// index is needed only by GroupByIndexField; a shard without its .db opens
// with a warning (warnings()).
//
// Thread safety: after Open() returns, every const method may be called from
// any number of threads at once (reads use positional I/O and immutable
// metadata; a row group's offsets are published once, atomically, by the
// first thread that walks them; each kDirect scan and ReadRows call takes its
// own libaio context from a process-wide, mutex-guarded pool).
class ShardReader {
 public:
  static Result<std::unique_ptr<ShardReader>> Open(const std::string& path, const ReaderOptions& options = {});
  ~ShardReader();

  const Schema& schema() const;
  const std::string& version() const;
  uint64_t num_rows() const;
  uint32_t num_shards() const;
  uint64_t shard_num_rows(uint32_t shard) const;
  // Global row id of the shard's first row: shard 0's rows come first.
  uint64_t shard_first_row(uint32_t shard) const;
  const std::vector<std::string>& shard_paths() const;
  uint64_t header_size() const;
  uint64_t page_size() const;
  const std::vector<std::string>& index_fields() const;
  const ShardHeader& header(uint32_t shard) const;
  // How the shard is read: options.io_mode as kAuto resolved it, or kPread
  // where kDirect fell back. Never kAuto.
  IoMode shard_io_mode(uint32_t shard) const;
  // The shard files' total size in bytes (what kAuto compares).
  uint64_t total_file_bytes() const;
  // What Open found that does not stop rows being read, one message each
  // naming the file: a shard whose .db is missing. Empty for a sound dataset.
  const std::vector<std::string>& warnings() const;
  // Whether shard `shard` has its SQLite index (GroupByIndexField needs it).
  bool has_index(uint32_t shard) const;
  // Bytes held to locate rows: O(pages) from Open, plus 4 bytes per row and
  // part for each row group walked so far. Readers of the same unchanged file
  // in one process share these (readers/row_map_cache.h): the figure counts
  // what any of them walked.
  uint64_t locator_bytes() const;
  // Bytes of row groups' raw parts this reader keeps (pread shards;
  // ReaderOptions::raw_group_cache_bytes at most).
  uint64_t raw_group_bytes() const;

  // Empty `columns`: all fields. Unknown names are an error.
  Result<Projection> MakeProjection(const std::vector<std::string>& columns) const;

  struct Location {
    uint32_t shard = 0;
    uint64_t local_row = 0;
  };
  Result<Location> Locate(uint64_t row_id) const;
  // Bytes the row's parts that `projection` needs take in the file (length
  // prefixes included; stored, so compressed parts count compressed): what
  // reading the row costs, for read-ahead caps. Walks its group if needed.
  Result<uint64_t> StoredBytes(uint64_t row_id, const Projection* projection = nullptr) const;

  Result<Row> ReadRow(uint64_t row_id, const Projection* projection = nullptr) const;
  // Rows `row_ids` (any order, repeats allowed), each handed to `fn` with its
  // index in `row_ids`, in that order, or with the error that row met (`fn`
  // decides: returning an error stops the call and returns it). On a direct
  // shard the parts of all rows are read through libaio with up to
  // direct_rows_in_flight reads in flight, not one row after the other;
  // other shards read row by row as ReadRow does.
  Status ReadRows(const std::vector<uint64_t>& row_ids, const Projection* projection,
                  const std::function<Status(size_t index, Result<Row>&& row)>& fn) const;
  // The row's on-disk parts, undecoded (index values decoded); a compressed
  // blob part comes back decompressed.
  Result<EncodedRow> ReadEncoded(uint64_t row_id) const;
  // Rows [begin, end) in order, each page read once; `fn` may stop the scan by
  // returning an error (returned as is).
  Status Scan(uint64_t begin, uint64_t end, const Projection* projection,
              const std::function<Status(uint64_t row_id, Row&& row)>& fn) const;

  // ---- Zero-copy reads ---------------------------------------------------
  // As Scan and ReadRows, but each row is handed to `fn` as a RowView (see
  // mindrecord/row_view.h) whose strings, bytes and arrays are not copied:
  // - every view's bytes are valid until `fn` returns; the view itself is
  //   refilled for the next row (copy what you keep, or keep the mapping);
  // - on a mapped shard (shard_io_mode() kMmap) a field marked `mapped`
  //   points into the shard's mapping, at bytes whose page checksum was
  //   verified before the row was handed out: it stays valid while the
  //   reader lives, and after it while a copy of RowView::mapping() lives.
  //   The mapping is read-only: never write through these pointers;
  // - pread and direct reads point into the call's own buffers, so their
  //   bytes go away with the next row (mapped false); so do parts that had to
  //   be decompressed and v3.0-packed integer arrays (unpacked).
  // ReadRowViews hands a row that failed to `fn` with its error (the view
  // then holds no field); `fn` decides, as with ReadRows. On mapped shards
  // it prefetches the bytes of the next rows while a row is handed out.
  // Thread safety: as the other const methods; each call uses its own view.
  Status ScanViews(uint64_t begin, uint64_t end, const Projection* projection,
                   const std::function<Status(uint64_t row_id, const RowView& row)>& fn) const;
  Status ReadRowViews(const std::vector<uint64_t>& row_ids, const Projection* projection,
                      const std::function<Status(size_t index, const Status& status, const RowView& row)>& fn) const;

  // For each distinct value of index field `field`: the global row ids holding
  // it, in row-id order; values in ascending order. Uses the SQLite index:
  // NotFound naming the .db when a shard has none.
  Result<std::vector<std::pair<Value, std::vector<uint64_t>>>> GroupByIndexField(const std::string& field) const;

  struct Impl;

 private:
  explicit ShardReader(std::unique_ptr<Impl> impl);
  // ReadRow with the projection's field selection computed once by the caller.
  Result<Row> ReadOne(uint64_t row_id, const Projection* projection, const std::vector<bool>& select) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mindrecord
