#include "readers/row_map.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "mindrecord/constants.h"

namespace mindrecord {

namespace {

// Prefixes not covered by held or mapped bytes are read kWalkWindow bytes at
// a time, so that a page of large rows reads little beyond each prefix; the
// reads double while each holds kGrowAfterPrefixes prefixes or more (small
// rows), up to kMaxWalkWindow: a 32 MiB page of ~50-byte rows takes ~130
// reads, not 2,048 (a direct or remote file: ~130 requests). Larger reads
// measured no faster (the window leaves the L2 cache; a new buffer faults).
constexpr uint64_t kWalkWindow = 16 << 10;
constexpr uint64_t kMaxWalkWindow = 256 << 10;
// Mapped bytes are walked this much at a time, each step let go of once walked.
constexpr uint64_t kMappedWalkStep = 1 << 20;
constexpr uint64_t kGrowAfterPrefixes = 8;

const char* PartName(RowMap::Part part) { return part == RowMap::Part::kBlob ? "blob" : "raw"; }
// What a part's bytes end with: a blob part is its whole page.
const char* PartSpan(RowMap::Part part) { return part == RowMap::Part::kBlob ? "page" : "row group"; }

}  // namespace

RowMap::~RowMap() {
  for (size_t g = 0; g < starts_.size(); ++g) {
    for (auto& o : groups_[g].offsets) delete[] o.load(std::memory_order_acquire);
  }
}

Result<std::unique_ptr<RowMap>> RowMap::Build(const ShardHeader& h, const std::string& path) {
  std::unique_ptr<RowMap> m(new RowMap());
  m->path_ = path;
  m->header_size_ = h.header_size;
  m->page_size_ = h.page_size;
  auto bad = [&](const PageInfo& p, const std::string& why) {
    return Status::Corruption(path + ": page " + std::to_string(p.page_id) + ": " + why);
  };
  // Blob pages in page order hold consecutive rows from 0.
  std::map<uint64_t, const PageInfo*> blob_by_type;
  std::vector<const PageInfo*> blobs;
  uint64_t next = 0;
  for (const PageInfo& p : h.pages) {
    if (p.used_bytes > h.page_size) {
      return bad(p, std::to_string(p.used_bytes) + " used bytes exceed the page size " + std::to_string(h.page_size));
    }
    if (p.page_id > UINT32_MAX) return bad(p, "page id is past 2^32");
    if (!p.is_blob) continue;
    if (p.start_row_id != next || p.end_row_id < p.start_row_id) {
      return bad(p, "blob page holds rows [" + std::to_string(p.start_row_id) + ", " + std::to_string(p.end_row_id) +
                        "), expected rows from " + std::to_string(next));
    }
    next = p.end_row_id;
    if (!blob_by_type.emplace(p.page_type_id, &p).second) {
      return bad(p, "blob page_type_id " + std::to_string(p.page_type_id) + " is used twice");
    }
    if (p.end_row_id > p.start_row_id) blobs.push_back(&p);
  }
  m->groups_.reset(new Group[blobs.size()]);
  std::map<uint64_t, size_t> group_by_type;
  for (size_t i = 0; i < blobs.size(); ++i) {
    Group& g = m->groups_[i];
    g.first_row = blobs[i]->start_row_id;
    g.end_row = blobs[i]->end_row_id;
    g.blob_page = static_cast<uint32_t>(blobs[i]->page_id);
    g.raw_page = UINT32_MAX;
    g.blob_used = blobs[i]->used_bytes;
    m->starts_.push_back(g.first_row);
    group_by_type[blobs[i]->page_type_id] = i;
  }
  for (const PageInfo& p : h.pages) {
    if (p.is_blob) continue;
    uint64_t base = 0;
    for (size_t k = 0; k < p.row_groups.size(); ++k) {
      const auto [id, offset] = p.row_groups[k];
      const uint64_t limit = k + 1 < p.row_groups.size() ? p.row_groups[k + 1].second : p.used_bytes;
      if (offset > limit || limit > p.used_bytes) {
        return bad(p, "row group " + std::to_string(id) + " spans [" + std::to_string(offset) + ", " +
                          std::to_string(limit) + ") of " + std::to_string(p.used_bytes) + " used bytes");
      }
      auto it = group_by_type.find(id);
      if (it == group_by_type.end()) {
        // A group of an empty blob page (or of none, in an empty shard) holds no rows.
        if (offset == limit) continue;
        return bad(p, "row group " + std::to_string(id) + " names no blob page with rows");
      }
      Group& g = m->groups_[it->second];
      if (g.raw_page != UINT32_MAX) return bad(p, "row group " + std::to_string(id) + " is listed twice");
      g.raw_page = static_cast<uint32_t>(p.page_id);
      g.raw_begin = offset;
      g.raw_end = limit;
      g.raw_base = base;
      base += g.end_row - g.first_row;
    }
  }
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (m->groups_[i].raw_page == UINT32_MAX) {
      return bad(*blobs[i], "no raw page lists row group " + std::to_string(blobs[i]->page_type_id) + " (rows " +
                                std::to_string(blobs[i]->start_row_id) + " to " +
                                std::to_string(blobs[i]->end_row_id - 1) + ")");
    }
  }
  MR_ASSIGN_OR_RETURN(m->pieces_, PieceIndex::Build(h, path));
  return m;
}

