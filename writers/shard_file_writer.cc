#include "writers/shard_file_writer.h"

#include <cstring>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"

namespace mindrecord {

ShardFileWriter::ShardFileWriter(FileSystem* fs, std::unique_ptr<WritableFile> file,
                                 std::unique_ptr<IndexWriter> index, uint64_t header_size, uint64_t page_size,
                                 uint32_t shard_id, std::vector<std::string> index_fields, bool checksums,
                                 bool piece_tables)
    : fs_(fs),
      file_(std::move(file)),
      index_(std::move(index)),
      header_size_(header_size),
      page_size_(page_size),
      shard_id_(shard_id),
      index_fields_(std::move(index_fields)),
      checksums_(checksums),
      piece_tables_(checksums && piece_tables) {}

ShardFileWriter::~ShardFileWriter() {
  if (index_queue_ && index_) index_queue_->Discard(index_.get());
}

void ShardFileWriter::Resume(std::vector<PageInfo> pages, uint64_t rows,
                             std::vector<std::pair<RowLocator, Row>> open_group, uint64_t old_header_bytes,
                             std::vector<std::vector<PieceEntry>> old_tables) {
  committed_tables_ = std::move(old_tables);
  pages_ = std::move(pages);
  rows_ = rows;
  open_group_ = std::move(open_group);
  committed_used_.clear();
  for (const auto& p : pages_) committed_used_.push_back(p.used_bytes);
  old_header_bytes_ = old_header_bytes;
}

bool ShardFileWriter::EnableDirectWrites(DirectWriteQueue* queue, uint32_t shard_count) {
  if (!pages_.empty()) return false;
  direct_ = DirectPageWriter::Create(file_.get(), queue, header_size_, page_size_, shard_count);
  return direct_ != nullptr;
}

int ShardFileWriter::LastPage(bool blob) const {
  for (int i = static_cast<int>(pages_.size()) - 1; i >= 0; --i) {
    if (pages_[i].is_blob == blob) return i;
  }
  return -1;
}

// Writes rows [begin, end) back to back (8-byte LE length + part) at `at`
// within page `page_id`, as one write.
Status ShardFileWriter::WriteRows(uint64_t page_id, uint64_t at, const std::vector<const EncodedRow*>& rows,
                                  size_t begin, size_t end, bool blob) {
  // Length prefixes go in one buffer, parts are written from where they are.
  prefixes_.resize((end - begin) * 8);
  pieces_.clear();
  uint64_t pos = at;
  for (size_t i = begin; i < end; ++i) {
    const std::string& part = blob ? rows[i]->blob : rows[i]->raw;
    const uint64_t len = part.size();
    char* le = prefixes_.data() + (i - begin) * 8;
    std::memcpy(le, &len, 8);
    pieces_.emplace_back(le, 8);
    pieces_.emplace_back(part);
    HashAppend(page_id, pos, pieces_[pieces_.size() - 2]);
    HashAppend(page_id, pos + 8, part);
    pos += 8 + len;
  }
  if (direct_) return direct_->Append(blob ? 0 : 1, page_id, at, pieces_);
  return file_->WriteAtV(header_size_ + page_id * page_size_ + at, pieces_);
}

void ShardFileWriter::HashAppend(uint64_t page_id, uint64_t at, std::string_view data) {
  if (!checksums_) return;
  if (page_hash_.size() <= page_id) page_hash_.resize(page_id + 1);
  PageHash& h = page_hash_[page_id];
  if (!h.valid || at != h.bytes) {
    h.valid = false;
    return;
  }
  h.hash.Update(data);
  if (piece_tables_) h.pieces.Feed(data);
  h.bytes += data.size();
}

Status ShardFileWriter::ShiftLastRowGroup(uint64_t first_row) {
  const int lr = LastPage(false);
  PageInfo& old = pages_[lr];
  const uint64_t off = old.row_groups.back().second;
  const uint64_t shift = old.used_bytes - off;
  std::string moved(shift, '\0');
  if (direct_) MR_RETURN_IF_ERROR(direct_->Flush());  // the bytes to move must be in the file
  MR_RETURN_IF_ERROR(file_->ReadAt(header_size_ + old.page_id * page_size_ + off, shift, moved.data()));
  PageInfo p;
  p.page_id = pages_.size();
  p.shard_id = shard_id_;
  p.is_blob = false;
  p.page_type_id = old.page_id + 1;  // MindSpore numbers raw pages from the previous raw page's id
  p.row_groups.emplace_back(old.row_groups.back().first, 0);
  p.used_bytes = shift;
  HashAppend(p.page_id, 0, moved);
  if (old.page_id < page_hash_.size()) page_hash_[old.page_id].valid = false;  // its used size shrinks
  if (direct_) {
    MR_RETURN_IF_ERROR(direct_->Append(1, p.page_id, 0, {moved}));
  } else {
    MR_RETURN_IF_ERROR(file_->WriteAt(header_size_ + p.page_id * page_size_, moved));
  }
  // The moved bytes stay behind in the old slot, past its used size, as in MindSpore.
  old.used_bytes = off;
  old.row_groups.pop_back();
  for (auto& [loc, values] : open_group_) {
    loc.raw_page = p.page_id;
    loc.raw_begin -= off;
    loc.raw_end -= off;
  }
  // The group's rows already handed to the index (all but open_group_'s).
  const uint64_t queued_end = open_group_.empty() ? rows_ : open_group_.front().first.row_id;
  if (index_queue_ && first_row < queued_end) {
    MR_RETURN_IF_ERROR(index_queue_->MoveRaw(index_.get(), first_row, queued_end, p.page_id, off));
  }
  pages_.push_back(std::move(p));
  return Status::OK();
}

Status ShardFileWriter::WriteBatch(const std::vector<const EncodedRow*>& rows) {
  const size_t n = rows.size();
  if (n == 0) return Status::OK();
  std::vector<uint64_t> rs(n), bs(n);
  for (size_t i = 0; i < n; ++i) {
    rs[i] = kLengthPrefix + rows[i]->raw.size();
    bs[i] = kLengthPrefix + rows[i]->blob.size();
    if (rs[i] > page_size_ || bs[i] > page_size_) {
      return Status::InvalidArgument("page size too small: a row needs " + std::to_string(std::max(rs[i], bs[i])) +
                                     " bytes (with its 8-byte length) but page_size is " +
                                     std::to_string(page_size_) + "; raise page_size");
    }
    packing_saved_ += rows[i]->packing_saved;
  }
  auto sum = [](const std::vector<uint64_t>& v, size_t b, size_t e) {
    uint64_t s = 0;
    for (size_t i = b; i < e; ++i) s += v[i];
    return s;
  };

  // Cut row groups: group 0 continues the last blob page (may be empty).
  int lb = LastPage(true);
  int lr = LastPage(false);
  uint64_t nb = lb >= 0 ? pages_[lb].used_bytes : 0;
  uint64_t nr = (lr >= 0 && !pages_[lr].row_groups.empty())
                    ? pages_[lr].used_bytes - pages_[lr].row_groups.back().second
                    : 0;
  std::vector<std::pair<size_t, size_t>> groups;
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    if (nb == 0 || nb + bs[i] > page_size_ || nr + rs[i] > page_size_) {
      groups.emplace_back(start, i);
      start = i;
      nb = bs[i];
      nr = rs[i];
    } else {
      nb += bs[i];
      nr += rs[i];
    }
  }
  groups.emplace_back(start, n);

