#include "readers/shard_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "mindrecord/encryption.h"
#include "mindrecord/piece_table.h"
#include "readers/header_io.h"
#include "readers/lock_dataset.h"
#include "readers/mapping_cache.h"
#include "readers/row_map_cache.h"
#include "readers/shard_paths.h"
#include "readers/shard_reader_impl.h"

namespace mindrecord {

namespace {
// Pages verified without their bytes in hand are read this much at a time.
constexpr uint64_t kVerifyChunk = 1 << 20;
// A piece walked as it is hashed goes on to the walk this much at a time:
// hashed just before, the step is still in L1 (48 KiB here).
constexpr uint64_t kHandOnStep = 16 << 10;
}  // namespace

bool Projection::Selects(int field_id) const {
  return std::binary_search(field_ids.begin(), field_ids.end(), field_id);
}

using reader_internal::Framed;
using reader_internal::Shard;

Result<std::string_view> reader_internal::Framed(const Shard& s, std::string_view bytes, uint64_t off,
                                                 const char* part, uint64_t row) {
  const uint64_t n = bytes.size();
  uint64_t len;
  std::memcpy(&len, bytes.data(), 8);
  if (len != n - kLengthPrefix) {
    return Status::Corruption(s.path + ": row " + std::to_string(row) + ": " + part + " part at offset " +
                              std::to_string(off) + " has length " + std::to_string(len) + ", expected " +
                              std::to_string(n - kLengthPrefix));
  }
  return bytes.substr(kLengthPrefix);
}

Status ShardReader::Impl::EnsureWalked(const Shard& s, size_t g, RowMap::Part part, const PageBytes& held) const {
  if (s.rows->Walked(g, part)) return Status::OK();
  const uint32_t page = s.rows->GroupPage(g, part);
  // The checksum first: a damaged page is reported as such, not as a bad
  // length. A page hashed now is walked from the pieces it is hashed from,
  // so its bytes are read once, not twice.
  std::optional<Status> walked;
  if (NeedsVerify(s, page)) {
    RowMap::PartWalk walk(*s.rows, g, part);
    Status fed;
    MR_RETURN_IF_ERROR(VerifyPage(s, page, nullptr, [&](uint64_t first, const char* data, uint64_t size) {
      if (fed.ok() && !walk.done()) fed = walk.Feed(first, data, size);
    }));
    if (!fed.ok() || walk.done()) walked = fed.ok() ? walk.Finish() : fed;
  }
  if (!walked) {
    MR_RETURN_IF_ERROR(VerifyPage(s, page));
    walked = s.rows->Walk(g, part, *s.file, held);
  }
  // (Not for remote shards: their .db is fetched for field queries only.)
  if (walked->ok() || walked->code() != StatusCode::kCorruption || s.remote || !s.index_exists) return *walked;
  // A damaged length prefix: where the index is there, it locates the group's
  // other rows, and only the damaged row fails (its prefix disagrees).
  auto index = IndexOf(s);
  if (!index.ok() || *index == nullptr) return *walked;
  const bool blob = part == RowMap::Part::kBlob;
  const uint64_t first = s.rows->group_first_row(g);
  auto locs = (*index)->LoadLocatorRange(first, s.rows->group_end_row(g) - first);
  if (!locs.ok()) return *walked;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const RowLocator& l : *locs) {
    if ((blob ? l.blob_page : l.raw_page) != page) return *walked;
    ranges.emplace_back(blob ? l.blob_begin : l.raw_begin, blob ? l.blob_end : l.raw_end);
  }
  if (!s.rows->Adopt(g, part, ranges, (*index)->path()).ok()) return *walked;
  UnshareRowMap(s.rows.get());  // offsets from this reader's index: not for readers opened later
  return Status::OK();
}

