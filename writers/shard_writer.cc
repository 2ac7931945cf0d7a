#include "writers/shard_writer.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/row_codec.h"
#include "writers/shard_file_writer.h"

namespace mindrecord {

std::vector<std::string> ShardFileNames(const std::string& path, uint32_t shard_count) {
  if (shard_count <= 1) return {path};
  const size_t width = std::to_string(shard_count - 1).size();
  std::vector<std::string> out;
  for (uint32_t i = 0; i < shard_count; ++i) {
    std::string n = std::to_string(i);
    out.push_back(path + std::string(width - n.size(), '0') + n);
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
  uint64_t held_bytes = 0;
  uint64_t raw_blob_bytes = 0;                 // blob part totals, before and after compression
  uint64_t stored_blob_bytes = 0;
  std::vector<std::string> final_paths;
  std::vector<std::string> temp_paths;     // data files
  std::vector<std::string> temp_db_paths;  // index files
  std::vector<std::unique_ptr<ShardFileWriter>> shards;
  uint64_t rows = 0;
  Status error;
  bool committed = false;
  bool abandoned = false;

  Status Distribute(std::vector<EncodedRow>& encoded);
  Status Submit(std::vector<EncodedRow>& encoded);
  Status TrainAndFlush();
  void RemoveTemps();
};

static std::string TempName(const std::string& final_path) {
  static std::atomic<uint64_t> counter{0};
  return JoinPath(DirName(final_path), "." + BaseName(final_path) + ".tmp-" + std::to_string(getpid()) + "-" +
                                           std::to_string(counter++));
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
  impl->final_paths = ShardFileNames(path, options.shard_count);

  FileSystem* fs = impl->fs;
  const std::string dir = DirName(path);
  if (!fs->Exists(dir)) return Status::NotFound(dir + ": output folder does not exist");
  if (!options.overwrite) {
    for (const auto& p : impl->final_paths) {
      for (const auto& f : {p, p + ".db"}) {
        if (fs->Exists(f)) return Status::AlreadyExists(f + ": already exists (use overwrite to replace it)");
      }
    }
  }
  for (uint32_t s = 0; s < options.shard_count; ++s) {
    const std::string& final_path = impl->final_paths[s];
    impl->temp_paths.push_back(TempName(final_path));
    impl->temp_db_paths.push_back(TempName(final_path + ".db"));
    auto file = fs->OpenWrite(impl->temp_paths.back());
    if (!file.ok()) {
      impl->RemoveTemps();
      return file.status();
    }
    auto index = IndexWriter::Create(impl->temp_db_paths.back(), BaseName(final_path), impl->schema,
                                     impl->index_fields, options.format_version == kVersion2);
    if (!index.ok()) {
      impl->RemoveTemps();
      return index.status();
    }
    impl->shards.push_back(std::make_unique<ShardFileWriter>(fs, std::move(file).value(), std::move(index).value(),
                                                             options.header_size, options.page_size, s,
                                                             impl->index_fields, options.checksums));
  }
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
}

Status ShardWriter::Impl::Distribute(std::vector<EncodedRow>& encoded) {
  const uint32_t n = options.shard_count;
  std::vector<std::vector<const EncodedRow*>> per_shard(n);
  for (size_t i = 0; i < encoded.size(); ++i) per_shard[(rows + i) % n].push_back(&encoded[i]);
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

Status ShardWriter::Impl::Submit(std::vector<EncodedRow>& encoded) {
  if (!options.compression.enabled()) return Distribute(encoded);
  if (!compressor) {  // still collecting the dictionary sample
    for (auto& r : encoded) {
      held_bytes += r.blob.size();
      held.push_back(std::move(r));
    }
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
  }
  return Distribute(encoded);
}

Status ShardWriter::Impl::TrainAndFlush() {
  std::vector<std::string> samples;
  std::vector<std::string_view> parts;
  for (const auto& r : held) {
    if (!codec->SplitBlob(r.blob, &parts).ok()) continue;
    for (auto p : parts) {
      if (p.size() >= 16 && !LooksCompressed(p)) samples.emplace_back(p);
    }
  }
  // The dictionary travels in every shard header: keep it well inside it.
  const size_t capacity = std::min<uint64_t>(64 * kKiB, options.header_size / 8);
  MR_ASSIGN_OR_RETURN(compressor,
                      BlobCompressor::Create(options.compression, BlobCompressor::TrainDictionary(samples, capacity)));
  std::vector<EncodedRow> rows_held = std::move(held);
  held.clear();
  held_bytes = 0;
  return Submit(rows_held);
}

Status ShardWriter::WriteRows(const std::vector<Row>& rows) { return WriteRowsImpl(rows, nullptr); }

Status ShardWriter::WriteRows(std::vector<Row>&& rows) { return WriteRowsImpl(rows, &rows); }

Status ShardWriter::WriteRowsImpl(const std::vector<Row>& rows, std::vector<Row>* consume) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
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
  Status st = m.Submit(encoded);
  if (!st.ok()) m.error = st;
  return st;
}

Status ShardWriter::WriteEncoded(std::vector<EncodedRow> rows) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  Status st = m.Submit(rows);
  if (!st.ok()) m.error = st;
  return st;
}

Status ShardWriter::Commit() {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.committed || m.abandoned) return Status::InvalidArgument("writer is already committed or abandoned");
  if (!m.compressor && m.options.compression.enabled()) {
    Status st = m.TrainAndFlush();
    if (!st.ok()) {
      m.error = st;
      return st;
    }
  }
  ShardHeader base;
  base.version = m.options.format_version;
  if (m.compressor) {
    base.version = CompressedVersion(m.options.compression.codec);
    nlohmann::json c = m.compressor->HeaderJson();
    c["raw_bytes"] = m.raw_blob_bytes;
    c["stored_bytes"] = m.stored_blob_bytes;
    base.extra[kCompressionKey] = c;
  }
  base.header_size = m.options.header_size;
  base.page_size = m.options.page_size;
  base.schema = m.schema;
  base.index_fields = m.index_fields;
  for (const auto& p : m.final_paths) base.shard_addresses.push_back(BaseName(p));
  int64_t saved = 0;
  for (const auto& s : m.shards) saved += s->packing_saved();
  base.compression_size = saved > 0 ? static_cast<uint64_t>(saved) : 0;
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
  if (m.options.overwrite) {
    for (size_t s = 0; s < m.final_paths.size(); ++s) {
      Status st = m.fs->Remove(m.final_paths[s]);
      if (st.ok()) st = m.fs->Remove(m.final_paths[s] + ".db");
      if (!st.ok()) return fail(st);
    }
  }
  // Index files first, shard 0's data file last: a dataset whose rename was
  // interrupted lacks a shard and is refused by readers.
  for (size_t s = 0; s < m.final_paths.size(); ++s) {
    Status st = m.fs->Rename(m.temp_db_paths[s], m.final_paths[s] + ".db");
    if (!st.ok()) return fail(st);
  }
  for (size_t s = m.final_paths.size(); s-- > 0;) {
    Status st = m.fs->Rename(m.temp_paths[s], m.final_paths[s]);
    if (!st.ok()) return fail(st);
  }
  Status st = m.fs->SyncDir(DirName(m.final_paths[0]));
  if (!st.ok()) return fail(st);
  m.shards.clear();
  m.committed = true;
  return Status::OK();
}

void ShardWriter::Abandon() {
  if (impl_->committed || impl_->abandoned) return;
  impl_->RemoveTemps();
  impl_->abandoned = true;
}

uint64_t ShardWriter::rows_written() const { return impl_->rows + impl_->held.size(); }
const std::vector<std::string>& ShardWriter::shard_paths() const { return impl_->final_paths; }
const Schema& ShardWriter::schema() const { return impl_->schema; }

}  // namespace mindrecord