  std::vector<RowLocator> locs(n);
  for (size_t i = 0; i < n; ++i) locs[i].row_id = rows_ + i;
  auto place_blobs = [&](const PageInfo& p, uint64_t at, size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      locs[i].blob_page = p.page_id;
      locs[i].blob_begin = at;
      at += bs[i];
      locs[i].blob_end = at;
    }
  };

  // Blob pages: fill the last one, then open new ones.
  if (groups[0].first != groups[0].second) {
    PageInfo& p = pages_[lb];
    MR_RETURN_IF_ERROR(WriteRows(p.page_id, p.used_bytes, rows, groups[0].first, groups[0].second, true));
    place_blobs(p, p.used_bytes, groups[0].first, groups[0].second);
    p.used_bytes += sum(bs, groups[0].first, groups[0].second);
    p.end_row_id += groups[0].second - groups[0].first;
  }
  int64_t blob_type_id = lb >= 0 ? static_cast<int64_t>(pages_[lb].page_type_id) : -1;
  uint64_t cur_row = lb >= 0 ? pages_[lb].end_row_id : 0;
  for (size_t g = 1; g < groups.size(); ++g) {
    PageInfo p;
    p.page_id = pages_.size();
    p.shard_id = shard_id_;
    p.is_blob = true;
    p.page_type_id = static_cast<uint64_t>(++blob_type_id);
    p.start_row_id = cur_row;
    p.end_row_id = cur_row + (groups[g].second - groups[g].first);
    p.used_bytes = sum(bs, groups[g].first, groups[g].second);
    MR_RETURN_IF_ERROR(WriteRows(p.page_id, 0, rows, groups[g].first, groups[g].second, true));
    place_blobs(p, 0, groups[g].first, groups[g].second);
    cur_row = p.end_row_id;
    pages_.push_back(std::move(p));
  }

  // Raw pages: a continued row group that no longer fits moves whole.
  if (groups[0].first != groups[0].second && lr >= 0 &&
      sum(rs, groups[0].first, groups[0].second) + pages_[lr].used_bytes > page_size_) {
    MR_RETURN_IF_ERROR(ShiftLastRowGroup(pages_[lb].start_row_id));
    lr = LastPage(false);
  }
  int64_t last_group = (lr >= 0 && !pages_[lr].row_groups.empty())
                           ? static_cast<int64_t>(pages_[lr].row_groups.back().first)
                           : -1;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [b, e] = groups[g];
    if (b == e) continue;
    const uint64_t raw_size = sum(rs, b, e);
    if (lr < 0 || pages_[lr].used_bytes + raw_size > page_size_) {
      PageInfo p;
      p.page_id = pages_.size();
      p.shard_id = shard_id_;
      p.is_blob = false;
      p.page_type_id = lr < 0 ? 0 : pages_[lr].page_id + 1;  // as MindSpore numbers them
      pages_.push_back(std::move(p));
      lr = static_cast<int>(pages_.size()) - 1;
    }
    PageInfo& p = pages_[lr];
    if (g > 0) p.row_groups.emplace_back(static_cast<uint64_t>(++last_group), p.used_bytes);
    MR_RETURN_IF_ERROR(WriteRows(p.page_id, p.used_bytes, rows, b, e, false));
    uint64_t at = p.used_bytes;
    for (size_t i = b; i < e; ++i) {
      locs[i].raw_page = p.page_id;
      locs[i].raw_begin = at;
      at += rs[i];
      locs[i].raw_end = at;
      locs[i].row_group = p.row_groups.empty() ? 0 : p.row_groups.back().first;
    }
    p.used_bytes = at;
  }

  for (size_t i = 0; i < n; ++i) open_group_.emplace_back(locs[i], rows[i]->index_values);
  rows_ += n;
  return FlushClosedLocators();
}

