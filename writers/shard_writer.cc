#include "writers/shard_writer.h"
#include "readers/shard_paths.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>

#include "index/index_reader.h"
#include "mindrecord/checksum.h"
#include "mindrecord/piece_table.h"
#include "mindrecord/constants.h"
#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/row_codec.h"
#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "readers/header_io.h"
#include "readers/lock_dataset.h"
#include "writers/shard_file_writer.h"
#include "writers/shard_part.h"
#include "writers/stale_temps.h"

namespace mindrecord {

std::vector<std::string> ShardFileNames(const std::string& path, uint32_t shard_count, bool pad_suffix) {
  if (shard_count <= 1) return {path};
  const size_t width = pad_suffix ? std::to_string(shard_count - 1).size() : 0;
  std::vector<std::string> out;
  for (uint32_t i = 0; i < shard_count; ++i) {
    std::string n = std::to_string(i);
    out.push_back(path + std::string(width > n.size() ? width - n.size() : 0, '0') + n);
  }
  return out;
}

struct ShardWriter::Impl {
  FileSystem* fs = FileSystem::Default();
  Schema schema;
  WriterOptions options;
  std::vector<std::string> index_fields;
  std::unique_ptr<RowCodec> codec;
  std::unique_ptr<BlobCompressor> compressor;  // null: blobs stored as encoded
  std::vector<EncodedRow> held;                // rows held back to train a dictionary
  // Rows per batch in `held` and the batch's shard (-1: MindSpore's
  // placement), placed batch by batch.
  std::vector<std::pair<size_t, int64_t>> held_batches;
  uint64_t held_bytes = 0;
  uint64_t raw_blob_bytes = 0;                 // blob part totals, before and after compression
  uint64_t stored_blob_bytes = 0;
  std::vector<std::string> final_paths;    // every shard's, also for an only_shard writer
  std::vector<std::string> temp_paths;     // data files
  std::vector<std::string> temp_db_paths;  // index files
  // The direct page writes' I/O thread (null: none). Before `shards`: it
  // outlives them.
  std::unique_ptr<DirectWriteQueue> io_queue;
  // The index inserts' thread. Before `shards`: it outlives them.
  std::unique_ptr<IndexQueue> index_queue = std::make_unique<IndexQueue>();
  std::vector<std::unique_ptr<ShardFileWriter>> shards;
  uint32_t direct_shards = 0;
  uint64_t rows = 0;
  Status error;
  bool committed = false;
  bool abandoned = false;
  // Append: the dataset's lock and undo journal, and shard 0's header as
  // committed (the base of the new headers).
  std::unique_ptr<DatasetLock> lock;
  std::unique_ptr<AppendJournal> journal;
  std::optional<ShardHeader> appended_to;