Result<const IndexReader*> ShardReader::Impl::IndexOf(const Shard& s) const {
  std::lock_guard<std::mutex> lock(s.index_mu);
  if (s.index || s.index_fetched) return s.index.get();
  const std::string db = s.path + kIndexSuffix;
  auto& slot = const_cast<std::unique_ptr<IndexReader>&>(s.index);
  if (!s.remote) {
    // Opened at the first query, not at open: SQLite's open and schema read
    // are most of a reader's open time, and reading rows does not need them.
    if (!s.index_exists) {
      s.index_fetched = true;
      return static_cast<const IndexReader*>(nullptr);
    }
    MR_ASSIGN_OR_RETURN(std::optional<std::string> image, ReadProtectedIndex(fs, db, CurrentCryptoConfig()));
    if (image) {
      MR_ASSIGN_OR_RETURN(slot, IndexReader::OpenImage(db, *image, RecordedShardName(s.header),
                                                       s.header.version == kVersion2));
    } else {
      MR_ASSIGN_OR_RETURN(slot, IndexReader::Open(db, RecordedShardName(s.header), s.header.version == kVersion2));
    }
    s.index_fetched = true;
    return s.index.get();
  }
  auto image = ReadProtectedIndex(remote_fs.get(), db, CurrentCryptoConfig());
  if (!image.ok() && image.status().code() == StatusCode::kNotFound) {
    s.index_fetched = true;
    return static_cast<const IndexReader*>(nullptr);
  }
  MR_RETURN_IF_ERROR(image.status());
  std::string bytes;
  if (*image) {
    bytes = std::move(**image);
  } else {
    MR_ASSIGN_OR_RETURN(bytes, ReadWholeRemote(db, options.remote));
  }
  MR_ASSIGN_OR_RETURN(auto index, IndexReader::OpenImage(db, bytes, RecordedShardName(s.header),
                                                         s.header.version == kVersion2));
  slot = std::move(index);
  s.index_fetched = true;
  return s.index.get();
}

bool ShardReader::Impl::LocateByPieces(const Shard& s, uint64_t local, bool want_raw, bool want_blob,
                                       CompactLocator* out) const {
  if (!s.pieces) return false;
  const size_t g = s.rows->GroupOf(local);
  const uint64_t i = local - s.rows->group_first_row(g);
  const uint32_t blob_page = s.rows->GroupPage(g, RowMap::Part::kBlob);
  // (A piece walked already needs no check here: its rows' reads check it.)
  auto locate = [&](uint32_t page, uint64_t row, uint32_t* begin, uint32_t* end) {
    return s.pieces->Known(page, row, begin, end) ||
           s.pieces->Locate(page, row, *s.file, !PageChecked(s, page), begin, end).ok();
  };
  if (want_blob) {
    if (!locate(blob_page, i, &out->blob_begin, &out->blob_end)) return false;
    out->blob_page = blob_page;
  }
  if (want_raw) {
    const uint32_t raw_page = s.rows->GroupPage(g, RowMap::Part::kRaw);
    if (!locate(raw_page, s.rows->GroupRawBase(g) + i, &out->raw_begin, &out->raw_end) ||
        out->raw_begin < s.rows->GroupBegin(g, RowMap::Part::kRaw) ||
        out->raw_end > s.rows->GroupEnd(g, RowMap::Part::kRaw)) {
      return false;
    }
    out->raw_page = raw_page;
  }
  return true;
}

Status ShardReader::Impl::LocateRow(const Shard& s, uint64_t local, bool want_raw, bool want_blob,
                                    CompactLocator* out) const {
  // A table or piece that does not give the row falls back to walking its
  // row group, which reports what is wrong.
  if (LocateByPieces(s, local, want_raw, want_blob, out)) return Status::OK();
  const size_t g = s.rows->GroupOf(local);
  if (want_raw) MR_RETURN_IF_ERROR(EnsureWalked(s, g, RowMap::Part::kRaw));
  if (want_blob) MR_RETURN_IF_ERROR(EnsureWalked(s, g, RowMap::Part::kBlob));
  s.rows->Fill(g, local, want_raw, want_blob, out);
  return Status::OK();
}

bool ShardReader::Impl::NeedsVerify(const Shard& s, uint64_t page) const {
  if (s.page_state[page].load(std::memory_order_acquire) == 1 || !options.verify_checksums) return false;
  auto it = s.header.pages[page].extra.find(kPageChecksumKey);
  return it != s.header.pages[page].extra.end() && it->is_string();
}

bool ShardReader::Impl::PageChecked(const Shard& s, uint32_t page) const {
  uint8_t state = s.page_state[page].load(std::memory_order_acquire);
  if (state == 0 && s.pieces) {
    // A page an earlier reader (or process) checked whole, by pieces or at
    // once, is not checked again (readers/verified_pages.h); asked once per
    // page (state 3: it was not).
    auto it = s.header.pages[page].extra.find(kPageChecksumKey);
    const bool before = it != s.header.pages[page].extra.end() && it->is_string() &&
                        PageVerifiedBefore(s.identity, page, it->get_ref<const std::string&>());
    // (A thread that checked the page meanwhile has set 1: kept.)
    uint8_t expected = 0;
    state = before ? 1 : 3;
    if (!s.page_state[page].compare_exchange_strong(expected, state, std::memory_order_acq_rel)) state = expected;
  }
  return state == 1 || !options.verify_checksums;
}

