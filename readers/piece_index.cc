#include "readers/piece_index.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"

namespace mindrecord {

namespace {
// Prefixes read (not mapped) are read this much at a time.
constexpr uint64_t kWalkRead = 64 << 10;
}  // namespace

struct PieceIndex::Page {
  std::vector<PieceEntry> e;
  // Per row of the page and one past the last: its prefix's offset + 1 once
  // its piece was walked, 0 before. Zero pages from calloc: only the parts
  // of the array that walks write take memory.
  uint32_t* at = nullptr;
  std::unique_ptr<std::atomic<uint8_t>[]> checked;  // per piece: checksum matched
  std::unique_ptr<std::atomic<uint8_t>[]> walked;   // per entry: its rows' offsets counted in held_
  mutable std::atomic<uint64_t> checked_count{0};
  ~Page() { std::free(at); }
  uint32_t Get(uint64_t row) const { return std::atomic_ref<uint32_t>(at[row]).load(std::memory_order_relaxed); }
};

PieceIndex::~PieceIndex() {
  if (!pages_) return;
  for (size_t i = 0; i < used_.size(); ++i) delete pages_[i].load(std::memory_order_acquire);
}

Result<std::unique_ptr<PieceIndex>> PieceIndex::Build(const ShardHeader& h, const std::string& path) {
  if (h.json_bytes == 0 || !h.extra.contains(kPieceTableKey)) return std::unique_ptr<PieceIndex>();
  // Tables that no longer fit the header (left by a writer that kept the key
  // but not the tables, such as an older version's append) are not used:
  // rows are read through the pages as without them; verify reports them.
  auto found = PieceTableLayout::FromHeader(h, kLengthPrefix + h.json_bytes, path);
  if (!found.ok()) return std::unique_ptr<PieceIndex>();
  PieceTableLayout layout = std::move(found).value();
  for (size_t i = 0; i < h.pages.size(); ++i) {
    if (h.pages[i].page_id != i || h.pages[i].used_bytes > UINT32_MAX) return std::unique_ptr<PieceIndex>();
  }
  std::unique_ptr<PieceIndex> x(new PieceIndex());
  x->path_ = path;
  x->header_size_ = h.header_size;
  x->page_size_ = h.page_size;
  x->layout_ = std::move(layout);
  x->rows_ = PageRows(h);
  for (const PageInfo& p : h.pages) x->used_.push_back(p.used_bytes);
  x->pages_.reset(new std::atomic<Page*>[h.pages.size()]());
  x->at_.reset(new std::atomic<uint32_t*>[h.pages.size()]());
  x->held_ = h.pages.size() * (sizeof(std::atomic<Page*>) + 4 * sizeof(uint64_t));
  return x;
}

Result<const PieceIndex::Page*> PieceIndex::Load(uint32_t page, const RandomAccessFile& file) const {
  if (const Page* p = pages_[page].load(std::memory_order_acquire)) return p;
  const uint64_t n = layout_.pieces[page];
  std::string slice(n * kPieceEntryBytes + kPieceSliceTail, '\0');
  MR_RETURN_IF_ERROR(file.ReadAt(layout_.slice_at[page], slice.size(), slice.data()));
  auto p = std::make_unique<Page>();
  MR_ASSIGN_OR_RETURN(p->e, DecodePieceSlice(slice, layout_.piece_bytes, used_[page], rows_[page].first,
                                             rows_[page].second, path_, page));
  // Rows are at least their 8-byte prefix: the count is bounded by the page.
  if (rows_[page].first > used_[page] / kLengthPrefix) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " is said to hold " +
                              std::to_string(rows_[page].first) + " rows in " + std::to_string(used_[page]) +
                              " bytes");
  }
  p->at = static_cast<uint32_t*>(std::calloc(rows_[page].first + 1, sizeof(uint32_t)));
  if (p->at == nullptr) return Status::Internal(path_ + ": out of memory for page " + std::to_string(page));
  p->checked.reset(new std::atomic<uint8_t>[n]());
  p->walked.reset(new std::atomic<uint8_t>[n]());
  Page* expected = nullptr;
  if (pages_[page].compare_exchange_strong(expected, p.get(), std::memory_order_acq_rel)) {
    at_[page].store(p->at, std::memory_order_release);
    held_.fetch_add(sizeof(Page) + n * (sizeof(PieceEntry) + 2), std::memory_order_relaxed);
    return p.release();
  }
  return static_cast<const Page*>(expected);
}