  // Position of shard `s` in `shards` (only_shard writers hold one).
  size_t Slot(uint32_t s) const { return options.only_shard ? 0 : s; }
  Status Distribute(std::vector<EncodedRow>& encoded, int64_t shard);
  Status Submit(std::vector<EncodedRow>& encoded, int64_t shard);
  ShardHeader BaseHeader();
  Status TrainAndFlush();
  void RemoveTemps();
  Status Protect(const std::string& final_path, std::string* temp);
};

static std::string TempName(const std::string& final_path) {
  static std::atomic<uint64_t> counter{0};
  return WriterTempName(final_path, counter++);
}

Result<std::unique_ptr<ShardWriter>> ShardWriter::Create(const std::string& path, const Schema& schema,
                                                         const WriterOptions& options) {
  if (options.shard_count < kMinShardCount || options.shard_count > kMaxShardCount) {
    return Status::InvalidArgument("shard count " + std::to_string(options.shard_count) + " must be in 1..1000");
  }
  MR_RETURN_IF_ERROR(ValidateSizes(options.header_size, options.page_size));
  if (options.format_version != kVersion3 && options.format_version != kVersion2) {
    return Status::InvalidArgument("format_version '" + options.format_version + "' must be 3.0 or 2.0");
  }
  if (schema.fields().empty()) return Status::InvalidArgument("schema has no fields");
  if (options.compression.enabled() && options.format_version != kVersion3) {
    return Status::InvalidArgument("compression needs format_version 3.0, not '" + options.format_version + "'");
  }
  if (path.empty() || path.back() == '/') {
    return Status::InvalidArgument("output path '" + path + "' names no file");
  }
  if (Protects(options.protection)) {
    if (options.only_shard) {
      return Status::InvalidArgument("the shards of a distributed conversion cannot be hashed or encrypted");
    }
    MR_RETURN_IF_ERROR(CheckProtection(options.protection, path));
  }
  if (options.only_shard && *options.only_shard >= options.shard_count) {
    return Status::InvalidArgument("only_shard " + std::to_string(*options.only_shard) + " is not one of the " +
                                   std::to_string(options.shard_count) + " shards");
  }
  auto impl = std::make_unique<Impl>();
  impl->schema = schema;
  impl->options = options;
  if (options.file_system) impl->fs = options.file_system;
  impl->index_fields = options.index_fields ? *options.index_fields : schema.DefaultIndexFields();
  MR_RETURN_IF_ERROR(schema.ValidateIndexFields(impl->index_fields));
  impl->codec = std::make_unique<RowCodec>(&impl->schema, options.format_version);
  if (options.compression.enabled() && !(options.compression.codec == Codec::kZstd && options.compression.dictionary)) {
    MR_ASSIGN_OR_RETURN(impl->compressor, BlobCompressor::Create(options.compression, ""));
  }
  impl->final_paths = ShardFileNames(path, options.shard_count, options.pad_shard_suffix);

  FileSystem* fs = impl->fs;
  const std::string dir = DirName(path);
  if (!fs->Exists(dir)) return Status::NotFound(dir + ": output folder does not exist");
  if (!options.overwrite) {
    for (uint32_t s = 0; s < options.shard_count; ++s) {
      if (options.only_shard && s != *options.only_shard) continue;
      for (const auto& f : {impl->final_paths[s], impl->final_paths[s] + kIndexSuffix}) {
        if (fs->Exists(f)) return Status::AlreadyExists(f + ": already exists (use overwrite to replace it)");
      }
    }
  }
  {  // What a killed writer of these shards left.
    std::vector<std::string> mine;
    for (uint32_t s = 0; s < options.shard_count; ++s) {
      if (options.only_shard && s != *options.only_shard) continue;
      mine.push_back(impl->final_paths[s]);
      mine.push_back(impl->final_paths[s] + kIndexSuffix);
    }
    RemoveStaleTemps(mine, fs);
  }
  for (uint32_t s = 0; s < options.shard_count; ++s) {
    if (options.only_shard && s != *options.only_shard) continue;
    const std::string& final_path = impl->final_paths[s];
    impl->temp_paths.push_back(TempName(final_path));
    impl->temp_db_paths.push_back(TempName(final_path + kIndexSuffix));
    auto file = options.direct_writes ? fs->OpenWriteDirect(impl->temp_paths.back())
                                      : fs->OpenWrite(impl->temp_paths.back());
    if (!file.ok()) {
      impl->RemoveTemps();
      return file.status();
    }
    auto index = IndexWriter::Create(impl->temp_db_paths.back(), BaseName(final_path), impl->schema,
                                     impl->index_fields, options.format_version == kVersion2,
                                     /*without_rowid=*/options.compression.enabled());
    if (!index.ok()) {
      impl->RemoveTemps();
      return index.status();
    }
    impl->shards.push_back(std::make_unique<ShardFileWriter>(fs, std::move(file).value(), std::move(index).value(),
                                                             options.header_size, options.page_size, s,
                                                             impl->index_fields, options.checksums,
                                                             options.piece_tables));
    impl->shards.back()->EnableIndexQueue(impl->index_queue.get());
    if (options.direct_writes) {
      if (!impl->io_queue) impl->io_queue = std::make_unique<DirectWriteQueue>();
      impl->direct_shards +=
          impl->shards.back()->EnableDirectWrites(impl->io_queue.get(), options.only_shard ? 1 : options.shard_count);
    }
  }
  if (impl->direct_shards == 0) impl->io_queue.reset();  // no thread idles for nothing
  return std::unique_ptr<ShardWriter>(new ShardWriter(std::move(impl)));
}

ShardWriter::ShardWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ShardWriter::~ShardWriter() {
  if (!impl_->committed) Abandon();
}

void ShardWriter::Impl::RemoveTemps() {
  shards.clear();  // closes files first
  for (const auto& p : temp_paths) (void)fs->Remove(p);
  for (const auto& p : temp_db_paths) {
    (void)fs->Remove(p);
    (void)fs->Remove(p + "-journal");
  }
  if (journal) (void)journal->RollBack();  // leaves the dataset as it was
  journal.reset();
  lock.reset();
}

namespace {

// One committed shard as an appender finds it.
struct ExistingShard {
  std::string path;
  ShardHeader header;
  std::string header_bytes;  // length prefix + JSON
  uint64_t size = 0;
  std::vector<AppendJournal::ShardState::Region> slack;  // unused tails of the continued pages, the piece tables
  std::vector<std::vector<PieceEntry>> tables;  // by page id; empty where the shard has none or they are damaged
};

Result<ExistingShard> LoadShard(const std::string& path, FileSystem* fs) {
  ExistingShard s;
  s.path = path;
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
  MR_ASSIGN_OR_RETURN(s.header, ReadShardHeader(*f, true));
  s.size = f->size();
  uint64_t len = 0;
  MR_RETURN_IF_ERROR(f->ReadAt(0, 8, reinterpret_cast<char*>(&len)));
  s.header_bytes.resize(kLengthPrefix + len);
  MR_RETURN_IF_ERROR(f->ReadAt(0, s.header_bytes.size(), s.header_bytes.data()));
  // The pages the append continues must be intact: their checksums are
  // recomputed over old and new bytes alike.
  std::string buf;
  for (bool blob : {true, false}) {
    for (auto it = s.header.pages.rbegin(); it != s.header.pages.rend(); ++it) {
      if (it->is_blob != blob) continue;
      auto sum = it->extra.find(kPageChecksumKey);
      if (sum != it->extra.end()) {
        buf.resize(it->used_bytes);
        MR_RETURN_IF_ERROR(f->ReadAt(s.header.PageOffset(it->page_id), buf.size(), buf.data()));
        if (!sum->is_string() || ChecksumHex(Xxh3(buf)) != sum->get<std::string>()) {
          return Status::Corruption(path + ": page " + std::to_string(it->page_id) + " (offset " +
                                    std::to_string(s.header.PageOffset(it->page_id)) +
                                    ") fails its checksum; refusing to append to a damaged shard");
        }
      }
      // The append writes into the slot's unused tail; keep what is there.
      AppendJournal::ShardState::Region r;
      r.offset = s.header.PageOffset(it->page_id) + it->used_bytes;
      const uint64_t end = std::min(s.header.PageOffset(it->page_id) + s.header.page_size, s.size);
      if (r.offset < end) {
        r.length = end - r.offset;
        r.bytes.resize(r.length);
        MR_RETURN_IF_ERROR(f->ReadAt(r.offset, r.length, r.bytes.data()));
        if (r.bytes.find_first_not_of('\0') == std::string::npos) r.bytes.clear();
        s.slack.push_back(std::move(r));
      }
      break;
    }
  }
  // The piece tables: the append writes new ones (where they may overlap
  // these), so they are journaled; pages it leaves as they are keep theirs.
  auto layout = PieceTableLayout::FromHeader(s.header, kLengthPrefix + len, path);
  if (layout.ok() && layout->present()) {
    AppendJournal::ShardState::Region r;
    r.offset = layout->offset;
    r.length = layout->bytes;
    r.bytes.resize(r.length);
    MR_RETURN_IF_ERROR(f->ReadAt(r.offset, r.length, r.bytes.data()));
    const auto rows = PageRows(s.header);
    s.tables.resize(s.header.pages.size());
    for (size_t i = 0; i < s.header.pages.size(); ++i) {
      const PageInfo& p = s.header.pages[i];
      auto t = DecodePieceSlice(std::string_view(r.bytes).substr(layout->slice_at[i] - r.offset,
                                                                 layout->pieces[i] * kPieceEntryBytes + kPieceSliceTail),
                                layout->piece_bytes, p.used_bytes, rows[i].first, rows[i].second, path, p.page_id);
      if (t.ok() && layout->piece_bytes == kPieceBytes && p.page_id < s.tables.size()) s.tables[p.page_id] = std::move(*t);
    }
    if (r.bytes.find_first_not_of('\0') == std::string::npos) r.bytes.clear();
    s.slack.push_back(std::move(r));
  }
  return s;
}

// The rows of the shard's last row group (the last blob page's rows): their
// locators and index values, read back from the index and the raw page.
Result<std::vector<std::pair<RowLocator, Row>>> LoadOpenGroup(const ExistingShard& s, const RowCodec& codec,
                                                             const BlobDecompressor* decompressor,
                                                             const std::vector<std::string>& fields,
                                                             FileSystem* fs) {
  std::vector<std::pair<RowLocator, Row>> out;
  const ShardHeader& h = s.header;
  const uint64_t rows = h.num_rows();
  uint64_t from = rows;
  for (auto it = h.pages.rbegin(); it != h.pages.rend(); ++it) {
    if (it->is_blob) {
      from = it->start_row_id;
      break;
    }
  }
  if (from >= rows) return out;
  MR_ASSIGN_OR_RETURN(auto index, IndexReader::Open(s.path + kIndexSuffix, RecordedShardName(h), h.version == kVersion2));
  MR_ASSIGN_OR_RETURN(auto locs, index->LoadLocators(from, rows - from));
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(s.path));
  std::string raw;
  for (const auto& l : locs) {
    if (l.raw_page >= h.pages.size() || h.pages[l.raw_page].is_blob || l.raw_end > h.pages[l.raw_page].used_bytes ||
        l.raw_begin + kLengthPrefix > l.raw_end) {
      return Status::Corruption(s.path + ".db: locator of row " + std::to_string(l.row_id) +
                                " does not match the shard's pages; run `mindrecord verify`");
    }
    raw.resize(l.raw_end - l.raw_begin - kLengthPrefix);
    MR_RETURN_IF_ERROR(f->ReadAt(h.PageOffset(l.raw_page) + l.raw_begin + kLengthPrefix, raw.size(), raw.data()));
    Row values;
    std::string plain;
    Result<std::string_view> msgpack = PlainRawPart(decompressor, raw, &plain);
    Status st = msgpack.ok() ? codec.DecodeRawFields(*msgpack, fields, &values) : msgpack.status();
    if (!st.ok()) return st.WithContext(s.path + ": row " + std::to_string(l.row_id));
    out.emplace_back(l, std::move(values));
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<ShardWriter>> ShardWriter::OpenForAppend(const std::string& path, FileSystem* file_system) {
  FileSystem* fs = file_system ? file_system : FileSystem::Default();
  auto impl = std::make_unique<Impl>();
  impl->fs = fs;
  MR_ASSIGN_OR_RETURN(impl->lock, LockDatasetAt(path, DatasetLock::Mode::kExclusive, fs));
  std::vector<std::string> paths;
  {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
    // Appending in place would break a digest or a cipher (MindSpore cannot
    // append to these either).
    MR_RETURN_IF_ERROR(RefuseProtected(*f, "appending to"));
    MR_ASSIGN_OR_RETURN(ShardHeader h, ReadShardHeader(*f, true));
    MR_ASSIGN_OR_RETURN(paths, ShardPathsFor(path, h));
  }
  if (paths.empty()) return Status::Corruption(path + ": header lists no shard_addresses");
  if (!impl->lock) return Status::NotFound(paths[0] + ": shard 0 of " + path + " is missing");

  // Under the lock: the dataset as committed.
  std::vector<ExistingShard> shards;
  for (uint32_t i = 0; i < paths.size(); ++i) {
    auto s = LoadShard(paths[i], fs);
    if (!s.ok()) {
      if (s.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(paths[i] + ": shard " + std::to_string(i) + " of " + path + " is missing");
      }
      return s.status();
    }
    if (s->header.shard_id != i) {
      return Status::Corruption(paths[i] + ": header says shard_id " + std::to_string(s->header.shard_id) +
                                ", expected " + std::to_string(i));
    }
    if (i > 0) MR_RETURN_IF_ERROR(CheckShardsAgree(shards[0].header, s->header, paths[0], paths[i]));
    if (!fs->Exists(paths[i] + kIndexSuffix)) {
      return Status::NotFound(paths[i] + ".db: index file is missing (run `mindrecord index rebuild`)");
    }
    shards.push_back(std::move(s).value());
  }
  const ShardHeader& h0 = shards[0].header;
  if (h0.shard_addresses.size() != paths.size()) return Status::Corruption(paths[0] + ": shard_addresses changed");
  WriterOptions& o = impl->options;
  o.shard_count = static_cast<uint32_t>(paths.size());
  o.header_size = h0.header_size;
  o.page_size = h0.page_size;
  o.format_version = BaseVersion(h0.version);
  o.index_fields = h0.index_fields;
  o.checksums = h0.extra.contains(kHeaderChecksumKey);
  o.piece_tables = h0.extra.contains(kPieceTableKey);
  o.file_system = file_system;
  o.direct_writes = false;  // appends write in place, buffered
  impl->schema = h0.schema;
  impl->index_fields = h0.index_fields;
  impl->codec = std::make_unique<RowCodec>(&impl->schema, o.format_version);
  MR_ASSIGN_OR_RETURN(auto decompressor, BlobDecompressor::FromHeader(h0, paths[0]));
  if (decompressor) {
    o.compression = decompressor->options();
    MR_ASSIGN_OR_RETURN(impl->compressor, BlobCompressor::Create(o.compression, decompressor->dictionary()));
    // The blob byte counts the header carries, added to as rows are appended.
    MR_RETURN_IF_ERROR(ReadBlobByteCounts(h0.extra.at(kCompressionKey), paths[0], &impl->raw_blob_bytes,
                                          &impl->stored_blob_bytes));
  }
  impl->final_paths = paths;
  impl->appended_to = h0;

  std::vector<std::vector<std::pair<RowLocator, Row>>> groups;
  for (const auto& s : shards) {
    MR_ASSIGN_OR_RETURN(auto g, LoadOpenGroup(s, *impl->codec, decompressor.get(), impl->index_fields, fs));
    groups.push_back(std::move(g));
    impl->rows += s.header.num_rows();
  }

  std::vector<AppendJournal::ShardState> states;
  for (const auto& s : shards) states.push_back({s.path, s.size, s.header.header_size, s.header_bytes, s.slack});
  MR_ASSIGN_OR_RETURN(impl->journal, AppendJournal::Begin(states, fs));
  for (uint32_t i = 0; i < shards.size(); ++i) {
    const ExistingShard& s = shards[i];
    Status st = [&]() -> Status {
      impl->temp_db_paths.push_back(TempName(s.path + kIndexSuffix));
      MR_RETURN_IF_ERROR(CopyWholeFile(s.path + kIndexSuffix, impl->temp_db_paths.back(), fs)
                             .WithContext(s.path + ".db: copying the index"));
      const uint64_t open_from = groups[i].empty() ? s.header.num_rows() : groups[i].front().first.row_id;
      MR_ASSIGN_OR_RETURN(auto index,
                          IndexWriter::OpenForAppend(impl->temp_db_paths.back(), impl->schema, impl->index_fields,
                                                     o.format_version == kVersion2, open_from));
      MR_ASSIGN_OR_RETURN(auto file, fs->OpenUpdate(s.path));
      auto w = std::make_unique<ShardFileWriter>(fs, std::move(file), std::move(index), o.header_size, o.page_size,
                                                 i, impl->index_fields, o.checksums, o.piece_tables);
      w->Resume(s.header.pages, s.header.num_rows(), std::move(groups[i]), s.header_bytes.size(), std::move(s.tables));
      w->EnableIndexQueue(impl->index_queue.get());
      impl->shards.push_back(std::move(w));
      return Status::OK();
    }();
    if (!st.ok()) {
      impl->RemoveTemps();
      return st;
    }
  }
  return std::unique_ptr<ShardWriter>(new ShardWriter(std::move(impl)));
}

// As MindSpore's ShardWriter (BreakIntoShards): one batch is cut into one
// contiguous block per shard, shard 0 first, so a sequential read returns it
// in order. The rows % n shards that take one row more are the next ones in
// turn after those of the previous batches (MindSpore draws them at random),
// so rows written one call at a time still spread evenly and the output is
// reproducible.
Status ShardWriter::Impl::Distribute(std::vector<EncodedRow>& encoded, int64_t shard) {
  if (shard >= 0) {
    std::vector<const EncodedRow*> all;
    all.reserve(encoded.size());
    for (const auto& r : encoded) all.push_back(&r);
    Status st = shards[Slot(static_cast<uint32_t>(shard))]->WriteBatch(all);
    if (!st.ok()) return st.WithContext(final_paths[shard]);
    rows += encoded.size();
    return Status::OK();
  }
  const uint32_t n = options.shard_count;
  const size_t per = encoded.size() / n, extra = encoded.size() % n;
  const uint64_t first_extra = rows % n;
  std::vector<std::vector<const EncodedRow*>> per_shard(n);
  size_t next = 0;
  for (uint32_t s = 0; s < n; ++s) {
    const size_t take = per + ((s + n - first_extra) % n < extra ? 1 : 0);
    for (size_t k = 0; k < take; ++k) per_shard[s].push_back(&encoded[next++]);
  }
  for (uint32_t s = 0; s < n; ++s) {
    Status st = shards[s]->WriteBatch(per_shard[s]);
    if (!st.ok()) return st.WithContext(final_paths[s]);
  }
  rows += encoded.size();
  return Status::OK();
}

// Rows held for dictionary training.
constexpr size_t kTrainRows = 8192;
constexpr uint64_t kTrainBytes = 8 * kMiB;

Status ShardWriter::Impl::Submit(std::vector<EncodedRow>& encoded, int64_t shard) {
  if (!options.compression.enabled()) return Distribute(encoded, shard);
  if (!compressor) {  // still collecting the dictionary sample
    for (auto& r : encoded) {
      held_bytes += r.blob.size() + (options.compression.raw ? r.raw.size() : 0);
      held.push_back(std::move(r));
    }
    held_batches.emplace_back(encoded.size(), shard);
    if (held.size() >= kTrainRows || held_bytes >= kTrainBytes) return TrainAndFlush();
    return Status::OK();
  }
  std::string out;
  for (size_t i = 0; i < encoded.size(); ++i) {
    Status st = compressor->CompressBlob(*codec, encoded[i].blob, &out);
    if (!st.ok()) return st.WithContext("row " + std::to_string(rows + i));
    raw_blob_bytes += encoded[i].blob.size();
    stored_blob_bytes += out.size();
    encoded[i].blob.swap(out);
    if (options.compression.raw) {
      compressor->CompressRaw(encoded[i].raw, &out);
      raw_blob_bytes += encoded[i].raw.size();
      stored_blob_bytes += out.size();
      encoded[i].raw.swap(out);
    }
  }
  return Distribute(encoded, shard);
}

Status ShardWriter::Impl::TrainAndFlush() {
  std::vector<std::string> samples;
  std::vector<std::string_view> parts;
  for (const auto& r : held) {
    if (!codec->SplitBlob(r.blob, &parts).ok()) continue;
    for (auto p : parts) {
      if (p.size() >= 16 && !LooksCompressed(p)) samples.emplace_back(p);
    }
    if (options.compression.raw && r.raw.size() >= 16) samples.push_back(r.raw);
  }
  // The dictionary travels in every shard header: keep it well inside it.
  const size_t capacity = std::min<uint64_t>(64 * kKiB, options.header_size / 8);
  MR_ASSIGN_OR_RETURN(compressor,
                      BlobCompressor::Create(options.compression, BlobCompressor::TrainDictionary(samples, capacity)));
  std::vector<EncodedRow> rows_held = std::move(held);
  std::vector<std::pair<size_t, int64_t>> batches = std::move(held_batches);
  held.clear();
  held_batches.clear();
  held_bytes = 0;
  // Batch by batch, so rows land in the shards as without compression.
  size_t begin = 0;
  for (const auto& [n, shard] : batches) {
    std::vector<EncodedRow> batch(std::make_move_iterator(rows_held.begin() + begin),
                                  std::make_move_iterator(rows_held.begin() + begin + n));
    MR_RETURN_IF_ERROR(Submit(batch, shard));
    begin += n;
  }
  return Status::OK();
}

Status ShardWriter::WriteRows(const std::vector<Row>& rows) { return WriteRowsImpl(rows, nullptr, -1); }

Status ShardWriter::WriteRows(std::vector<Row>&& rows) { return WriteRowsImpl(rows, &rows, -1); }

Status ShardWriter::WriteRowsToShard(uint32_t shard, std::vector<Row>&& rows) {
  const WriterOptions& o = impl_->options;
  if (shard >= o.shard_count || (o.only_shard && shard != *o.only_shard)) {
    return Status::InvalidArgument("shard " + std::to_string(shard) + " is not written by this writer");
  }
  return WriteRowsImpl(rows, &rows, shard);
}

Status ShardWriter::WriteRowsImpl(const std::vector<Row>& rows, std::vector<Row>* consume, int64_t shard) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (shard < 0 && m.options.only_shard) {
    return Status::InvalidArgument("a writer of one shard takes rows through WriteRowsToShard");
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    Status st = m.schema.ValidateRow(rows[i]);
    if (!st.ok()) {
      // A row that does not match the schema rejects the batch; nothing of it
      // is written and the writer stays usable.
      return st.WithContext("row " + std::to_string(m.rows + i) + " (row " + std::to_string(i) + " of this batch)");
    }
  }
  std::vector<EncodedRow> encoded(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& f : m.index_fields) encoded[i].index_values.Set(f, rows[i].Get(f));
    auto parts = consume ? m.codec->EncodeConsuming((*consume)[i]) : m.codec->Encode(rows[i]);
    if (!parts.ok()) return parts.status().WithContext("row " + std::to_string(m.rows + i));
    encoded[i].raw = std::move(parts->raw);
    encoded[i].blob = std::move(parts->blob);
    encoded[i].packing_saved = parts->packing_saved;
  }
  Status st = m.Submit(encoded, shard);
  if (!st.ok()) m.error = st;
  return st;
}

Status ShardWriter::WriteEncoded(std::vector<EncodedRow> rows) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (m.options.only_shard) return Status::InvalidArgument("a writer of one shard takes rows through WriteRowsToShard");
  Status st = m.Submit(rows, -1);
  if (!st.ok()) m.error = st;
  return st;
}