Status ShardReader::Impl::VerifyRange(const Shard& s, uint32_t page, uint64_t begin, uint64_t end) const {
  if (PageChecked(s, page)) return Status::OK();
  if (s.pieces) {
    bool whole = false;
    if (s.pieces->Verify(page, begin, end, *s.file, &whole).ok()) {
      if (whole) {
        auto it = s.header.pages[page].extra.find(kPageChecksumKey);
        if (it != s.header.pages[page].extra.end() && it->is_string()) {
          RememberVerifiedPage(s.path, s.identity, page, it->get_ref<const std::string&>());
        }
        s.page_state[page].store(1, std::memory_order_release);
      }
      return Status::OK();
    }
  }
  return VerifyPage(s, page);
}

Status ShardReader::Impl::VerifyPage(const Shard& s, uint64_t page, const char* data,
                                     const PieceSink& each_piece) const {
  uint8_t state = s.page_state[page].load(std::memory_order_acquire);
  if (state == 1) return Status::OK();
  const PageInfo& p = s.header.pages[page];
  const uint64_t off = s.header.PageOffset(page);
  auto mismatch = [&](const std::string& stored, const std::string& computed) {
    return Status::Corruption(s.path + ": page " + std::to_string(page) + " (offset " + std::to_string(off) + ", " +
                              std::to_string(p.used_bytes) + " bytes) checksum mismatch: stored " + stored +
                              ", computed " + computed);
  };
  auto it = p.extra.find(kPageChecksumKey);
  if (!options.verify_checksums || it == p.extra.end() || !it->is_string()) {
    s.page_state[page].store(1, std::memory_order_release);
    return Status::OK();
  }
  if (PageVerifiedBefore(s.identity, page, it->get<std::string>())) {
    s.page_state[page].store(1, std::memory_order_release);
    return Status::OK();
  }
  // A page hashed through the mapping for a row read (not bytes the caller
  // holds, as a scan's) is let go of as it is hashed: one row read must not
  // leave its whole page in this process's resident memory (open + one row of
  // a 1M-row shard: 57 MB, against 9 MB by pread). The page cache keeps the
  // bytes, in the folios the mapping brought them in as.
  const bool release = data == nullptr && s.file->MappedData() != nullptr;
  if (release) data = s.file->MappedData() + off;
  std::string computed;
  if (data != nullptr && !each_piece && !release) {
    computed = ChecksumHex(Xxh3(std::string_view(data, p.used_bytes)));
  } else {
    // In pieces: a random row's first touch of a page read here costs
    // kVerifyChunk of memory, not the page, and each piece is handed on
    // while it is in the cache.
    Xxh3Stream hash;
    std::string buf;
    for (uint64_t done = 0; done < p.used_bytes; done += kVerifyChunk) {
      const uint64_t n = std::min(p.used_bytes - done, kVerifyChunk);
      const char* piece = data != nullptr ? data + done : nullptr;
      if (piece == nullptr) {
        buf.resize(n);
        MR_RETURN_IF_ERROR(s.file->ReadAt(off + done, n, buf.data()));
        piece = buf.data();
      }
      // Handed on a step at a time, each just after it is hashed, so the
      // walk's dependent loads find the step's lines in L1, not L2.
      const uint64_t step = each_piece ? kHandOnStep : n;
      for (uint64_t at = 0; at < n; at += step) {
        const uint64_t m = std::min(n - at, step);
        hash.Update(std::string_view(piece + at, m));
        if (each_piece) each_piece(done + at, piece + at, m);
      }
      if (release) s.file->ReleaseMapped(off + done, n);
    }
    computed = ChecksumHex(hash.Digest());
  }
  if (computed != it->get<std::string>()) {
    s.page_state[page].store(2, std::memory_order_release);
    return mismatch(it->get<std::string>(), computed);
  }
  RememberVerifiedPage(s.path, s.identity, page, it->get<std::string>());
  s.page_state[page].store(1, std::memory_order_release);
  return Status::OK();
}


Result<std::string_view> ShardReader::Impl::Fetch(const Shard& s, uint64_t page, uint64_t begin, uint64_t end,
                                                  std::string* scratch, const char* part, uint64_t row) const {
  MR_RETURN_IF_ERROR(VerifyRange(s, static_cast<uint32_t>(page), begin, end));
  const uint64_t off = s.header.PageOffset(page) + begin;
  const uint64_t n = end - begin;
  const char* p;
  if (const char* map = s.file->MappedData()) {
    p = map + off;
  } else {
    scratch->resize(n);
    MR_RETURN_IF_ERROR(s.file->ReadAt(off, n, scratch->data()));
    p = scratch->data();
  }
  return Framed(s, std::string_view(p, n), off, part, row);
}