Status PieceIndex::CheckPiece(const Page& p, uint32_t page, uint64_t j, const char* bytes) const {
  const uint64_t at = j * layout_.piece_bytes, n = std::min(used_[page] - at, layout_.piece_bytes);
  const uint64_t computed = Xxh3(std::string_view(bytes, n));
  if (computed != p.e[j].hash) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " piece " + std::to_string(j) + " (offset " +
                              std::to_string(header_size_ + page * page_size_ + at) + ", " + std::to_string(n) +
                              " bytes) checksum mismatch: stored " + ChecksumHex(p.e[j].hash) + ", computed " +
                              ChecksumHex(computed));
  }
  if (p.checked[j].exchange(1, std::memory_order_acq_rel) == 0) p.checked_count.fetch_add(1, std::memory_order_acq_rel);
  return Status::OK();
}

Status PieceIndex::Walk(const Page& p, uint32_t page, size_t j, const RandomAccessFile& file, bool check) const {
  const bool last = j + 1 == p.e.size();
  const uint64_t first = p.e[j].first_row, end_row = last ? rows_[page].first : p.e[j + 1].first_row;
  const uint64_t start = p.e[j].offset, stop = last ? used_[page] : p.e[j + 1].offset;
  const uint64_t page_off = header_size_ + page * page_size_;
  auto bad = [&](uint64_t pos, uint64_t row, const std::string& why) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " offset " + std::to_string(pos) +
                              ": row " + std::to_string(row) + " of the page " + why);
  };
  // Every row takes at least its prefix: a table claiming more rows than
  // that is damaged (and must not size an allocation).
  if (end_row - first > (stop - start) / kLengthPrefix) {
    return bad(start, first, "begins " + std::to_string(end_row - first) + " rows in " + std::to_string(stop - start) +
                                 " bytes, too many to be rows");
  }
  std::unique_ptr<uint32_t[]> off(new uint32_t[end_row - first + 1]);
  const char* map = file.MappedData();
  std::unique_ptr<char[]> window;
  uint64_t win_first = 0, win_end = 0;
  // Every row of the piece starts in it (the next piece's first row is the
  // first at or after its end), so the prefixes lie in the piece and at
  // most 8 bytes past it: read once (not mapped), checked (when asked) and
  // walked from the same bytes. The read of a row in the piece then finds it
  // checked.
  const uint64_t piece = layout_.piece_bytes, k = start / piece;
  if (!map || (check && !p.checked[k].load(std::memory_order_acquire))) {
    const uint64_t from = k * piece, to = std::min(used_[page], (k + 1) * piece + kLengthPrefix);
    const char* bytes = map ? map + page_off + from : nullptr;
    if (!bytes) {
      window.reset(new char[to - from]);
      MR_RETURN_IF_ERROR(file.ReadAt(page_off + from, to - from, window.get()));
      bytes = window.get();
      win_first = from;
      win_end = to;
    }
    if (check && !p.checked[k].load(std::memory_order_acquire)) MR_RETURN_IF_ERROR(CheckPiece(p, page, k, bytes));
  }
  uint64_t pos = start;
  for (uint64_t r = first; r < end_row; ++r) {
    if (stop - pos < kLengthPrefix) {
      return bad(pos, r, "starts where its piece's rows end (offset " + std::to_string(stop) + ")");
    }
    uint64_t len;
    if (map) {
      std::memcpy(&len, map + page_off + pos, kLengthPrefix);
    } else {
      if (pos < win_first || pos + kLengthPrefix > win_end) {
        const uint64_t n = std::min(stop - pos, kWalkRead);
        window.reset(new char[n]);
        MR_RETURN_IF_ERROR(file.ReadAt(page_off + pos, n, window.get()));
        win_first = pos;
        win_end = pos + n;
      }
      std::memcpy(&len, window.get() + (pos - win_first), kLengthPrefix);
    }
    if (len > stop - pos - kLengthPrefix) {
      return bad(pos, r, "has length " + std::to_string(len) + ", past where its piece's rows end (offset " +
                             std::to_string(stop) + ")");
    }
    off[r - first] = static_cast<uint32_t>(pos);
    pos += kLengthPrefix + len;
  }
  if (pos != stop) {
    return bad(pos, end_row - 1, "ends " + std::to_string(stop - pos) + " bytes before the next piece's first row");
  }
  off[end_row - first] = static_cast<uint32_t>(stop);
  // Each value is the same whichever thread walks the piece (the bytes are
  // the file's), so walks that race only store it twice.
  for (uint64_t r = first; r <= end_row; ++r) {
    std::atomic_ref<uint32_t>(p.at[r]).store(off[r - first] + 1, std::memory_order_relaxed);
  }
  // Walks that raced stored the same values: the first to finish counts them.
  if (p.walked[j].exchange(1, std::memory_order_relaxed) == 0) {
    held_.fetch_add((end_row - first) * sizeof(uint32_t), std::memory_order_relaxed);
  }
  return Status::OK();
}

