// Writes one shard: lays rows out in blob and raw pages exactly as
// MindSpore's ShardWriter does (row groups cut by page capacity, the last blob
// page filled first, a row group that would overflow the last raw page moved
// whole to a new raw page), and feeds the shard's index.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/index_writer.h"
#include "mindrecord/checksum.h"
#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/piece_table.h"
#include "writers/direct_page_writer.h"
#include "writers/index_queue.h"
#include "writers/shard_writer.h"

namespace mindrecord {

// Thread safety: not thread-safe; owned and driven by one ShardWriter.
class ShardFileWriter {
 public:
  ShardFileWriter(FileSystem* fs, std::unique_ptr<WritableFile> file, std::unique_ptr<IndexWriter> index,
                  uint64_t header_size, uint64_t page_size, uint32_t shard_id,
                  std::vector<std::string> index_fields, bool checksums, bool piece_tables);

  // Continues a committed shard (append): its pages and row count, and the
  // rows of its last row group (locators and index values), which this
  // writer may still move and re-adds to the index. Pages keep their stored
  // checksums, and their piece tables (`old_tables`, by page id; empty where
  // unknown: computed from the page), unless their used bytes change.
  void Resume(std::vector<PageInfo> pages, uint64_t rows, std::vector<std::pair<RowLocator, Row>> open_group,
              uint64_t old_header_bytes, std::vector<std::vector<PieceEntry>> old_tables);
  // Writes this new shard's pages with direct writes through `queue` (see
  // writers/direct_page_writer.h) when its file takes them and the sizes are
  // aligned; otherwise (and for appends: never call it after Resume) pages
  // are written buffered. Call before the first batch. Returns whether direct
  // writes are on.
  bool EnableDirectWrites(DirectWriteQueue* queue, uint32_t shard_count);
  bool direct_writes() const { return direct_ != nullptr; }
  // Inserts closed row groups' index rows on `queue`'s thread (see
  // writers/index_queue.h) instead of this one. Call before the first batch.
  void EnableIndexQueue(IndexQueue* queue) { index_queue_ = queue; }
  // Drops queued index rows (an unfinished writer going away).
  ~ShardFileWriter();
  // One batch of this shard's rows (MindSpore's WriteByShard).
  Status WriteBatch(const std::vector<const EncodedRow*>& rows);
  // Writes the header (built from `base` plus this shard's pages), fsyncs and
  // closes the data file, then commits, closes and fsyncs the index.
  Status Finish(ShardHeader base);

  uint64_t num_rows() const { return rows_; }
  int64_t packing_saved() const { return packing_saved_; }
  const std::vector<PageInfo>& pages() const { return pages_; }

 private:
  int LastPage(bool blob) const;
  Status WriteRows(uint64_t page_id, uint64_t at, const std::vector<const EncodedRow*>& rows, size_t begin,
                   size_t end, bool blob);
  // Moves the last raw row group (rows from `first_row` on) to a new raw page.
  Status ShiftLastRowGroup(uint64_t first_row);
  // Feeds bytes written at `at` of page `page_id` to its checksum and piece table.
  void HashAppend(uint64_t page_id, uint64_t at, std::string_view data);
  Status FlushClosedLocators();
  // Hands index rows [0, n) of open_group_ to the index (or its queue).
  Status AddToIndex(size_t n);

  FileSystem* fs_;
  std::unique_ptr<WritableFile> file_;
  // Direct page writes (null: buffered). After file_: destroyed first.
  std::unique_ptr<DirectPageWriter> direct_;
  std::unique_ptr<IndexWriter> index_;
  IndexQueue* index_queue_ = nullptr;  // null: inserts on this thread
  uint64_t header_size_, page_size_;
  uint32_t shard_id_;
  std::vector<std::string> index_fields_;
  bool checksums_, piece_tables_;
  std::vector<PageInfo> pages_;
  uint64_t rows_ = 0;
  int64_t packing_saved_ = 0;
  // Locators of the rows in the last raw row group, which a later batch may
  // still move to a new raw page; earlier rows are already in the index.
  // With an index queue, rows go to the index at once and this holds only
  // an append's re-added rows until the first batch.
  std::vector<std::pair<RowLocator, Row>> open_group_;
  std::string prefixes_;                 // WriteRows: the rows' length prefixes
  std::vector<std::string_view> pieces_;  // WriteRows: prefix, part, prefix, part, ...
  // Append: used bytes of the pages as committed, and the old header's length
  // (a shorter new header is zero-padded over it).
  std::vector<uint64_t> committed_used_;
  std::vector<std::vector<PieceEntry>> committed_tables_;
  uint64_t old_header_bytes_ = 0;
  // Page checksums and piece tables, computed as the pages are written (by
  // page id). A page not written as one run of appends (a row group moved
  // off it) is marked invalid and re-read at Finish.
  struct PageHash {
    Xxh3Stream hash;
    PieceTableBuilder pieces;
    uint64_t bytes = 0;
    bool valid = true;
  };
  std::vector<PageHash> page_hash_;
};

}  // namespace mindrecord