Status ShardFileWriter::FlushClosedLocators() {
  // With a queue every row goes to the index at once (a later move of its
  // row group is queued as an update), so the inserts keep pace with the
  // writing and Commit waits only for the last batch's.
  if (index_queue_) return AddToIndex(open_group_.size());
  const int lb = LastPage(true);
  const uint64_t open_from = lb >= 0 ? pages_[lb].start_row_id : 0;
  size_t k = 0;
  while (k < open_group_.size() && open_group_[k].first.row_id < open_from) ++k;
  return AddToIndex(k);
}

Status ShardFileWriter::AddToIndex(size_t n) {
  if (n == 0) return Status::OK();
  if (index_queue_) {
    IndexQueue::Rows rows;
    if (n == open_group_.size()) {
      rows.swap(open_group_);
    } else {
      rows.assign(std::make_move_iterator(open_group_.begin()),
                  std::make_move_iterator(open_group_.begin() + static_cast<long>(n)));
      open_group_.erase(open_group_.begin(), open_group_.begin() + static_cast<long>(n));
    }
    return index_queue_->Add(index_.get(), std::move(rows));
  }
  for (size_t k = 0; k < n; ++k) MR_RETURN_IF_ERROR(index_->Add(open_group_[k].first, open_group_[k].second));
  open_group_.erase(open_group_.begin(), open_group_.begin() + static_cast<long>(n));
  return Status::OK();
}