Status PieceIndex::Locate(uint32_t page, uint64_t row, const RandomAccessFile& file, bool check, uint32_t* begin,
                          uint32_t* end) const {
  MR_ASSIGN_OR_RETURN(const Page* p, Load(page, file));
  if (row >= rows_[page].first) {
    return Status::Corruption(path_ + ": page " + std::to_string(page) + " holds " +
                              std::to_string(rows_[page].first) + " rows, not row " + std::to_string(row));
  }
  uint32_t b = p->Get(row), e = p->Get(row + 1);
  if (b == 0 || e == 0) {
    // The last piece whose first row is at or before the row (piece 0's is row 0).
    auto it = std::upper_bound(p->e.begin(), p->e.end(), row,
                               [](uint64_t r, const PieceEntry& x) { return r < x.first_row; });
    if (it == p->e.begin()) {
      return Status::Corruption(path_ + ": page " + std::to_string(page) + ": its piece table names no first row");
    }
    MR_RETURN_IF_ERROR(Walk(*p, page, static_cast<size_t>(it - p->e.begin()) - 1, file, check));
    b = p->Get(row);
    e = p->Get(row + 1);
  }
  *begin = b - 1;
  *end = e - 1;
  return Status::OK();
}

Status PieceIndex::Verify(uint32_t page, uint64_t begin, uint64_t end, const RandomAccessFile& file,
                          bool* whole) const {
  MR_ASSIGN_OR_RETURN(const Page* p, Load(page, file));
  const uint64_t piece = layout_.piece_bytes, used = used_[page];
  end = std::min(end, used);
  const uint64_t page_off = header_size_ + page * page_size_;
  const char* map = file.MappedData();
  std::string buf;
  for (uint64_t j = begin / piece; begin < end && j <= (end - 1) / piece; ++j) {
    if (p->checked[j].load(std::memory_order_acquire)) continue;
    const uint64_t at = j * piece, n = std::min(used - at, piece);
    const char* data = map ? map + page_off + at : nullptr;
    if (!data) {
      buf.resize(n);
      MR_RETURN_IF_ERROR(file.ReadAt(page_off + at, n, buf.data()));
      data = buf.data();
    }
    MR_RETURN_IF_ERROR(CheckPiece(*p, page, j, data));
  }
  *whole = p->checked_count.load(std::memory_order_acquire) == p->e.size();
  return Status::OK();
}

}  // namespace mindrecord