Result<std::string_view> ShardReader::Impl::FetchRaw(const Shard& s, const CompactLocator& l, uint64_t row,
                                                     std::string* scratch) const {
  if (s.raw_groups) {
    const size_t g = s.rows->GroupOf(row);
    const uint64_t begin = s.rows->GroupBegin(g, RowMap::Part::kRaw), end = s.rows->GroupEnd(g, RowMap::Part::kRaw);
    const std::string* group = s.raw_groups->Get(g);
    if (group == nullptr && s.raw_groups->CountRead(g, end - begin)) {
      MR_RETURN_IF_ERROR(VerifyPage(s, l.raw_page));
      std::string bytes(end - begin, '\0');
      // A failed read (the file shrank since it was opened, an I/O error)
      // keeps nothing: the row is read on its own below, and fails alone.
      if (s.file->ReadAt(s.header.PageOffset(l.raw_page) + begin, bytes.size(), bytes.data()).ok()) {
        group = s.raw_groups->Put(g, std::move(bytes));
      }
    }
    // The walk keeps every row inside its group's range; a row outside it
    // (never) is read on its own.
    if (group != nullptr && l.raw_begin >= begin && l.raw_end <= end && l.raw_begin <= l.raw_end) {
      return Framed(s, std::string_view(*group).substr(l.raw_begin - begin, l.raw_end - l.raw_begin),
                    s.header.PageOffset(l.raw_page) + l.raw_begin, "raw", row);
    }
  }
  return Fetch(s, l.raw_page, l.raw_begin, l.raw_end, scratch, "raw", row);
}

Status ShardReader::Impl::FetchParts(const Shard& s, const CompactLocator& l, uint64_t row, bool want_raw,
                                     bool want_blob, RowParts* out) const {
  if (s.direct && want_raw && want_blob) {
    MR_RETURN_IF_ERROR(VerifyPage(s, l.raw_page));
    MR_RETURN_IF_ERROR(VerifyPage(s, l.blob_page));
    const uint64_t raw_off = s.header.PageOffset(l.raw_page) + l.raw_begin;
    const uint64_t blob_off = s.header.PageOffset(l.blob_page) + l.blob_begin;
    AioReadStream stream(*s.direct, AioContextPool::Shared(options.direct_queue_depth), UINT64_MAX);
    stream.Add(raw_off, l.raw_end - l.raw_begin);
    stream.Add(blob_off, l.blob_end - l.blob_begin);
    MR_ASSIGN_OR_RETURN(out->raw_block, stream.Next());
    MR_ASSIGN_OR_RETURN(out->blob_block, stream.Next());
    MR_ASSIGN_OR_RETURN(out->raw, Framed(s, out->raw_block.view(), raw_off, "raw", row));
    MR_ASSIGN_OR_RETURN(out->blob, Framed(s, out->blob_block.view(), blob_off, "blob", row));
    return Status::OK();
  }
  if (want_raw) {
    MR_ASSIGN_OR_RETURN(out->raw, FetchRaw(s, l, row, &out->raw_buf));
  }
  if (want_blob) {
    MR_ASSIGN_OR_RETURN(out->blob, Fetch(s, l.blob_page, l.blob_begin, l.blob_end, &out->blob_buf, "blob", row));
  }
  return Status::OK();
}

// Empty: all fields.
std::vector<bool> ShardReader::Impl::Select(const Projection* proj) const {
  std::vector<bool> select;
  if (proj) {
    select.assign(first().schema.fields().size(), false);
    for (int id : proj->field_ids) select[id] = true;
  }
  return select;
}

Status ShardReader::Impl::Decode(const Shard& s, uint64_t local, std::string_view raw, std::string_view blob,
                                 const Projection* proj, const std::vector<bool>& select, Row* out) const {
  Status st = Status::OK();
  std::string raw_plain;
  if (!proj || proj->need_raw) {
    Result<std::string_view> msgpack = PlainRawPart(decompressor.get(), raw, &raw_plain);
    st = msgpack.ok() ? codec->DecodeRaw(*msgpack, select, out) : msgpack.status();
  }
  if (st.ok() && (!proj || proj->need_blob)) {
    // Decompression runs here, on the thread that reads the row (the
    // pipeline's workers), one row at a time.
    std::string plain;
    if (decompressor) {
      st = decompressor->DecompressBlob(*codec, blob, &plain);
      blob = plain;
    }
    if (st.ok()) st = codec->DecodeBlob(blob, select, out);
  }
  if (!st.ok()) return st.WithContext(s.path + ": row " + std::to_string(local));
  return Status::OK();
}

