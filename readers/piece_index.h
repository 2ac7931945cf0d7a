// PieceIndex: rows located and checked piece by piece, from a shard's piece
// tables (mindrecord/piece_table.h). A page's table is read the first time a
// row of the page is (one small read), a row's offset comes from walking the
// length prefixes of its piece only (from the piece's first row to the next
// piece's), and a read checks the checksums of the pieces it spans: the first
// read of a row costs a piece, not its page.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/piece_table.h"
#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: after Build(), every const method may be called from any
// number of threads at once. A page's table is published once (an atomic
// pointer; a thread that loses the race drops its copy); walked offsets are
// atomic stores of values every walker computes alike; a piece's checked
// state is an atomic flag.
class PieceIndex {
 public:
  // Null when the shard has no tables, or tables that disagree with its
  // header (the pages' sizes, the header area): those are not used.
  static Result<std::unique_ptr<PieceIndex>> Build(const ShardHeader& h, const std::string& path);
  ~PieceIndex();

  // The page's row (numbered within the page) as page bytes [*begin, *end),
  // length prefix included. Corruption (naming the file, page and offset)
  // when the page's table or the piece's prefixes are damaged. `check`: a
  // walk checks the piece it reads (as Verify does).
  Status Locate(uint32_t page, uint64_t row, const RandomAccessFile& file, bool check, uint32_t* begin,
                uint32_t* end) const;
  // Checks the checksums of the pieces page bytes [begin, end) lie in that
  // are not checked yet (reading them from `file`). Sets *whole when every
  // piece of the page has been checked.
  Status Verify(uint32_t page, uint64_t begin, uint64_t end, const RandomAccessFile& file, bool* whole) const;
  // Locate's answer when the row's piece was walked already (false: call
  // Locate); inline, for the read of every row.
  bool Known(uint32_t page, uint64_t row, uint32_t* begin, uint32_t* end) const {
    uint32_t* at = at_[page].load(std::memory_order_acquire);
    if (at == nullptr || row >= rows_[page].first) return false;
    const uint32_t b = std::atomic_ref<uint32_t>(at[row]).load(std::memory_order_relaxed);
    const uint32_t e = std::atomic_ref<uint32_t>(at[row + 1]).load(std::memory_order_relaxed);
    if (b == 0 || e == 0) return false;
    *begin = b - 1;
    *end = e - 1;
    return true;
  }

  // Bytes held now (grows as tables are read and pieces walked).
  uint64_t MemoryBytes() const { return sizeof(*this) + held_.load(std::memory_order_relaxed); }

 private:
  struct Page;
  PieceIndex() = default;
  Result<const Page*> Load(uint32_t page, const RandomAccessFile& file) const;
  Status Walk(const Page& p, uint32_t page, size_t piece, const RandomAccessFile& file, bool check) const;
  // Compares piece j's checksum with its bytes; marks it checked.
  Status CheckPiece(const Page& p, uint32_t page, uint64_t j, const char* bytes) const;
  std::string path_;
  uint64_t header_size_ = 0, page_size_ = 0;
  PieceTableLayout layout_;
  std::vector<std::pair<uint64_t, uint64_t>> rows_;  // per page: rows and where the first starts
  std::vector<uint64_t> used_;                        // per page: used bytes
  std::unique_ptr<std::atomic<Page*>[]> pages_;
  // Per page: its Page's walked offsets (Page::at), once the page is loaded.
  std::unique_ptr<std::atomic<uint32_t*>[]> at_;
  mutable std::atomic<uint64_t> held_{0};
};

}  // namespace mindrecord
