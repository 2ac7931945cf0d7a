#include "readers/shard_reader.h"
#include "readers/shard_paths.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include "index/index_reader.h"
#include "readers/header_io.h"
#include "readers/row_map.h"
#include "readers/row_map_cache.h"
#include "mindrecord/checksum.h"
#include "readers/verified_pages.h"
#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/direct_file.h"
#include "mindrecord/encryption.h"
#include "mindrecord/file.h"
#include "mindrecord/row_codec.h"
#include "readers/lock_dataset.h"

namespace mindrecord {

namespace {
// Pages verified without their bytes in hand are read this much at a time.
constexpr uint64_t kVerifyChunk = 1 << 20;
}  // namespace

bool Projection::Selects(int field_id) const {
  return std::binary_search(field_ids.begin(), field_ids.end(), field_id);
}

namespace {

struct Shard {
  std::string path;
  std::unique_ptr<RandomAccessFile> file;
  const DirectFile* direct = nullptr;  // `file`, when it is read with O_DIRECT
  IoMode io_mode = IoMode::kPread;
  ShardHeader header;
  std::unique_ptr<IndexReader> index;  // null when the .db is missing
  uint64_t first_row = 0;
  // Per page: 0 not yet checked, 1 checksum good (or none), 2 mismatch.
  std::unique_ptr<std::atomic<uint8_t>[]> page_state;
  // Row locations from the pages themselves, walked lazily per row group;
  // shared with other readers of the same unchanged file (row_map_cache.h).
  std::shared_ptr<RowMap> rows;
  // The file's identity at open, for pages verified by earlier readers
  // (readers/verified_pages.h); invalid with a custom file system.
  FileIdentity identity;
};

}  // namespace

struct ShardReader::Impl {
  ReaderOptions options;
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<std::string> paths;
  std::unique_ptr<RowCodec> codec;
  std::unique_ptr<BlobDecompressor> decompressor;  // null: blobs stored uncompressed
  uint64_t total_rows = 0;
  uint64_t total_file_bytes = 0;

  std::vector<std::string> warnings;

  const ShardHeader& first() const { return shards[0]->header; }
  // Walks group `g`'s part if not yet done, after verifying its page; `held`:
  // bytes of the page the caller has read (and verified) already.
  Status EnsureWalked(const Shard& s, size_t g, RowMap::Part part, const PageBytes& held = {}) const;
  // The wanted parts of shard-local row `local`.
  Status LocateRow(const Shard& s, uint64_t local, bool want_raw, bool want_blob, CompactLocator* out) const;
  // `data`: the page's bytes when the caller has them; otherwise they are read.
  Status VerifyPage(const Shard& s, uint64_t page, const char* data = nullptr) const;
  // Whether VerifyPage would read the page (not yet verified, has a checksum).
  bool NeedsVerify(const Shard& s, uint64_t page) const;
  Result<std::string_view> Fetch(const Shard& s, uint64_t page, uint64_t begin, uint64_t end,
                                 std::string* scratch, const char* part, uint64_t row) const;
  // One row's parts (`raw`, `blob` when wanted) and the buffers behind them.
  struct RowParts {
    std::string raw_buf, blob_buf;
    AioReadStream::Block raw_block, blob_block;
    std::string_view raw, blob;
  };
  // A direct shard reads both parts at once through libaio (two reads in
  // flight instead of one after the other).
  Status FetchParts(const Shard& s, const CompactLocator& l, uint64_t row, bool want_raw, bool want_blob,
                    RowParts* out) const;
  std::vector<bool> Select(const Projection* proj) const;
  Status Decode(const Shard& s, uint64_t local, std::string_view raw, std::string_view blob,
                const Projection* proj, const std::vector<bool>& select, Row* out) const;
};

Status ShardReader::Impl::EnsureWalked(const Shard& s, size_t g, RowMap::Part part, const PageBytes& held) const {
  if (s.rows->Walked(g, part)) return Status::OK();
  const uint32_t page = s.rows->GroupPage(g, part);
  // The checksum first: a damaged page is reported as such, not as a bad length.
  MR_RETURN_IF_ERROR(VerifyPage(s, page));
  Status walked = s.rows->Walk(g, part, *s.file, held);
  if (walked.ok() || walked.code() != StatusCode::kCorruption || !s.index) return walked;
  // A damaged length prefix: where the index is there, it locates the group's
  // other rows, and only the damaged row fails (its prefix disagrees).
  const bool blob = part == RowMap::Part::kBlob;
  const uint64_t first = s.rows->group_first_row(g);
  auto locs = s.index->LoadLocatorRange(first, s.rows->group_end_row(g) - first);
  if (!locs.ok()) return walked;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const RowLocator& l : *locs) {
    if ((blob ? l.blob_page : l.raw_page) != page) return walked;
    ranges.emplace_back(blob ? l.blob_begin : l.raw_begin, blob ? l.blob_end : l.raw_end);
  }
  if (!s.rows->Adopt(g, part, ranges, s.index->path()).ok()) return walked;
  UnshareRowMap(s.rows.get());  // offsets from this reader's index: not for readers opened later
  return Status::OK();
}