namespace {

Result<std::unique_ptr<RandomAccessFile>> OpenPlainShardFile(FileSystem* fs, const std::string& path,
                                                             const ReaderOptions& o) {
  if (o.io_mode != IoMode::kDirect) return fs->OpenRead(path, o.io_mode == IoMode::kMmap);
  auto f = fs->OpenDirect(path);
  if (f.ok() || f.status().code() != StatusCode::kNotSupported || !o.direct_fallback) return f;
  return fs->OpenRead(path, false);
}

// The shard's contents: decrypted by range and digest-checked as MindSpore's
// set_enc_key / set_hash_mode settings ask (mindrecord/encryption.h).
Result<std::unique_ptr<RandomAccessFile>> OpenShardFile(FileSystem* fs, const std::string& path,
                                                        const ReaderOptions& o) {
  MR_ASSIGN_OR_RETURN(auto f, OpenPlainShardFile(fs, path, o));
  return OpenProtectedFile(std::move(f), CurrentCryptoConfig());
}

}  // namespace

Result<std::unique_ptr<ShardReader>> ShardReader::Open(const std::string& path, const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (options.io_mode != IoMode::kPread && options.io_mode != IoMode::kMmap && options.io_mode != IoMode::kDirect &&
      options.io_mode != IoMode::kAuto) {
    return Status::InvalidArgument(path + ": io_mode " + std::to_string(static_cast<int>(options.io_mode)) +
                                   " is not one of pread, mmap, direct, auto");
  }
  if (options.io_mode == IoMode::kAuto && options.auto_cached_mode != IoMode::kPread &&
      options.auto_cached_mode != IoMode::kMmap) {
    return Status::InvalidArgument(path + ": auto_cached_mode must be pread or mmap, got " +
                                   IoModeName(options.auto_cached_mode));
  }
  if (options.direct_queue_depth == 0 || options.direct_rows_in_flight == 0) {
    return Status::InvalidArgument(path + ": direct_queue_depth and direct_rows_in_flight must be >= 1");
  }
  // kAuto opens every shard for pread (headers give the shard list), then
  // reopens them in the mode the total size picks.
  ReaderOptions open_opts = options;
  if (options.io_mode == IoMode::kAuto) open_opts.io_mode = IoMode::kPread;
  FileSystem* fs = options.file_system ? options.file_system : FileSystem::Default();
  impl->fs = fs;
  // A dataset named by URL is read by ranges over HTTP (readers/remote_file.h):
  // no lock, no recovery (object storage is read-only), no mapping.
  MR_ASSIGN_OR_RETURN(const bool remote, reader_internal::CheckRemoteOptions(path, options));
  if (remote) {
    impl->remote_fs = std::make_unique<RemoteFileSystem>(options.remote);
    fs = impl->remote_fs.get();
    impl->fs = fs;
    open_opts.io_mode = IoMode::kPread;
  }
  // Held while headers and indexes are opened: no append may be half done.
  std::unique_ptr<DatasetLock> lock;
  if (!remote) {
    MR_ASSIGN_OR_RETURN(lock, LockDatasetAt(options.shard_paths.empty() ? path : options.shard_paths[0],
                                            DatasetLock::Mode::kShared, fs));
  }
  MR_ASSIGN_OR_RETURN(auto first_file, OpenShardFile(fs, path, open_opts));
  const bool verify = options.verify_checksums;
  MR_ASSIGN_OR_RETURN(ShardHeader first, reader_internal::ReadHeaderOf(*first_file, verify, options.remote.retries));
  const bool listed = !options.shard_paths.empty();
  if (listed) {
    impl->paths = options.shard_paths;
    std::vector<std::string> sorted = impl->paths;
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) return Status::InvalidArgument(*dup + ": listed twice in the file list");
  } else {
    MR_ASSIGN_OR_RETURN(impl->paths, ShardPathsFor(path, first));
  }
  for (uint32_t i = 0; i < impl->paths.size(); ++i) {
    auto s = std::make_unique<Shard>();
    s->path = impl->paths[i];
    if (listed ? i == 0 : i == first.shard_id && BaseName(s->path) == BaseName(path)) {
      s->file = std::move(first_file);
      s->header = first;
    } else {
      auto f = OpenShardFile(fs, s->path, open_opts);
      if (!f.ok()) {
        if (f.status().code() == StatusCode::kNotFound) {
          return Status::NotFound(s->path + ": shard " + std::to_string(i) + " of " + path +
                                  " is missing (listed in shard_addresses): it can not be found. Please check whether the "
                                  "mindrecord file exists and do not rename the mindrecord file.");
        }
        return f.status();
      }
      s->file = std::move(f).value();
      MR_ASSIGN_OR_RETURN(s->header, reader_internal::ReadHeaderOf(*s->file, verify, options.remote.retries));
    }
    if (!listed && s->header.shard_id != i) {
      return Status::Corruption(s->path + ": header says shard_id " + std::to_string(s->header.shard_id) +
                                ", expected " + std::to_string(i));
    }
    if (i > 0) {
      MR_RETURN_IF_ERROR(CheckShardsAgree(impl->shards[0]->header, s->header, impl->shards[0]->path, s->path, !listed));
    }
    const std::string db = s->path + kIndexSuffix;
    if (remote) {
      // Rows are read without the index: a remote .db is fetched only by
      // the first field query (IndexOf). The pieces follow the pages.
      s->remote = dynamic_cast<RemoteFile*>(s->file.get());
      if (s->remote) s->remote->SetLayout(s->header, verify);
    } else if (fs->Exists(db)) {
      s->index_exists = true;  // opened by the first field query (IndexOf)
    } else {
      // Rows are located from the pages; only field queries need the index.
      impl->warnings.push_back(db + ": index file of shard " + s->path +
                               " is missing; rows are read from the shard's pages, but field queries (MindPage, "
                               "PK sampler, verify) need it (rebuild it with `mindrecord index rebuild`)");
    }
    s->page_state.reset(new std::atomic<uint8_t>[s->header.pages.size()]());
    if (options.file_system == nullptr && !remote) {
      s->identity = IdentityOf(s->path);
      if (s->identity.size != s->file->size()) s->identity = FileIdentity{};  // replaced meanwhile: no caching
    }
    MR_ASSIGN_OR_RETURN(s->rows, SharedRowMap(s->path, s->identity, s->header));
    if (!remote) {
      s->pieces = s->rows->pieces();
      if (!s->pieces && s->header.extra.contains(kPieceTableKey)) {
        impl->warnings.push_back(s->path + ": its piece tables do not match its header (left by an older version's "
                                 "append?) and are not used; rows are checked and located by whole pages "
                                 "(`mindrecord verify` reports the tables)");
      }
    }
    s->first_row = impl->total_rows;
    impl->total_rows += s->header.num_rows();
    impl->shards.push_back(std::move(s));
  }
  for (const auto& s : impl->shards) impl->total_file_bytes += s->file->size();
  // The bytes of the page cache a dataset may fill (read once, when needed).
  uint64_t memory_limit = 0;
  auto fits_in_memory = [&] {
    if (memory_limit == 0) memory_limit = options.auto_direct_above ? options.auto_direct_above : AvailableMemoryBytes();
    return impl->total_file_bytes <= memory_limit;
  };
  if (options.io_mode == IoMode::kAuto && !remote) {
    ReaderOptions chosen = options;
    chosen.io_mode = fits_in_memory() ? options.auto_cached_mode : IoMode::kDirect;
    chosen.direct_fallback = true;
    if (chosen.io_mode != IoMode::kPread) {
      for (auto& s : impl->shards) {
        MR_ASSIGN_OR_RETURN(s->file, OpenShardFile(fs, s->path, chosen));
      }
    }
  }
  DropStaleMappings();
  std::shared_ptr<std::atomic<uint64_t>> raw_budget;  // the shards' RawGroupCaches share it
  for (auto& s : impl->shards) {
    // A mapping of the same unchanged file that another reader made lately
    // is reused with its page tables (readers/mapping_cache.h).
    if (s->file->MappedData()) s->file = SharedMapping(s->path, s->identity, std::move(s->file));
    // Shards that fit in memory are read in as 2 MiB folios: every later
    // mapping of the file (a new process, a DataLoader worker) then faults
    // once per 2 MiB rather than once per 64 KiB. A dataset larger than
    // memory keeps the small read-around: 2 MiB per random fault would read
    // far more than the rows.
    if (s->file->MappedData() && fits_in_memory()) s->file->AdviseHugePages();
    s->direct = dynamic_cast<const DirectFile*>(s->file.get());
    s->io_mode = s->direct ? IoMode::kDirect : s->file->MappedData() ? IoMode::kMmap : IoMode::kPread;
    if (s->io_mode == IoMode::kMmap) {
      s->mapping = s->file;
      s->mapped_bytes = std::string_view(s->file->MappedData(), s->file->size());
    }
    if (s->io_mode == IoMode::kPread && !s->remote && options.raw_group_cache_bytes > 0) {
      if (!raw_budget) raw_budget = std::make_shared<std::atomic<uint64_t>>(options.raw_group_cache_bytes);
      s->raw_groups = std::make_unique<RawGroupCache>(s->rows->num_groups(), raw_budget);
    }
  }
  const ShardHeader& h0 = impl->shards[0]->header;
  impl->codec = std::make_unique<RowCodec>(&h0.schema, BaseVersion(h0.version));
  MR_ASSIGN_OR_RETURN(impl->decompressor, BlobDecompressor::FromHeader(h0, impl->shards[0]->path));
  return std::unique_ptr<ShardReader>(new ShardReader(std::move(impl)));
}

