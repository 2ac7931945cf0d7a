#include "readers/page_walker.h"

#include <cstring>
#include <map>

#include "mindrecord/constants.h"

namespace mindrecord {

Result<std::vector<RowLocator>> WalkPages(const RandomAccessFile& file, const ShardHeader& h) {
  const uint64_t rows = h.num_rows();
  std::vector<RowLocator> locs(rows);
  std::vector<uint8_t> seen_raw(rows, 0);
  std::map<uint64_t, const PageInfo*> blob_by_type;
  auto bad = [&](const PageInfo& p, const std::string& why) {
    return Status::Corruption(file.path() + ": page " + std::to_string(p.page_id) + ": " + why);
  };
  std::string buf;
  auto load = [&](const PageInfo& p) -> Status {
    buf.resize(p.used_bytes);
    return file.ReadAt(h.PageOffset(p.page_id), p.used_bytes, buf.data());
  };
  auto length_at = [&](uint64_t pos) {
    uint64_t len;
    std::memcpy(&len, buf.data() + pos, 8);
    return len;
  };
  for (const PageInfo& p : h.pages) {
    if (!p.is_blob) continue;
    if (!blob_by_type.emplace(p.page_type_id, &p).second) {
      return bad(p, "blob page_type_id " + std::to_string(p.page_type_id) + " is used twice");
    }
    MR_RETURN_IF_ERROR(load(p));
    uint64_t pos = 0;
    for (uint64_t r = p.start_row_id; r < p.end_row_id; ++r) {
      if (p.used_bytes - pos < kLengthPrefix) return bad(p, "row " + std::to_string(r) + " starts past the page end");
      const uint64_t len = length_at(pos);
      if (len > p.used_bytes - pos - kLengthPrefix) {
        return bad(p, "row " + std::to_string(r) + " blob length " + std::to_string(len) + " at offset " +
                          std::to_string(pos) + " overruns the page");
      }
      locs[r].row_id = r;
      locs[r].blob_page = p.page_id;
      locs[r].blob_begin = pos;
      pos += kLengthPrefix + len;
      locs[r].blob_end = pos;
    }
    if (pos != p.used_bytes) return bad(p, std::to_string(p.used_bytes - pos) + " bytes after the last blob row");
  }
  for (const PageInfo& p : h.pages) {
    if (p.is_blob) continue;
    MR_RETURN_IF_ERROR(load(p));
    for (size_t g = 0; g < p.row_groups.size(); ++g) {
      const auto [group, offset] = p.row_groups[g];
      const uint64_t limit = g + 1 < p.row_groups.size() ? p.row_groups[g + 1].second : p.used_bytes;
      auto it = blob_by_type.find(group);
      if (it == blob_by_type.end()) {
        if (p.used_bytes == 0 && rows == 0) continue;
        return bad(p, "row group " + std::to_string(group) + " names no blob page");
      }
      uint64_t pos = offset;
      for (uint64_t r = it->second->start_row_id; r < it->second->end_row_id; ++r) {
        if (limit < pos || limit - pos < kLengthPrefix) {
          return bad(p, "row group " + std::to_string(group) + " ends before its row " + std::to_string(r));
        }
        const uint64_t len = length_at(pos);
        if (len > limit - pos - kLengthPrefix) {
          return bad(p, "row " + std::to_string(r) + " raw length " + std::to_string(len) + " at offset " +
                            std::to_string(pos) + " overruns its row group");
        }
        if (seen_raw[r]++) return bad(p, "row " + std::to_string(r) + " appears in two row groups");
        locs[r].raw_page = p.page_id;
        locs[r].raw_begin = pos;
        pos += kLengthPrefix + len;
        locs[r].raw_end = pos;
        locs[r].row_group = group;
      }
      if (pos != limit) {
        return bad(p, "row group " + std::to_string(group) + " has " + std::to_string(limit - pos) +
                          " bytes after its last row");
      }
    }
  }
  for (uint64_t r = 0; r < rows; ++r) {
    if (!seen_raw[r]) {
      return Status::Corruption(file.path() + ": row " + std::to_string(r) + " has no raw part in any raw page");
    }
  }
  return locs;
}

}  // namespace mindrecord