// The header every shard of this writer shares, less its pages and id.
ShardHeader ShardWriter::Impl::BaseHeader() {
  ShardHeader base;
  if (appended_to) {
    base = *appended_to;  // as committed, less its pages
    base.pages.clear();
  } else {
    base.version = options.format_version;
    base.header_size = options.header_size;
    base.page_size = options.page_size;
    base.schema = schema;
    base.index_fields = index_fields;
    for (const auto& p : final_paths) base.shard_addresses.push_back(BaseName(p));
  }
  if (compressor) {
    base.version = CompressedVersion(options.compression.codec);
    nlohmann::json c = compressor->HeaderJson();
    c["raw_bytes"] = raw_blob_bytes;
    c["stored_bytes"] = stored_blob_bytes;
    base.extra[kCompressionKey] = c;
  }
  int64_t saved = 0;
  for (const auto& s : shards) saved += s->packing_saved();
  base.compression_size = (appended_to ? appended_to->compression_size : 0) +
                          (saved > 0 ? static_cast<uint64_t>(saved) : 0);
  return base;
}

// Hashes the temporary *temp of `final_path` in place, then encrypts it
// into a new temporary of the same final name (which the next writer's
// RemoveStaleTemps knows, should this process die), which replaces it in
// *temp; the plaintext one is removed.
Status ShardWriter::Impl::Protect(const std::string& final_path, std::string* temp) {
  const CryptoConfig& c = options.protection;
  if (!c.hash_mode.empty()) MR_RETURN_IF_ERROR(AppendFileDigest(*temp, c.hash_mode, fs));
  if (c.key.empty()) return Status::OK();
  std::string encrypted = TempName(final_path);
  MR_RETURN_IF_ERROR(EncryptFileTo(*temp, encrypted, c, fs));
  (void)fs->Remove(*temp);
  *temp = std::move(encrypted);
  return Status::OK();
}

