#include "mindrecord/piece_table.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "mindrecord/constants.h"
#include "mindrecord/json_number.h"

namespace mindrecord {

void PieceTableBuilder::Feed(std::string_view bytes) {
  const char* d = bytes.data();
  uint64_t left = bytes.size();
  while (left > 0) {
    // Up to the end of the current piece: hashed as one run.
    const uint64_t n = std::min(left, piece_bytes_ - fed_ % piece_bytes_);
    const uint64_t at = fed_, end = fed_ + n;
    while (next_row_at_ < end) {
      if (prefix_have_ == 0) {
        // A row starts here: the first row of every piece up to this one
        // that has none yet.
        while (entries_.size() * piece_bytes_ <= next_row_at_) {
          entries_.push_back({0, rows_, static_cast<uint32_t>(next_row_at_)});
        }
      }
      const uint64_t want = next_row_at_ + prefix_have_;
      const uint64_t take = std::min(kLengthPrefix - prefix_have_, end - want);
      std::memcpy(prefix_ + prefix_have_, d + (want - at), take);
      prefix_have_ += take;
      if (prefix_have_ < kLengthPrefix) break;
      uint64_t len;
      std::memcpy(&len, prefix_, kLengthPrefix);
      prefix_have_ = 0;
      ++rows_;
      // (A length past any page leaves no further row in it.)
      next_row_at_ = len > kMaxPageSize ? UINT64_MAX : next_row_at_ + kLengthPrefix + len;
    }
    hash_.Update(std::string_view(d, n));
    fed_ = end;
    d += n;
    left -= n;
    if (fed_ % piece_bytes_ == 0) {
      hashes_.push_back(hash_.Digest());
      hash_.Reset();
    }
  }
}

std::vector<PieceEntry> PieceTableBuilder::Finish() {
  if (fed_ % piece_bytes_ != 0) {
    hashes_.push_back(hash_.Digest());
    hash_.Reset();
  }
  std::vector<PieceEntry> out = std::move(entries_);
  out.resize(hashes_.size(), PieceEntry{0, rows_, static_cast<uint32_t>(fed_)});
  for (size_t j = 0; j < out.size(); ++j) out[j].hash = hashes_[j];
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> PageRows(const ShardHeader& h) {
  std::unordered_map<uint64_t, uint64_t> blob_rows;
  for (const PageInfo& p : h.pages) {
    if (p.is_blob && p.end_row_id >= p.start_row_id) blob_rows[p.page_type_id] = p.end_row_id - p.start_row_id;
  }
  std::vector<std::pair<uint64_t, uint64_t>> out;
  out.reserve(h.pages.size());
  for (const PageInfo& p : h.pages) {
    if (p.is_blob) {
      out.emplace_back(p.end_row_id >= p.start_row_id ? p.end_row_id - p.start_row_id : 0, 0);
      continue;
    }
    uint64_t rows = 0;
    for (const auto& [id, offset] : p.row_groups) {
      auto it = blob_rows.find(id);
      if (it != blob_rows.end()) rows += it->second;
    }
    out.emplace_back(rows, p.row_groups.empty() ? 0 : p.row_groups.front().second);
  }
  return out;
}

std::string EncodePieceSlice(const std::vector<PieceEntry>& entries) {
  std::string out(entries.size() * kPieceEntryBytes + kPieceSliceTail, '\0');
  char* p = out.data();
  for (const PieceEntry& e : entries) {
    std::memcpy(p, &e.hash, 8);
    std::memcpy(p + 8, &e.first_row, 4);
    std::memcpy(p + 12, &e.offset, 4);
    p += kPieceEntryBytes;
  }
  const uint64_t sum = Xxh3(std::string_view(out.data(), entries.size() * kPieceEntryBytes));
  std::memcpy(p, &sum, 8);
  return out;
}

Result<std::vector<PieceEntry>> DecodePieceSlice(std::string_view slice, uint64_t piece_bytes, uint64_t used,
                                                 uint64_t rows, uint64_t first_at, const std::string& path,
                                                 uint64_t page_id) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": piece table of page " + std::to_string(page_id) + ": " + why);
  };
  const uint64_t n = PieceCount(used, piece_bytes);
  if (slice.size() != n * kPieceEntryBytes + kPieceSliceTail) {
    return bad(std::to_string(slice.size()) + " bytes, expected " + std::to_string(n * kPieceEntryBytes + kPieceSliceTail));
  }
  uint64_t stored;
  std::memcpy(&stored, slice.data() + n * kPieceEntryBytes, 8);
  const uint64_t computed = Xxh3(slice.substr(0, n * kPieceEntryBytes));
  if (stored != computed) {
    return bad("checksum mismatch: stored " + ChecksumHex(stored) + ", computed " + ChecksumHex(computed));
  }
  std::vector<PieceEntry> out(n);
  const char* p = slice.data();
  for (uint64_t j = 0; j < n; ++j, p += kPieceEntryBytes) {
    PieceEntry& e = out[j];
    std::memcpy(&e.hash, p, 8);
    std::memcpy(&e.first_row, p + 8, 4);
    std::memcpy(&e.offset, p + 12, 4);
    const bool none = e.first_row == rows;
    if (e.first_row > rows || e.offset > used || none != (e.offset == used) ||
        (!none && e.offset < j * piece_bytes) ||
        (j == 0 && rows > 0 && (e.first_row != 0 || e.offset != first_at)) ||
        (j > 0 && (e.first_row < out[j - 1].first_row || e.offset < out[j - 1].offset ||
                   (e.first_row == out[j - 1].first_row) != (e.offset == out[j - 1].offset)))) {
      return bad("piece " + std::to_string(j) + " names row " + std::to_string(e.first_row) + " at offset " +
                 std::to_string(e.offset) + ", which does not follow from the pieces before it (" +
                 std::to_string(rows) + " rows in " + std::to_string(used) + " bytes)");
    }
  }
  return out;
}

