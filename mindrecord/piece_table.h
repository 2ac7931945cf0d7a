// Piece tables (our extension, mindrecord/FORMAT.md "Piece tables"): for each
// fixed-size piece of a page, the XXH3-64 of its bytes and the first row whose
// length prefix starts in it or after it. A reader checks only the pieces a
// row lies in, and walks length prefixes from the piece's first row rather
// than from its row group's start: the first read of a row costs one piece,
// not a page. The tables lie at the end of the header area, after the JSON
// (which MindSpore reads alone); the header's top-level "mr_pieces" key says
// where.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/checksum.h"
#include "mindrecord/header.h"
#include "mindrecord/status.h"

namespace mindrecord {

inline constexpr const char* kPieceTableKey = "mr_pieces";
// The piece size this writer uses (readers take any power of two in
// [kMinPieceBytes, kMaxPageSize]).
inline constexpr uint64_t kPieceBytes = 64 * 1024;
inline constexpr uint64_t kMinPieceBytes = 4 * 1024;
inline constexpr uint64_t kPieceEntryBytes = 16;  // per piece
inline constexpr uint64_t kPieceSliceTail = 8;    // per page: XXH3-64 of its entries

// One piece: the XXH3-64 of its bytes, and the first row (numbered within the
// page, from 0) whose length prefix starts at or after the piece's first
// byte, with that prefix's page offset; {rows in the page, used bytes} when
// no row starts there or later.
struct PieceEntry {
  uint64_t hash = 0;
  uint32_t first_row = 0;
  uint32_t offset = 0;
};

// Pieces of a page of `used` bytes.
inline uint64_t PieceCount(uint64_t used, uint64_t piece_bytes) { return (used + piece_bytes - 1) / piece_bytes; }

// Computes a page's piece table from its used bytes fed in order (the page
// is rows back to back from offset 0, each an 8-byte length prefix and its
// bytes, as every MindRecord page is). Thread safety: a value type.
class PieceTableBuilder {
 public:
  explicit PieceTableBuilder(uint64_t piece_bytes = kPieceBytes) : piece_bytes_(piece_bytes) {}
  void Feed(std::string_view bytes);
  uint64_t fed() const { return fed_; }
  // The entries of the bytes fed so far (all of the page's used bytes).
  std::vector<PieceEntry> Finish();

 private:
  uint64_t piece_bytes_;
  uint64_t fed_ = 0;
  uint64_t next_row_at_ = 0;  // page offset of the next length prefix
  uint32_t rows_ = 0;         // rows whose prefix was read
  char prefix_[8];
  uint64_t prefix_have_ = 0;  // bytes of the next prefix gathered
  Xxh3Stream hash_;
  std::vector<PieceEntry> entries_;  // pieces whose first row is known
  std::vector<uint64_t> hashes_;     // pieces hashed
};

// Where a shard's tables lie, from its header's "mr_pieces" value
// {"piece_bytes": P, "offset": O, "bytes": N}: the slice of page i (in
// header order) is its PieceCount entries of 16 bytes (hash, first_row,
// offset; little-endian) and 8 bytes of XXH3-64 over them, the slices back
// to back from O, N bytes in all.
struct PieceTableLayout {
  uint64_t piece_bytes = 0;
  uint64_t offset = 0, bytes = 0;
  std::vector<uint64_t> slice_at;  // per page index: file offset of its slice
  std::vector<uint64_t> pieces;    // per page index: its piece count

  // Nullopt-like: piece_bytes == 0 when the header has no tables. Corruption
  // naming `path` when the value is malformed, lies outside the header area
  // (after the JSON's `json_end` bytes, before header_size), or disagrees
  // with the pages' used bytes.
  static Result<PieceTableLayout> FromHeader(const ShardHeader& h, uint64_t json_end, const std::string& path);
  bool present() const { return piece_bytes != 0; }
};

// Per page index: the rows a page holds and where the first starts (a blob
// page: its rows from 0; a raw page: the rows of the row groups it lists,
// from the first group's offset). Groups naming no blob page count no rows.
std::vector<std::pair<uint64_t, uint64_t>> PageRows(const ShardHeader& h);

// A page's slice as stored.
std::string EncodePieceSlice(const std::vector<PieceEntry>& entries);
// Checks a slice's checksum and that its entries describe a page of `used`
// bytes holding `rows` rows from offset `first_at` on (anchors in order and
// inside their pieces' bounds); Corruption naming `path` and the page.
Result<std::vector<PieceEntry>> DecodePieceSlice(std::string_view slice, uint64_t piece_bytes, uint64_t used,
                                                 uint64_t rows, uint64_t first_at, const std::string& path,
                                                 uint64_t page_id);

}  // namespace mindrecord
