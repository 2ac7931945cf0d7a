// Internal to ShardReader (shard_reader.cc, shard_scan.cc, row_views.cc): its
// per-shard state and the steps its reads share (locate, verify, fetch the
// parts, decode them into a Row or a RowView).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_reader.h"
#include "readers/piece_index.h"
#include "mindrecord/compression.h"
#include "mindrecord/direct_file.h"
#include "mindrecord/file.h"
#include "mindrecord/row_codec.h"
#include "mindrecord/row_view.h"
#include "readers/raw_group_cache.h"
#include "readers/remote_file.h"
#include "readers/row_map.h"
#include "readers/shard_reader.h"
#include "readers/verified_pages.h"

namespace mindrecord {

namespace reader_internal {

struct Shard {
  std::string path;
  // Shared: a mapped file's owner is handed out with row views
  // (RowView::mapping()), and keeps the mapping alive past the reader.
  std::shared_ptr<RandomAccessFile> file;
  // `file` as the owner RowView::mapping() gives when the shard is mapped;
  // null otherwise.
  std::shared_ptr<const void> mapping;
  std::string_view mapped_bytes;  // the mapped file, when `mapping` is set
  const DirectFile* direct = nullptr;  // `file`, when it is read with O_DIRECT
  IoMode io_mode = IoMode::kPread;
  ShardHeader header;
  // The .db, opened by the first field query (IndexOf), never to read rows
  // (a remote one fetched then): set once under index_mu. Null until then,
  // and when the .db is missing.
  std::unique_ptr<IndexReader> index;
  RemoteFile* remote = nullptr;  // `file`, when the shard is named by URL
  bool index_exists = false;     // a local shard's .db was there at open
  mutable std::mutex index_mu;
  mutable bool index_fetched = false;
  uint64_t first_row = 0;
  // Per page: 0 not yet checked, 1 checksum good (or none), 2 mismatch,
  // 3 being checked piece by piece (not checked whole by an earlier reader).
  std::unique_ptr<std::atomic<uint8_t>[]> page_state;
  // Row locations from the pages themselves, walked lazily per row group;
  // shared with other readers of the same unchanged file (row_map_cache.h).
  std::shared_ptr<RowMap> rows;
  // Row locations and checksums piece by piece (readers/piece_index.h; held
  // by `rows`), when the shard has piece tables and is local; tried first.
  const PieceIndex* pieces = nullptr;
  // The file's identity at open, for pages verified by earlier readers
  // (readers/verified_pages.h); invalid with a custom file system.
  FileIdentity identity;
  // kPread shards (not remote): row groups' raw parts read whole; null
  // otherwise or when ReaderOptions::raw_group_cache_bytes is 0.
  std::unique_ptr<RawGroupCache> raw_groups;
};

// Whether Open's dataset is named by URL (the path, or every listed file);
// InvalidArgument for options that do not apply to one (io_mode mmap or
// direct, a custom file_system) or a list mixing URLs and local files.
Result<bool> CheckRemoteOptions(const std::string& path, const ReaderOptions& options);

// ReadShardHeader, and for a remote file whose header bytes fail their
// checks (checksum, lengths) the header fetched again, up to
// `retries` more times: a wrong download is not a damaged file.
Result<ShardHeader> ReadHeaderOf(const RandomAccessFile& file, bool verify, uint32_t retries);

// A row part's bytes without their length prefix, which must agree with the
// range walked.
Result<std::string_view> Framed(const Shard& s, std::string_view bytes, uint64_t off, const char* part,
                                uint64_t row);

// One row's parts as a read found them: `raw` / `blob` (empty when not
// wanted) are valid until the callback that gets them returns; `mapped`:
// they lie in the shard's mapping (valid while the shard's file lives).
struct PartsRef {
  const Shard* shard = nullptr;
  uint64_t local = 0;  // shard-local row
  std::string_view raw, blob;
  bool mapped = false;
  uint64_t stored_bytes = 0;  // the wanted parts' bytes in the file, prefixes included
};

}  // namespace reader_internal

struct ShardReader::Impl {
  using Shard = reader_internal::Shard;
  using PartsRef = reader_internal::PartsRef;

  ReaderOptions options;
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<std::string> paths;
  std::unique_ptr<RowCodec> codec;
  std::unique_ptr<BlobDecompressor> decompressor;  // null: blobs stored uncompressed
  uint64_t total_rows = 0;
  uint64_t total_file_bytes = 0;