size_t RowMap::GroupOf(uint64_t row) const {
  return static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), row) - starts_.begin()) - 1;
}

uint32_t RowMap::GroupPage(size_t group, Part part) const {
  return part == Part::kBlob ? groups_[group].blob_page : groups_[group].raw_page;
}
uint64_t RowMap::GroupBegin(size_t group, Part part) const {
  return part == Part::kBlob ? 0 : groups_[group].raw_begin;
}
uint64_t RowMap::GroupEnd(size_t group, Part part) const {
  return part == Part::kBlob ? groups_[group].blob_used : groups_[group].raw_end;
}

bool RowMap::Walked(size_t group, Part part) const {
  return groups_[group].offsets[static_cast<int>(part)].load(std::memory_order_acquire) != nullptr;
}

RowMap::PartWalk::PartWalk(const RowMap& map, size_t group, Part part)
    : map_(map),
      group_(group),
      part_(part),
      first_row_(map.groups_[group].first_row),
      n_(map.groups_[group].end_row - map.groups_[group].first_row),
      end_(map.GroupEnd(group, part)),
      pos_(map.GroupBegin(group, part)),
      off_(new uint32_t[n_ + 1]) {}

Status RowMap::PartWalk::Bad(uint64_t pos, uint64_t row, const std::string& why) const {
  return Status::Corruption(map_.path_ + ": page " + std::to_string(map_.GroupPage(group_, part_)) + " offset " +
                            std::to_string(pos) + ": " + PartName(part_) + " part of row " + std::to_string(row) +
                            " " + why);
}

Status RowMap::PartWalk::TooLong(uint64_t len) const {
  return Bad(pos_, first_row_ + row_,
             "has length " + std::to_string(len) + ", past the end of its " +
                 PartSpan(part_) + " (at offset " + std::to_string(end_) + ")");
}

Status RowMap::PartWalk::PastTheEnd() const {
  return Bad(pos_, first_row_ + row_,
             "starts past the end of its " + std::string(PartSpan(part_)) +
                 " (at offset " + std::to_string(end_) + ")");
}

Status RowMap::PartWalk::Feed(uint64_t first, const char* data, uint64_t size) {
  const uint64_t last = first + size;
  uint64_t len;
  if (carry_len_ > 0) {
    if (first == carry_end_ && row_ < n_) {
      const uint64_t take = std::min(kLengthPrefix - carry_len_, size);
      std::memcpy(carry_ + carry_len_, data, take);
      carry_len_ += take;
      carry_end_ += take;
      if (carry_len_ < kLengthPrefix) return Status::OK();
      std::memcpy(&len, carry_, kLengthPrefix);
      if (len > end_ - pos_ - kLengthPrefix) return TooLong(len);
      off_[row_++] = static_cast<uint32_t>(pos_);
      pos_ += kLengthPrefix + len;
    }
    carry_len_ = 0;
  }
  // The hot loop works on locals (one dependent load per row).
  uint64_t pos = pos_, row = row_;
  while (row < n_) {
    if (end_ - pos < kLengthPrefix) {
      pos_ = pos, row_ = row;
      return PastTheEnd();
    }
    if (pos < first || pos >= last) break;
    if (last - pos < kLengthPrefix) {
      carry_len_ = last - pos;
      carry_end_ = last;
      std::memcpy(carry_, data + (pos - first), carry_len_);
      break;
    }
    std::memcpy(&len, data + (pos - first), kLengthPrefix);
    if (len > end_ - pos - kLengthPrefix) {
      pos_ = pos, row_ = row;
      return TooLong(len);
    }
    off_[row++] = static_cast<uint32_t>(pos);
    pos += kLengthPrefix + len;
  }
  pos_ = pos, row_ = row;
  return Status::OK();
}

Status RowMap::PartWalk::Finish() {
  if (!done()) return Status::Internal(map_.path_ + ": a walk finished before its last row");
  if (pos_ != end_) {
    return Bad(pos_, first_row_ + n_ - 1,
               "is followed by " + std::to_string(end_ - pos_) + " bytes that are no row (the " +
                   PartSpan(part_) + " ends at offset " + std::to_string(end_) + ")");
  }
  off_[n_] = static_cast<uint32_t>(pos_);
  map_.Publish(group_, part_, std::move(off_));
  return Status::OK();
}