Status ShardReader::Impl::LocateRow(const Shard& s, uint64_t local, bool want_raw, bool want_blob,
                                    CompactLocator* out) const {
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

Status ShardReader::Impl::VerifyPage(const Shard& s, uint64_t page, const char* data) const {
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
  if (data == nullptr && s.file->MappedData() != nullptr) data = s.file->MappedData() + off;
  std::string computed;
  if (data != nullptr) {
    computed = ChecksumHex(Xxh3(std::string_view(data, p.used_bytes)));
  } else {
    // Read in pieces: a random row's first touch of a page costs kVerifyChunk
    // of memory, not the page.
    Xxh3Stream hash;
    std::string buf(std::min<uint64_t>(p.used_bytes, kVerifyChunk), '\0');
    for (uint64_t done = 0; done < p.used_bytes; done += buf.size()) {
      if (p.used_bytes - done < buf.size()) buf.resize(p.used_bytes - done);
      MR_RETURN_IF_ERROR(s.file->ReadAt(off + done, buf.size(), buf.data()));
      hash.Update(buf);
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

namespace {

// A row part's bytes without their length prefix, which must agree with the
// range walked.
Result<std::string_view> Framed(const Shard& s, std::string_view bytes, uint64_t off, const char* part,
                                uint64_t row) {
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

}  // namespace

Result<std::string_view> ShardReader::Impl::Fetch(const Shard& s, uint64_t page, uint64_t begin, uint64_t end,
                                                  std::string* scratch, const char* part, uint64_t row) const {
  MR_RETURN_IF_ERROR(VerifyPage(s, page));
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
    MR_ASSIGN_OR_RETURN(out->raw, Fetch(s, l.raw_page, l.raw_begin, l.raw_end, &out->raw_buf, "raw", row));
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
  // Held while headers and indexes are opened: no append may be half done.
  MR_ASSIGN_OR_RETURN(auto lock, LockDatasetAt(options.shard_paths.empty() ? path : options.shard_paths[0],
                                               DatasetLock::Mode::kShared, fs));
  MR_ASSIGN_OR_RETURN(auto first_file, OpenShardFile(fs, path, open_opts));
  const bool verify = options.verify_checksums;
  MR_ASSIGN_OR_RETURN(ShardHeader first, ReadShardHeader(*first_file, verify));
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
      MR_ASSIGN_OR_RETURN(s->header, ReadShardHeader(*s->file, verify));
    }
    if (!listed && s->header.shard_id != i) {
      return Status::Corruption(s->path + ": header says shard_id " + std::to_string(s->header.shard_id) +
                                ", expected " + std::to_string(i));
    }
    if (i > 0) {
      MR_RETURN_IF_ERROR(CheckShardsAgree(impl->shards[0]->header, s->header, impl->shards[0]->path, s->path, !listed));
    }
    const std::string db = s->path + ".db";
    if (fs->Exists(db)) {
      MR_ASSIGN_OR_RETURN(std::optional<std::string> image, ReadProtectedIndex(fs, db, CurrentCryptoConfig()));
      if (image) {
        MR_ASSIGN_OR_RETURN(s->index, IndexReader::OpenImage(db, *image, RecordedShardName(s->header),
                                                             s->header.version == kVersion2));
      } else {
        MR_ASSIGN_OR_RETURN(s->index,
                            IndexReader::Open(db, RecordedShardName(s->header), s->header.version == kVersion2));
      }
    } else {
      // Rows are located from the pages; only field queries need the index.
      impl->warnings.push_back(db + ": index file of shard " + s->path +
                               " is missing; rows are read from the shard's pages, but field queries (MindPage, "
                               "PK sampler, verify) need it (rebuild it with `mindrecord index rebuild`)");
    }
    s->page_state.reset(new std::atomic<uint8_t>[s->header.pages.size()]());
    if (options.file_system == nullptr) {
      s->identity = IdentityOf(s->path);
      if (s->identity.size != s->file->size()) s->identity = FileIdentity{};  // replaced meanwhile: no caching
    }
    MR_ASSIGN_OR_RETURN(s->rows, SharedRowMap(s->path, s->identity, s->header));
    s->first_row = impl->total_rows;
    impl->total_rows += s->header.num_rows();
    impl->shards.push_back(std::move(s));
  }
  for (const auto& s : impl->shards) impl->total_file_bytes += s->file->size();
  if (options.io_mode == IoMode::kAuto) {
    const uint64_t limit = options.auto_direct_above ? options.auto_direct_above : AvailableMemoryBytes();
    ReaderOptions chosen = options;
    chosen.io_mode = impl->total_file_bytes > limit ? IoMode::kDirect : options.auto_cached_mode;
    chosen.direct_fallback = true;
    if (chosen.io_mode != IoMode::kPread) {
      for (auto& s : impl->shards) {
        MR_ASSIGN_OR_RETURN(s->file, OpenShardFile(fs, s->path, chosen));
      }
    }
  }
  for (auto& s : impl->shards) {
    s->direct = dynamic_cast<const DirectFile*>(s->file.get());
    s->io_mode = s->direct ? IoMode::kDirect : s->file->MappedData() ? IoMode::kMmap : IoMode::kPread;
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
bool ShardReader::has_index(uint32_t s) const { return impl_->shards.at(s)->index != nullptr; }
uint64_t ShardReader::locator_bytes() const {
  uint64_t n = 0;
  for (const auto& s : impl_->shards) n += s->rows->MemoryBytes();
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

Status ShardReader::ReadRows(const std::vector<uint64_t>& row_ids, const Projection* projection,
                             const std::function<Status(size_t, Result<Row>&&)>& fn) const {
  const bool want_raw = !projection || projection->need_raw;
  const bool want_blob = !projection || projection->need_blob;
  const std::vector<bool> select = impl_->Select(projection);
  // Rows on direct shards have their parts queued, in row order, on one
  // AioReadStream per shard before the first is taken, so up to
  // direct_rows_in_flight reads are in flight while rows are decoded.
  struct Pending {
    Status status;           // locating or verifying the row failed
    int64_t shard = -1;      // a direct shard whose stream holds the parts; -1: ReadRow
    uint64_t local = 0;
    CompactLocator loc{};
  };
  std::vector<Pending> pending(row_ids.size());
  std::map<uint32_t, std::unique_ptr<AioReadStream>> streams;
  const ReaderOptions& o = impl_->options;
  for (size_t i = 0; i < row_ids.size(); ++i) {
    Pending& p = pending[i];
    auto loc = Locate(row_ids[i]);
    if (!loc.ok()) {
      p.status = loc.status();
      continue;
    }
    const Shard& s = *impl_->shards[loc->shard];
    if (!s.direct) continue;
    // Walking a group's prefixes verifies its pages first.
    p.status = impl_->LocateRow(s, loc->local_row, want_raw, want_blob, &p.loc);
    if (!p.status.ok()) continue;
    const CompactLocator& l = p.loc;
    // A page's first touch reads it whole for its checksum, synchronously.
    if (want_raw) p.status = impl_->VerifyPage(s, l.raw_page);
    if (p.status.ok() && want_blob) p.status = impl_->VerifyPage(s, l.blob_page);
    if (!p.status.ok()) continue;
    auto& stream = streams[loc->shard];
    if (!stream) {
      stream = std::make_unique<AioReadStream>(*s.direct, AioContextPool::Shared(o.direct_rows_in_flight),
                                               o.direct_read_ahead);
    }
    if (want_raw) stream->Add(s.header.PageOffset(l.raw_page) + l.raw_begin, l.raw_end - l.raw_begin);
    if (want_blob) stream->Add(s.header.PageOffset(l.blob_page) + l.blob_begin, l.blob_end - l.blob_begin);
    p.shard = loc->shard;
    p.local = loc->local_row;
  }
  for (size_t i = 0; i < row_ids.size(); ++i) {
    Pending& p = pending[i];
    if (!p.status.ok()) {
      MR_RETURN_IF_ERROR(fn(i, Result<Row>(p.status)));
      continue;
    }
    auto it = p.shard >= 0 ? streams.find(static_cast<uint32_t>(p.shard)) : streams.end();
    if (it == streams.end() || !it->second) {
      MR_RETURN_IF_ERROR(fn(i, ReadOne(row_ids[i], projection, select)));
      continue;
    }
    AioReadStream& stream = *it->second;
    const Shard& s = *impl_->shards[p.shard];
    const CompactLocator& l = p.loc;
    AioReadStream::Block raw_block, blob_block;
    Status st;
    if (want_raw) {
      auto b = stream.Next();
      if (b.ok()) raw_block = std::move(b).value();
      else st = b.status();
    }
    if (st.ok() && want_blob) {
      auto b = stream.Next();
      if (b.ok()) blob_block = std::move(b).value();
      else st = b.status();
    }
    if (!st.ok()) {
      // A failed read may leave the stream out of step with the rows: this
      // row and the shard's later rows are read on their own, which also
      // reports each row's own error.
      it->second.reset();
      MR_RETURN_IF_ERROR(fn(i, ReadRow(row_ids[i], projection)));
      continue;
    }
    Result<Row> row = Row();
    std::string_view raw, blob;
    if (want_raw) {
      auto r = Framed(s, raw_block.view(), s.header.PageOffset(l.raw_page) + l.raw_begin, "raw", p.local);
      if (r.ok()) raw = *r;
      else row = r.status();
    }
    if (row.ok() && want_blob) {
      auto r = Framed(s, blob_block.view(), s.header.PageOffset(l.blob_page) + l.blob_begin, "blob", p.local);
      if (r.ok()) blob = *r;
      else row = r.status();
    }
    if (row.ok()) {
      Status d = impl_->Decode(s, p.local, raw, blob, projection, select, &*row);
      if (!d.ok()) row = d;
    }
    stream.Recycle(std::move(raw_block));
    stream.Recycle(std::move(blob_block));
    MR_RETURN_IF_ERROR(fn(i, std::move(row)));
  }
  return Status::OK();
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

Status ShardReader::Scan(uint64_t begin, uint64_t end, const Projection* projection,
                         const std::function<Status(uint64_t, Row&&)>& fn) const {
  if (begin > end || end > impl_->total_rows) {
    return Status::InvalidArgument("scan range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                   ") is outside the dataset's " + std::to_string(impl_->total_rows) + " rows");
  }
  // Pages are read once (and verified) and rows served from them. pread
  // reads, per row group, the bytes of the rows the scan needs. A direct
  // shard's pages are queued on an AioReadStream in the order the rows need
  // them, so the next pages are being read while rows are decoded; a page
  // that is already verified (or carries no checksum) is read only across
  // the rows the scan needs.
  struct PageCache {
    int64_t page = -1;
    size_t group = SIZE_MAX;     // pread: the row group whose rows `bytes` holds
    const char* base = nullptr;  // the page's bytes [first, end)
    uint64_t first = 0, end = 0;
    std::string bytes;           // pread
    AioReadStream::Block block;  // direct
    PageBytes held() const { return {base, first, end}; }
  } raw_cache, blob_cache;
  struct Queued {
    uint64_t page, begin, end;  // bytes [begin, end) of the page
  };
  std::unique_ptr<AioReadStream> stream;
  std::deque<Queued> queued;  // on `stream`, in order
  auto load = [&](const Shard& s, PageCache& c, uint64_t page) -> Status {
    c.page = -1;
    c.group = SIZE_MAX;
    c.first = 0;
    const uint64_t off = s.header.PageOffset(page);
    const uint64_t used = s.header.pages[page].used_bytes;
    bool whole = true;
    c.end = used;
    if (const char* map = s.file->MappedData()) {
      c.base = map + off;
    } else if (stream) {
      if (queued.empty() || queued.front().page != page) {
        return Status::Internal(s.path + ": direct scan needs page " + std::to_string(page) +
                                " out of the queued order");
      }
      const Queued q = queued.front();
      queued.pop_front();
      stream->Recycle(std::move(c.block));
      MR_ASSIGN_OR_RETURN(c.block, stream->Next());
      c.base = c.block.view().data();
      c.first = q.begin;
      c.end = q.end;
      whole = q.begin == 0 && q.end == used;
    } else {
      c.bytes.resize(used);
      MR_RETURN_IF_ERROR(s.file->ReadAt(off, c.bytes.size(), c.bytes.data()));
      c.base = c.bytes.data();
    }
    // A partial read was only planned for a page that needs no verification.
    MR_RETURN_IF_ERROR(impl_->VerifyPage(s, page, whole ? c.base : nullptr));
    c.page = static_cast<int64_t>(page);
    return Status::OK();
  };
  auto view = [&](const Shard& s, PageCache& c, uint64_t page, uint64_t b, uint64_t e, const char* part,
                  uint64_t row) -> Result<std::string_view> {
    if (c.page != static_cast<int64_t>(page)) MR_RETURN_IF_ERROR(load(s, c, page));
    const char* base = c.base + (b - c.first);
    uint64_t len;
    std::memcpy(&len, base, 8);
    if (len != e - b - kLengthPrefix) {
      return Status::Corruption(s.path + ": row " + std::to_string(row) + ": " + part + " part at page " +
                                std::to_string(page) + " offset " + std::to_string(b) + " has length " +
                                std::to_string(len) + ", expected " + std::to_string(e - b - kLengthPrefix));
    }
    return std::string_view(base + kLengthPrefix, e - b - kLengthPrefix);
  };
  const bool need_raw = !projection || projection->need_raw;
  const bool need_blob = !projection || projection->need_blob;
  const std::vector<bool> select = impl_->Select(projection);
  uint64_t row_id = begin;
  while (row_id < end) {
    MR_ASSIGN_OR_RETURN(Location loc, Locate(row_id));
    const Shard& s = *impl_->shards[loc.shard];
    const RowMap& map = *s.rows;
    raw_cache.page = blob_cache.page = -1;
    const uint64_t shard_end = std::min(end, s.first_row + s.header.num_rows());
    stream.reset();
    queued.clear();
    if (s.direct) {
      // Queue each page at its first use, mirroring the loop's cache misses:
      // the span of the rows the scan needs where the group is walked, else
      // the group's whole part (the walk reads its prefixes from it).
      std::vector<Queued> plan;
      int64_t last_raw = -1, last_blob = -1;
      size_t raw_at = 0, blob_at = 0;
      auto use = [&](int64_t* last, size_t* at, uint64_t page, uint64_t b, uint64_t e) {
        if (*last != static_cast<int64_t>(page)) {
          *last = static_cast<int64_t>(page);
          *at = plan.size();
          plan.push_back({page, b, e});
        }
        plan[*at].begin = std::min(plan[*at].begin, b);
        plan[*at].end = std::max(plan[*at].end, e);
      };
      const uint64_t first_local = row_id - s.first_row, end_local = shard_end - s.first_row;
      for (size_t g = map.GroupOf(first_local); g < map.num_groups() && map.group_first_row(g) < end_local; ++g) {
        const uint64_t r0 = std::max(first_local, map.group_first_row(g));
        const uint64_t r1 = std::min(end_local, map.group_end_row(g)) - 1;
        for (RowMap::Part part : {RowMap::Part::kRaw, RowMap::Part::kBlob}) {
          const bool raw = part == RowMap::Part::kRaw;
          if (!(raw ? need_raw : need_blob)) continue;
          uint64_t b = map.GroupBegin(g, part), e = map.GroupEnd(g, part);
          if (map.Walked(g, part)) {
            CompactLocator l0{}, l1{};
            map.Fill(g, r0, raw, !raw, &l0);
            map.Fill(g, r1, raw, !raw, &l1);
            b = raw ? l0.raw_begin : l0.blob_begin;
            e = raw ? l1.raw_end : l1.blob_end;
          }
          if (raw) use(&last_raw, &raw_at, map.GroupPage(g, part), b, e);
          else use(&last_blob, &blob_at, map.GroupPage(g, part), b, e);
        }
      }
      const ReaderOptions& o = impl_->options;
      stream = std::make_unique<AioReadStream>(*s.direct, AioContextPool::Shared(o.direct_queue_depth),
                                               o.direct_read_ahead);
      for (Queued q : plan) {
        if (impl_->NeedsVerify(s, q.page)) {
          q.begin = 0;
          q.end = s.header.pages[q.page].used_bytes;
        }
        stream->Add(s.header.PageOffset(q.page) + q.begin, q.end - q.begin);
        queued.push_back(q);
      }
    }
    const bool pread = !s.direct && s.file->MappedData() == nullptr;
    const uint64_t end_local = shard_end - s.first_row;
    // Makes the bytes of row `local`'s part available in `c` and its group walked.
    auto ready = [&](PageCache& c, RowMap::Part part, size_t g, uint64_t local) -> Status {
      const uint32_t page = map.GroupPage(g, part);
      if (!pread) {
        // A group not yet walked is walked from the page bytes just loaded.
        if (c.page != static_cast<int64_t>(page)) MR_RETURN_IF_ERROR(load(s, c, page));
        return impl_->EnsureWalked(s, g, part, c.held());
      }
      if (c.page == static_cast<int64_t>(page) && c.group == g) return Status::OK();
      MR_RETURN_IF_ERROR(impl_->EnsureWalked(s, g, part));
      const bool raw = part == RowMap::Part::kRaw;
      CompactLocator l0{}, l1{};
      map.Fill(g, local, raw, !raw, &l0);
      map.Fill(g, std::min(end_local, map.group_end_row(g)) - 1, raw, !raw, &l1);
      c.first = raw ? l0.raw_begin : l0.blob_begin;
      c.end = raw ? l1.raw_end : l1.blob_end;
      c.bytes.resize(c.end - c.first);
      MR_RETURN_IF_ERROR(s.file->ReadAt(s.header.PageOffset(page) + c.first, c.bytes.size(), c.bytes.data()));
      c.base = c.bytes.data();
      c.page = page;
      c.group = g;
      return Status::OK();
    };
    size_t g = SIZE_MAX;
    for (; row_id < shard_end; ++row_id) {
      const uint64_t local = row_id - s.first_row;
      if (g == SIZE_MAX || local >= map.group_end_row(g)) g = map.GroupOf(local);
      if (need_raw) MR_RETURN_IF_ERROR(ready(raw_cache, RowMap::Part::kRaw, g, local));
      if (need_blob) MR_RETURN_IF_ERROR(ready(blob_cache, RowMap::Part::kBlob, g, local));
      CompactLocator l{};
      map.Fill(g, local, need_raw, need_blob, &l);
      std::string_view raw, blob;
      if (need_raw) {
        MR_ASSIGN_OR_RETURN(raw, view(s, raw_cache, l.raw_page, l.raw_begin, l.raw_end, "raw", local));
      }
      if (need_blob) {
        MR_ASSIGN_OR_RETURN(blob, view(s, blob_cache, l.blob_page, l.blob_begin, l.blob_end, "blob", local));
      }
      Row row;
      MR_RETURN_IF_ERROR(impl_->Decode(s, local, raw, blob, projection, select, &row));
      MR_RETURN_IF_ERROR(fn(row_id, std::move(row)));
    }
  }
  return Status::OK();
}

namespace {
struct ValueLess {
  bool operator()(const Value& a, const Value& b) const {
    if (a.kind() == Value::Kind::kString || b.kind() == Value::Kind::kString) return a.bytes() < b.bytes();
    if (a.kind() == Value::Kind::kInt && b.kind() == Value::Kind::kInt) return a.as_int() < b.as_int();
    return a.as_float() < b.as_float();
  }
};
}  // namespace

Result<std::vector<std::pair<Value, std::vector<uint64_t>>>> ShardReader::GroupByIndexField(
    const std::string& field) const {
  const auto& idx = index_fields();
  if (std::find(idx.begin(), idx.end(), field) == idx.end()) {
    return Status::InvalidArgument("'" + field + "' is not an index field of this dataset");
  }
  std::map<Value, std::vector<uint64_t>, ValueLess> merged;
  for (const auto& s : impl_->shards) {
    if (!s->index) {
      return Status::NotFound(s->path + ".db: index file of shard " + s->path + " is missing; querying index field '" +
                              field + "' needs it (rebuild it with `mindrecord index rebuild`)");
    }
    auto groups = s->index->GroupBy(field, schema(), s->header.num_rows());
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