ShardReader::ShardReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ShardReader::~ShardReader() = default;

const Schema& ShardReader::schema() const { return impl_->first().schema; }
const std::string& ShardReader::version() const { return impl_->first().version; }
uint64_t ShardReader::num_rows() const { return impl_->total_rows; }
uint32_t ShardReader::num_shards() const { return static_cast<uint32_t>(impl_->shards.size()); }
uint64_t ShardReader::shard_num_rows(uint32_t s) const { return impl_->shards.at(s)->header.num_rows(); }
uint64_t ShardReader::shard_first_row(uint32_t s) const { return impl_->shards.at(s)->first_row; }
const std::vector<std::string>& ShardReader::shard_paths() const { return impl_->paths; }
uint64_t ShardReader::header_size() const { return impl_->first().header_size; }
uint64_t ShardReader::page_size() const { return impl_->first().page_size; }
const std::vector<std::string>& ShardReader::index_fields() const { return impl_->first().index_fields; }
const ShardHeader& ShardReader::header(uint32_t s) const { return impl_->shards.at(s)->header; }
IoMode ShardReader::shard_io_mode(uint32_t s) const { return impl_->shards.at(s)->io_mode; }
uint64_t ShardReader::total_file_bytes() const { return impl_->total_file_bytes; }
const std::vector<std::string>& ShardReader::warnings() const { return impl_->warnings; }
bool ShardReader::has_index(uint32_t s) const {
  const Shard& shard = *impl_->shards.at(s);
  if (!shard.remote) return shard.index_exists;
  std::lock_guard<std::mutex> lock(shard.index_mu);
  return shard.index != nullptr;
}
uint64_t ShardReader::locator_bytes() const {
  uint64_t n = 0;
  for (const auto& s : impl_->shards) n += s->rows->MemoryBytes();
  return n;
}