Status RowMap::Walk(size_t group, Part part, const RandomAccessFile& file, const PageBytes& held) const {
  if (Walked(group, part)) return Status::OK();
  PartWalk walk(*this, group, part);
  const uint64_t end = GroupEnd(group, part);
  const uint64_t page_off = header_size_ + GroupPage(group, part) * page_size_;
  const char* map = file.MappedData();
  std::string window;
  uint64_t window_size = kWalkWindow;
  while (!walk.done()) {
    const uint64_t pos = walk.next();
    if (held.data && pos >= held.first && pos + kLengthPrefix <= held.end) {
      MR_RETURN_IF_ERROR(walk.Feed(held.first, held.data, held.end - held.first));
    } else if (map) {
      // Through the mapping in steps, each let go of once walked: the walk
      // reads prefixes only, and one row read must not leave its group's
      // bytes in this process's resident memory (RandomAccessFile::
      // ReleaseMapped). A step holds the next prefix whole.
      const uint64_t at = page_off + pos, stop = std::min(page_off + end, at + kMappedWalkStep);
      MR_RETURN_IF_ERROR(walk.Feed(pos, map + at, stop - at));
      file.ReleaseMapped(at, stop - at);
    } else if (end - pos < kLengthPrefix) {
      MR_RETURN_IF_ERROR(walk.Feed(pos, nullptr, 0));  // the error for a prefix past the end
    } else {
      // Rows small enough that a read holds many prefixes are read in
      // larger pieces (fewer calls); large rows keep reading little beyond
      // each prefix.
      window.resize(std::min(end - pos, window_size));
      MR_RETURN_IF_ERROR(file.ReadAt(page_off + pos, window.size(), window.data()));
      const uint64_t before = walk.rows_done();
      MR_RETURN_IF_ERROR(walk.Feed(pos, window.data(), window.size()));
      window_size = walk.rows_done() - before >= kGrowAfterPrefixes ? std::min(window_size * 2, kMaxWalkWindow)
                                                                       : kWalkWindow;
    }
  }
  return walk.Finish();
}

Status RowMap::Adopt(size_t group, Part part, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                     const std::string& source) const {
  const Group& g = groups_[group];
  const uint64_t n = g.end_row - g.first_row;
  uint64_t pos = GroupBegin(group, part);
  auto bad = [&](const std::string& why) {
    return Status::Corruption(source + ": " + PartName(part) + " parts of rows " + std::to_string(g.first_row) +
                              " to " + std::to_string(g.end_row - 1) + " in page " +
                              std::to_string(GroupPage(group, part)) + ": " + why);
  };
  if (ranges.size() != n) return bad(std::to_string(ranges.size()) + " ranges for " + std::to_string(n) + " rows");
  std::unique_ptr<uint32_t[]> off(new uint32_t[n + 1]);
  for (uint64_t i = 0; i < n; ++i) {
    if (ranges[i].first != pos || ranges[i].second < pos + kLengthPrefix || ranges[i].second > GroupEnd(group, part)) {
      return bad("row " + std::to_string(g.first_row + i) + " spans [" + std::to_string(ranges[i].first) + ", " +
                 std::to_string(ranges[i].second) + "), expected it to start at " + std::to_string(pos) +
                 " and end by " + std::to_string(GroupEnd(group, part)));
    }
    off[i] = static_cast<uint32_t>(pos);
    pos = ranges[i].second;
  }
  if (pos != GroupEnd(group, part)) {
    return bad("the rows end at " + std::to_string(pos) + ", the part at " + std::to_string(GroupEnd(group, part)));
  }
  off[n] = static_cast<uint32_t>(pos);
  Publish(group, part, std::move(off));
  return Status::OK();
}

void RowMap::Publish(size_t group, Part part, std::unique_ptr<uint32_t[]> offsets) const {
  const Group& g = groups_[group];
  uint32_t* expected = nullptr;
  if (g.offsets[static_cast<int>(part)].compare_exchange_strong(expected, offsets.get(), std::memory_order_acq_rel)) {
    offsets.release();
    walked_bytes_.fetch_add((g.end_row - g.first_row + 1) * sizeof(uint32_t), std::memory_order_relaxed);
  }
}

void RowMap::Fill(size_t group, uint64_t row, bool want_raw, bool want_blob, CompactLocator* out) const {
  const Group& g = groups_[group];
  const uint64_t i = row - g.first_row;
  if (want_blob) {
    const uint32_t* o = g.offsets[1].load(std::memory_order_acquire);
    out->blob_page = g.blob_page;
    out->blob_begin = o[i];
    out->blob_end = o[i + 1];
  }
  if (want_raw) {
    const uint32_t* o = g.offsets[0].load(std::memory_order_acquire);
    out->raw_page = g.raw_page;
    out->raw_begin = o[i];
    out->raw_end = o[i + 1];
  }
}

uint64_t RowMap::MemoryBytes() const {
  return sizeof(RowMap) + starts_.size() * (sizeof(Group) + sizeof(uint64_t)) +
         walked_bytes_.load(std::memory_order_relaxed) + (pieces_ ? pieces_->MemoryBytes() : 0);
}

}  // namespace mindrecord