Status ShardWriter::SetProtection(const CryptoConfig& protection) {
  Impl& m = *impl_;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (Protects(protection)) {
    if (m.journal) return Status::InvalidArgument("an append cannot hash or encrypt the dataset");
    if (m.options.only_shard) {
      return Status::InvalidArgument("the shards of a distributed conversion cannot be hashed or encrypted");
    }
    MR_RETURN_IF_ERROR(CheckProtection(protection, m.final_paths[0]));
  }
  m.options.protection = protection;
  return Status::OK();
}

Status ShardWriter::Commit() {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (m.options.only_shard) return Status::InvalidArgument("a writer of one shard commits with CommitPart");
  if (!m.compressor && m.options.compression.enabled()) {
    Status st = m.TrainAndFlush();
    if (!st.ok()) {
      m.error = st;
      return st;
    }
  }
  ShardHeader base = m.BaseHeader();
  auto fail = [&](Status st) {
    m.error = st;
    m.RemoveTemps();
    m.abandoned = true;
    return st;
  };
  for (size_t s = 0; s < m.shards.size(); ++s) {
    Status st = m.shards[s]->Finish(base);
    if (!st.ok()) return fail(st.WithContext(m.final_paths[s]));
  }
  if (Protects(m.options.protection)) {
    for (size_t s = 0; s < m.final_paths.size(); ++s) {
      Status st = m.Protect(m.final_paths[s], &m.temp_paths[s]);
      if (st.ok()) st = m.Protect(m.final_paths[s] + kIndexSuffix, &m.temp_db_paths[s]);
      if (!st.ok()) return fail(st.WithContext(m.final_paths[s]));
    }
  }
  if (m.journal) {
    // Append: data and headers are in place and durable; swap in the new
    // indexes, then remove the journal (the commit point).
    for (size_t s = 0; s < m.final_paths.size(); ++s) {
      Status st = m.fs->Rename(m.temp_db_paths[s], m.final_paths[s] + kIndexSuffix);
      if (!st.ok()) return fail(st);
    }
    Status st = m.fs->SyncDir(DirName(m.final_paths[0]));
    if (st.ok()) st = m.journal->Commit();
    if (!st.ok()) return fail(st);
    m.journal.reset();
    m.lock.reset();
    m.shards.clear();
    m.committed = true;
    return Status::OK();
  }
  // The files are complete. Recording the renames decides the commit; a
  // crash among them is finished by the next opener (FinishCommit). Renames
  // replace old files (overwrite) atomically one by one: index files first,
  // shard 0's data file last.
  std::vector<std::pair<std::string, std::string>> renames;
  for (size_t s = 0; s < m.final_paths.size(); ++s) renames.emplace_back(m.temp_db_paths[s], m.final_paths[s] + kIndexSuffix);
  for (size_t s = m.final_paths.size(); s-- > 0;) renames.emplace_back(m.temp_paths[s], m.final_paths[s]);
  Status st = WriteCommitRecord(m.final_paths[0], renames, m.fs);
  if (!st.ok()) return fail(st);
  m.shards.clear();
  st = FinishCommit(m.final_paths[0], m.fs);
  if (!st.ok()) {
    // Decided: the temporaries stay for the next opener to rename.
    m.error = st;
    m.abandoned = true;
    return st.WithContext("the commit is recorded and will be finished by the next open");
  }
  m.shards.clear();
  m.committed = true;
  return Status::OK();
}

