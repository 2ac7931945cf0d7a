// RowMap: where each row of one shard lies, derived from the shard itself
// (no SQLite index). The header's page list gives, at open and in O(pages),
// which blob page holds a row (blob pages carry [start_row_id, end_row_id))
// and where that page's row group lies in its raw page (raw pages list
// {id = blob page_type_id, offset}). The rows' offsets inside a page come
// from the 8-byte length prefixes, walked the first time a row of the group
// is read and kept as 32-bit offsets: 4 bytes per row and part once walked.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/status.h"
#include "readers/piece_index.h"

namespace mindrecord {

// A row's two parts: bytes [begin, end) of their pages, length prefix
// included. Pages are at most 256 MiB, so 32 bits do.
struct CompactLocator {
  uint32_t raw_page, raw_begin, raw_end;
  uint32_t blob_page, blob_begin, blob_end;
};

// Bytes of one page the caller already holds: page bytes [first, end) at
// `data`. The walk reads prefixes from them and reads the rest from the file.
struct PageBytes {
  const char* data = nullptr;
  uint64_t first = 0, end = 0;
};

// Thread safety: after Build(), every const method may be called from any
// number of threads at once. A group's offsets are walked by whichever thread
// needs them first (two threads may both walk; one result is published with a
// release store, the other discarded) and are immutable once published.
class RowMap {
 public:
  // Checks the page list (blob pages tile rows [0, num_rows) in page order,
  // page_type_ids unique, every row group names one blob page once, offsets
  // inside their pages); Corruption naming `path` and the page otherwise.
  static Result<std::unique_ptr<RowMap>> Build(const ShardHeader& header, const std::string& path);
  ~RowMap();

  enum class Part : uint8_t { kRaw = 0, kBlob = 1 };

  // Row group (= blob page) index of shard-local row `row` (< num_rows).
  size_t GroupOf(uint64_t row) const;
  // The page a group's part lies in, and the bytes of that page the part
  // spans: blob: the whole used page; raw: the group's range.
  uint32_t GroupPage(size_t group, Part part) const;
  uint64_t GroupBegin(size_t group, Part part) const;
  uint64_t GroupEnd(size_t group, Part part) const;
  size_t num_groups() const { return starts_.size(); }
  uint64_t group_first_row(size_t group) const { return groups_[group].first_row; }
  uint64_t group_end_row(size_t group) const { return groups_[group].end_row; }
  // The rows of a raw page numbered across the row groups it lists, in order
  // (as piece tables number them): the number of the group's first row.
  uint64_t GroupRawBase(size_t group) const { return groups_[group].raw_base; }
  bool Walked(size_t group, Part part) const;

  // Walks the group's part if not done yet: reads each row's length prefix
  // (from `held` where it covers it, else from `file`: the mapping, or reads
  // of 16 KiB that grow to 1 MiB while they hold many prefixes) and checks it
  // stays inside the part's range and that the last row ends it. Corruption
  // naming the file, page, offset and row otherwise.
  Status Walk(size_t group, Part part, const RandomAccessFile& file, const PageBytes& held = {}) const;

  // A walk of one group's part from page bytes handed to it as they come
  // (Walk's checks and errors): for bytes read anyway, such as the pieces a
  // page's checksum is computed from. Used by one thread at a time.
  class PartWalk {
   public:
    PartWalk(const RowMap& map, size_t group, Part part);
    // Every row's prefix has been read.
    bool done() const { return row_ == n_; }
    // The page offset of the next prefix wanted.
    uint64_t next() const { return pos_; }
    uint64_t rows_done() const { return row_; }
    // Reads the prefixes that page bytes [first, first + size) hold from the
    // next one on; a prefix cut by their end is completed by the bytes that
    // follow them, if those come next. Skips ranges without it.
    Status Feed(uint64_t first, const char* data, uint64_t size);
    // Once done(): checks that the last row ends the part and publishes the
    // offsets (as Walk does; a group walked meanwhile keeps its offsets).
    Status Finish();

   private:
    Status TooLong(uint64_t len) const;  // the prefix at pos_ holds `len`
    Status PastTheEnd() const;           // no room for the prefix at pos_
    Status Bad(uint64_t pos, uint64_t row, const std::string& why) const;
    const RowMap& map_;
    size_t group_;
    Part part_;
    uint64_t first_row_, n_, end_, pos_, row_ = 0;
    std::unique_ptr<uint32_t[]> off_;
    char carry_[8];                           // a prefix's bytes [pos_, carry_end_)
    uint64_t carry_len_ = 0, carry_end_ = 0;  // none when carry_len_ == 0
  };
  // Publishes a group's part from elsewhere, for a group whose walk failed:
  // `ranges[i]` is row i's [begin, end) in the part's page (the SQLite index
  // records them). They must tile the part's range, each at least a length
  // prefix long; Corruption naming `source` otherwise. A later read of a row
  // whose prefix disagrees with its range fails for that row only.
  Status Adopt(size_t group, Part part, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
               const std::string& source) const;
  // Fills the parts of `out` that are wanted; each must be walked.
  void Fill(size_t group, uint64_t row, bool want_raw, bool want_blob, CompactLocator* out) const;

  // Bytes held by this map now (grows as groups are walked).
  uint64_t MemoryBytes() const;
  // The shard's piece tables (null: it has none), shared with the map by
  // the readers of the same unchanged file, walked pieces and checks included.
  const PieceIndex* pieces() const { return pieces_.get(); }

 private:
  struct Group {
    uint64_t first_row = 0, end_row = 0;  // shard-local rows [first, end)
    uint32_t blob_page = 0, raw_page = 0;
    uint64_t blob_used = 0;               // the blob page's used bytes
    uint64_t raw_begin = 0, raw_end = 0;  // the group's bytes in its raw page
    uint64_t raw_base = 0;                // rows of the groups before it in its raw page
    // end_row - first_row + 1 offsets each once walked: row i's prefix
    // starts at [i - first_row], the part ends at the last entry.
    mutable std::atomic<uint32_t*> offsets[2] = {nullptr, nullptr};
  };
  RowMap() = default;
  // Makes `offsets` the group's part's offsets unless a walk published some
  // first (then they are dropped).
  void Publish(size_t group, Part part, std::unique_ptr<uint32_t[]> offsets) const;
  std::string path_;
  uint64_t header_size_ = 0, page_size_ = 0;
  std::unique_ptr<Group[]> groups_;  // non-empty blob pages, by first_row
  std::vector<uint64_t> starts_;     // groups_[i].first_row, for GroupOf
  std::unique_ptr<PieceIndex> pieces_;
  mutable std::atomic<uint64_t> walked_bytes_{0};
};

}  // namespace mindrecord