  std::vector<std::string> warnings;
  // Remote datasets: the file system their shards and .db files are read through.
  std::unique_ptr<RemoteFileSystem> remote_fs;
  FileSystem* fs = nullptr;  // what the shards were opened through (remote_fs for URLs)

  // The shard's index, fetched first for a remote shard; null when it has none.
  Result<const IndexReader*> IndexOf(const Shard& s) const;
  // Remote shards: fetches, several at once, the pieces the rows' wanted
  // parts lie in (their groups' pages when not yet walked), up to half the
  // memory the remote options allow. Failures are left to the reads.
  void PrefetchRemote(const std::vector<uint64_t>& row_ids, bool want_raw, bool want_blob) const;

  const ShardHeader& first() const { return shards[0]->header; }
  // The shard holding global row `row_id` (< total_rows).
  const Shard& ShardOf(uint64_t row_id) const {
    size_t k = shards.size() - 1;
    while (shards[k]->first_row > row_id) --k;  // the last shard starting at or before it (skips empty ones)
    return *shards[k];
  }
  // Walks group `g`'s part if not yet done, after verifying its page; `held`:
  // bytes of the page the caller has read (and verified) already.
  Status EnsureWalked(const Shard& s, size_t g, RowMap::Part part, const PageBytes& held = {}) const;
  // The wanted parts of shard-local row `local`.
  Status LocateRow(const Shard& s, uint64_t local, bool want_raw, bool want_blob, CompactLocator* out) const;
  // `data`: the page's bytes when the caller has them; otherwise they are read.
  // `each_piece`, when set and the page is hashed here: called with each
  // piece of the page hashed (page offset, bytes, size), in order, before the
  // checksum is compared.
  using PieceSink = std::function<void(uint64_t first, const char* data, uint64_t size)>;
  Status VerifyPage(const Shard& s, uint64_t page, const char* data = nullptr, const PieceSink& each_piece = {}) const;
  // Checks page bytes [begin, end): only the pieces they lie in where the
  // shard has piece tables, else the whole page (VerifyPage). A damaged
  // table or piece falls back to VerifyPage, whose error names the page.
  Status VerifyRange(const Shard& s, uint32_t page, uint64_t begin, uint64_t end) const;
  // Whether the page needs no more checks (checked whole here or, for a
  // shard with piece tables, by an earlier reader; or checks are off).
  bool PageChecked(const Shard& s, uint32_t page) const;
  // LocateRow from the piece tables (false: none, or not usable for the row).
  bool LocateByPieces(const Shard& s, uint64_t local, bool want_raw, bool want_blob, CompactLocator* out) const;
  // Whether VerifyPage would read the page (not yet verified, has a checksum).
  bool NeedsVerify(const Shard& s, uint64_t page) const;
  Result<std::string_view> Fetch(const Shard& s, uint64_t page, uint64_t begin, uint64_t end,
                                 std::string* scratch, const char* part, uint64_t row) const;
  // A row's raw part: from its group's bytes when the shard's RawGroupCache
  // holds them (reading them now when it is time), else as Fetch reads it.
  Result<std::string_view> FetchRaw(const Shard& s, const CompactLocator& l, uint64_t row,
                                    std::string* scratch) const;
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
  // The same into a view selected for `proj` (RowView::Select), decompressing
  // into the view's buffers where the dataset is compressed.
  Status DecodeView(const PartsRef& parts, const Projection* proj, RowView* out) const;

  // The parts of rows [begin, end) in order, each page read (and verified)
  // once; see ShardReader::Scan. `fn` may stop the scan with an error.
  using PartsFn = std::function<Status(uint64_t row_id, const PartsRef& parts)>;
  Status ScanParts(uint64_t begin, uint64_t end, bool need_raw, bool need_blob, const PartsFn& fn) const;
  // The parts of rows `row_ids`, each handed to `fn` with its index, in
  // order, or with the error that row met (`parts` then empty); see
  // ShardReader::ReadRows. On mapped shards the rows are located first and
  // the next rows' bytes prefetched while a row is handed out.
  using IndexedPartsFn = std::function<Status(size_t index, const Status& status, const PartsRef& parts)>;
  Status ReadParts(const std::vector<uint64_t>& row_ids, bool want_raw, bool want_blob,
                   const IndexedPartsFn& fn) const;
};

}  // namespace mindrecord