Result<PartTotals> ShardWriter::CommitPart(const nlohmann::json& part_info) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (!m.options.only_shard) return Status::InvalidArgument("CommitPart is for a writer of one shard");
  if (m.options.compression.enabled() && !m.compressor) {
    return Status::InvalidArgument("a shard part cannot train a compression dictionary of its own");
  }
  const uint32_t id = *m.options.only_shard;
  ShardHeader base = m.BaseHeader();
  nlohmann::json info = part_info;
  info["packing_saved"] = m.shards[0]->packing_saved();  // signed: the dataset's total is summed from these
  base.extra[kPartKey] = info;
  Status st = m.shards[0]->Finish(base);
  const std::string part = ShardPartPath(m.final_paths[id]);
  if (st.ok()) st = m.fs->Rename(m.temp_db_paths[0], part + kIndexSuffix);
  if (st.ok()) st = m.fs->Rename(m.temp_paths[0], part);
  if (st.ok()) st = m.fs->SyncDir(DirName(part));
  if (!st.ok()) {
    m.error = st.WithContext(m.final_paths[id]);
    m.RemoveTemps();
    m.abandoned = true;
    return m.error;
  }
  PartTotals totals;
  totals.packing_saved = m.shards[0]->packing_saved();
  totals.raw_bytes = m.raw_blob_bytes;
  totals.stored_bytes = m.stored_blob_bytes;
  m.shards.clear();
  m.committed = true;
  return totals;
}

void ShardWriter::Abandon() {
  if (impl_->committed || impl_->abandoned) return;
  impl_->RemoveTemps();
  impl_->abandoned = true;
}

uint64_t ShardWriter::rows_written() const { return impl_->rows + impl_->held.size(); }
const std::vector<std::string>& ShardWriter::shard_paths() const { return impl_->final_paths; }
const Schema& ShardWriter::schema() const { return impl_->schema; }
const std::string& ShardWriter::format_version() const { return impl_->options.format_version; }
const WriterOptions& ShardWriter::options() const { return impl_->options; }
uint32_t ShardWriter::direct_shards() const { return impl_->direct_shards; }

}  // namespace mindrecord