Status ShardFileWriter::Finish(ShardHeader base) {
  // With a queue, the last group's inserts run while the data file is
  // written and fsynced below.
  MR_RETURN_IF_ERROR(AddToIndex(open_group_.size()));
  if (direct_) {
    // Every page byte to the file, then the file cut to the length the
    // buffered writes would leave (the last chunk is padded).
    MR_RETURN_IF_ERROR(direct_->Flush());
    const uint64_t end = direct_->end();
    direct_.reset();
    MR_RETURN_IF_ERROR(file_->Truncate(end));
  }
  std::string tables;
  if (checksums_) {
    // Pages are final now (appends and moved row groups are done). Most were
    // hashed as written; the others are hashed from their bytes on disk.
    std::vector<std::vector<PieceEntry>> by_page(pages_.size());
    std::string buf;
    for (auto& p : pages_) {
      // Unchanged since the append began: keeps its stored checksum, and its
      // piece table where the shard had one.
      const bool committed = p.page_id < committed_used_.size() && committed_used_[p.page_id] == p.used_bytes &&
                             p.extra.contains(kPageChecksumKey);
      auto& table = by_page[p.page_id];
      bool need_table = piece_tables_;
      if (need_table && committed && p.page_id < committed_tables_.size() &&
          committed_tables_[p.page_id].size() == PieceCount(p.used_bytes, kPieceBytes)) {
        table = std::move(committed_tables_[p.page_id]);
        need_table = false;
      }
      PageHash* h = p.page_id < page_hash_.size() ? &page_hash_[p.page_id] : nullptr;
      if (!committed && h && h->valid && h->bytes == p.used_bytes) {
        p.extra[kPageChecksumKey] = ChecksumHex(h->hash.Digest());
        if (need_table) table = h->pieces.Finish();
        continue;
      }
      if (committed && !need_table) continue;
      buf.resize(p.used_bytes);
      MR_RETURN_IF_ERROR(file_->ReadAt(header_size_ + p.page_id * page_size_, p.used_bytes, buf.data()));
      if (!committed) p.extra[kPageChecksumKey] = ChecksumHex(Xxh3(buf));
      if (need_table) {
        PieceTableBuilder b;
        b.Feed(buf);
        table = b.Finish();
      }
    }
    if (piece_tables_) {
      for (const auto& t : by_page) tables += EncodePieceSlice(t);
    }
    base.extra[kHeaderChecksumKey] = std::string(16, '0');
  }
  // The piece tables end the header area; the JSON must end before them
  // (otherwise they are left out: readers then check whole pages).
  const uint64_t tables_at = header_size_ - std::min<uint64_t>(tables.size(), header_size_);
  base.extra.erase(kPieceTableKey);  // an appended shard's old tables
  if (!tables.empty() && tables.size() < header_size_) {
    base.extra[kPieceTableKey] = {{"piece_bytes", kPieceBytes}, {"offset", tables_at}, {"bytes", tables.size()}};
  }
  base.pages = pages_;
  base.shard_id = shard_id_;
  std::string json = base.Serialize();
  if (base.extra.contains(kPieceTableKey) && json.size() + kLengthPrefix > tables_at) {
    base.extra.erase(kPieceTableKey);
    json = base.Serialize();
  }
  SealHeaderChecksum(&json);
  if (json.size() + kLengthPrefix > header_size_) {
    return Status::InvalidArgument("the shard header needs " + std::to_string(json.size() + kLengthPrefix) +
                                   " bytes but header_size is " + std::to_string(header_size_) +
                                   "; raise header_size");
  }
  std::string head(kLengthPrefix, '\0');
  const uint64_t len = json.size();
  std::memcpy(head.data(), &len, 8);
  head += json;
  if (head.size() < old_header_bytes_) head.resize(old_header_bytes_, '\0');
  if (base.extra.contains(kPieceTableKey)) MR_RETURN_IF_ERROR(file_->WriteAt(tables_at, tables));
  MR_RETURN_IF_ERROR(file_->WriteAt(0, head));
  MR_RETURN_IF_ERROR(file_->Sync());
  MR_RETURN_IF_ERROR(file_->Close());
  if (index_queue_) MR_RETURN_IF_ERROR(index_queue_->Drain(index_.get()));
  MR_RETURN_IF_ERROR(index_->Finish());
  return fs_->SyncPath(index_->path());
}

}  // namespace mindrecord