uint64_t ShardReader::raw_group_bytes() const {
  uint64_t n = 0;
  for (const auto& s : impl_->shards) n += s->raw_groups ? s->raw_groups->MemoryBytes() : 0;
  return n;
}

Result<Projection> ShardReader::MakeProjection(const std::vector<std::string>& columns) const {
  const Schema& sc = schema();
  Projection p;
  if (columns.empty()) {
    for (size_t i = 0; i < sc.fields().size(); ++i) p.field_ids.push_back(static_cast<int>(i));
  } else {
    for (const auto& c : columns) {
      int id = sc.FieldIndex(c);
      if (id < 0) return Status::InvalidArgument("column '" + c + "' is not in the schema");
      p.field_ids.push_back(id);
    }
    std::sort(p.field_ids.begin(), p.field_ids.end());
    p.field_ids.erase(std::unique(p.field_ids.begin(), p.field_ids.end()), p.field_ids.end());
  }
  for (int id : p.field_ids) (sc.fields()[id].is_blob() ? p.need_blob : p.need_raw) = true;
  return p;
}

Result<ShardReader::Location> ShardReader::Locate(uint64_t row_id) const {
  if (row_id >= impl_->total_rows) {
    return Status::InvalidArgument("row id " + std::to_string(row_id) + " is out of range (the dataset has " +
                                   std::to_string(impl_->total_rows) + " rows)");
  }
  const auto& sh = impl_->shards;
  auto it = std::upper_bound(sh.begin(), sh.end(), row_id,
                             [](uint64_t r, const std::unique_ptr<Shard>& s) { return r < s->first_row; });
  // Skip empty shards that share a first_row with their successor.
  size_t idx = static_cast<size_t>(it - sh.begin()) - 1;
  return Location{static_cast<uint32_t>(idx), row_id - sh[idx]->first_row};
}