Result<PieceTableLayout> PieceTableLayout::FromHeader(const ShardHeader& h, uint64_t json_end,
                                                      const std::string& path) {
  PieceTableLayout out;
  auto it = h.extra.find(kPieceTableKey);
  if (it == h.extra.end()) return out;
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": header key " + kPieceTableKey + " " + it->dump() + ": " + why);
  };
  if (!it->is_object()) return bad("is not an object");
  const auto member = [&](const char* key) { return JsonUnsigned(it->value(key, nlohmann::json())); };
  const auto piece = member("piece_bytes"), offset = member("offset"), bytes = member("bytes");
  if (!piece || !offset || !bytes) return bad("needs unsigned piece_bytes, offset and bytes");
  if (*piece < kMinPieceBytes || *piece > kMaxPageSize || (*piece & (*piece - 1)) != 0) {
    return bad("piece_bytes must be a power of two in [" + std::to_string(kMinPieceBytes) + ", " +
               std::to_string(kMaxPageSize) + "]");
  }
  if (*offset < json_end || *offset > h.header_size || *bytes > h.header_size - *offset) {
    return bad("the tables must lie between the header JSON's end (" + std::to_string(json_end) +
               ") and header_size (" + std::to_string(h.header_size) + ")");
  }
  out.piece_bytes = *piece;
  out.offset = *offset;
  out.bytes = *bytes;
  uint64_t at = *offset;
  for (const PageInfo& p : h.pages) {
    if (p.used_bytes > h.page_size) return bad("page " + std::to_string(p.page_id) + " is larger than a page");
    const uint64_t n = PieceCount(p.used_bytes, *piece);
    out.slice_at.push_back(at);
    out.pieces.push_back(n);
    at += n * kPieceEntryBytes + kPieceSliceTail;
  }
  if (at - *offset != *bytes) {
    return bad("the pages' tables take " + std::to_string(at - *offset) + " bytes, not " + std::to_string(*bytes));
  }
  return out;
}

}  // namespace mindrecord