Result<uint64_t> ShardReader::StoredBytes(uint64_t row_id, const Projection* projection) const {
  MR_ASSIGN_OR_RETURN(Location loc, Locate(row_id));
  const bool want_raw = !projection || projection->need_raw;
  const bool want_blob = !projection || projection->need_blob;
  CompactLocator l{};
  MR_RETURN_IF_ERROR(impl_->LocateRow(*impl_->shards[loc.shard], loc.local_row, want_raw, want_blob, &l));
  return (want_raw ? l.raw_end - l.raw_begin : 0) + (want_blob ? l.blob_end - l.blob_begin : 0);
}

Result<Row> ShardReader::ReadRow(uint64_t row_id, const Projection* projection) const {
  return ReadOne(row_id, projection, impl_->Select(projection));
}

Result<Row> ShardReader::ReadOne(uint64_t row_id, const Projection* projection,
                                 const std::vector<bool>& select) const {
  MR_ASSIGN_OR_RETURN(Location loc, Locate(row_id));
  const Shard& s = *impl_->shards[loc.shard];
  const bool want_raw = !projection || projection->need_raw;
  const bool want_blob = !projection || projection->need_blob;
  CompactLocator l{};
  MR_RETURN_IF_ERROR(impl_->LocateRow(s, loc.local_row, want_raw, want_blob, &l));
  Impl::RowParts parts;
  MR_RETURN_IF_ERROR(impl_->FetchParts(s, l, loc.local_row, want_raw, want_blob, &parts));
  Row row;
  MR_RETURN_IF_ERROR(impl_->Decode(s, loc.local_row, parts.raw, parts.blob, projection, select, &row));
  return row;
}

Result<EncodedRow> ShardReader::ReadEncoded(uint64_t row_id) const {
  MR_ASSIGN_OR_RETURN(Location loc, Locate(row_id));
  const Shard& s = *impl_->shards[loc.shard];
  CompactLocator l{};
  MR_RETURN_IF_ERROR(impl_->LocateRow(s, loc.local_row, true, true, &l));
  Impl::RowParts parts;
  MR_RETURN_IF_ERROR(impl_->FetchParts(s, l, loc.local_row, true, true, &parts));
  std::string_view raw = parts.raw;
  std::string_view blob = parts.blob;
  EncodedRow out;
  Result<std::string_view> msgpack = PlainRawPart(impl_->decompressor.get(), raw, &out.raw);
  if (!msgpack.ok()) return msgpack.status().WithContext(s.path + ": row " + std::to_string(loc.local_row));
  if (msgpack->data() != out.raw.data()) out.raw.assign(*msgpack);
  raw = out.raw;
  if (impl_->decompressor) {
    Status st = impl_->decompressor->DecompressBlob(*impl_->codec, blob, &out.blob);
    if (!st.ok()) return st.WithContext(s.path + ": row " + std::to_string(loc.local_row));
    blob = out.blob;
  } else {
    out.blob.assign(blob);
  }
  out.packing_saved = impl_->codec->PackingSaved(blob);
  Status st = impl_->codec->DecodeRawFields(raw, index_fields(), &out.index_values);
  if (!st.ok()) return st.WithContext(s.path + ": row " + std::to_string(loc.local_row));
  return out;
}

Result<std::vector<std::pair<Value, std::vector<uint64_t>>>> ShardReader::GroupByIndexField(
    const std::string& field) const {
  const auto& idx = index_fields();
  if (std::find(idx.begin(), idx.end(), field) == idx.end()) {
    return Status::InvalidArgument("'" + field + "' is not an index field of this dataset");
  }
  std::map<Value, std::vector<uint64_t>, ValueLess> merged;
  for (const auto& s : impl_->shards) {
    MR_ASSIGN_OR_RETURN(const IndexReader* index, impl_->IndexOf(*s));
    if (!index) {
      return Status::NotFound(s->path + ".db: index file of shard " + s->path + " is missing; querying index field '" +
                              field + "' needs it (rebuild it with `mindrecord index rebuild`)");
    }
    auto groups = index->GroupBy(field, schema(), s->header.num_rows());
    if (!groups.ok()) return groups.status();
    for (auto& [v, rows] : *groups) {
      auto& dst = merged[v];
      for (uint64_t r : rows) dst.push_back(r + s->first_row);
    }
  }
  std::vector<std::pair<Value, std::vector<uint64_t>>> out;
  for (auto& [v, rows] : merged) out.emplace_back(v, std::move(rows));
  return out;
}

}  // namespace mindrecord
