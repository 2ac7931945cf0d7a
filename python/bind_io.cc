// Writer and Reader classes of mindrecord._core (wrapped by FileWriter,
// FileReader and MindPage in the pure-Python layer).
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <pybind11/stl.h>

#include "mindrecord/compression.h"
#include "mindrecord/encryption.h"
#include "python/bind_values.h"
#include "python/py_common.h"
#include "pipeline/plan.h"
#include "readers/recover.h"
#include "readers/remote_file.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::py_binding {

namespace {

// Thread safety: not thread-safe (as ShardWriter); the Python FileWriter is
// used from one thread.
class PyWriter {
 public:
  PyWriter(const std::string& path, const std::string& schema_json, const std::string& desc, uint32_t shard_count,
           uint64_t header_size, uint64_t page_size, std::optional<std::vector<std::string>> index_fields,
           bool overwrite, bool checksums, const std::string& format_version, const std::string& compression,
           bool direct_writes) {
    schema_ = ValueOrThrow(Schema::FromUserJsonString(schema_json, desc));
    WriterOptions o;
    o.shard_count = shard_count;
    o.header_size = header_size;
    o.page_size = page_size;
    o.index_fields = std::move(index_fields);
    o.overwrite = overwrite;
    o.checksums = checksums;
    o.format_version = format_version;
    o.compression = ValueOrThrow(ParseCompression(compression));
    o.direct_writes = direct_writes;
    py::gil_scoped_release nogil;
    writer_ = ValueOrThrow(ShardWriter::Create(path, schema_, o));
  }

  // An existing dataset opened for append (any shard file).
  static std::unique_ptr<PyWriter> OpenForAppend(const std::string& path) {
    std::unique_ptr<PyWriter> w(new PyWriter());
    {
      py::gil_scoped_release nogil;
      w->writer_ = ValueOrThrow(ShardWriter::OpenForAppend(path));
    }
    w->schema_ = w->writer_->schema();
    return w;
  }

  // Converts and validates every row before writing any, so a bad row leaves
  // the dataset untouched. `first_index` numbers rows in error messages.
  void Write(const py::list& rows, size_t first_index) {
    std::vector<Row> batch;
    batch.reserve(rows.size());
    size_t i = first_index;
    for (py::handle r : rows) batch.push_back(PyToRow(schema_, r, i++));
    py::gil_scoped_release nogil;
    ThrowIfError(writer_->WriteRows(batch));
  }
  // `protect`: hash and encrypt the files as mindrecord.config's settings
  // ask (mindrecord/encryption.h), before they take their final names.
  void Commit(bool protect) {
    py::gil_scoped_release nogil;
    if (protect) {
      // A commit that cannot protect the files fails as a whole.
      if (Status st = writer_->SetProtection(CurrentCryptoConfig()); !st.ok()) {
        writer_->Abandon();
        ThrowIfError(st);
      }
    }
    ThrowIfError(writer_->Commit());
  }
  void Abandon() { writer_->Abandon(); }
  uint64_t rows_written() const { return writer_->rows_written(); }
  std::vector<std::string> shard_paths() const { return writer_->shard_paths(); }
  std::string schema_json() const { return schema_.ToUserJson().dump(); }
  // Shards whose pages go out with direct (O_DIRECT) writes.
  uint32_t direct_shards() const { return writer_->direct_shards(); }
  std::string compression() const { return CompressionSpec(writer_->options().compression); }

 private:
  PyWriter() = default;
  Schema schema_;
  std::unique_ptr<ShardWriter> writer_;
};

// Thread safety: every method may be called from any thread (ShardReader's
// const methods are thread-safe); reads run without the GIL.
class PyReader {
 public:
  // Stored row data per thread, at least, when read_range splits a range.
  static constexpr uint64_t kMinBytesPerThread = uint64_t{4} << 20;

  // `files`: read exactly these files (ReaderOptions::shard_paths), `path`
  // first; empty: `path` and its siblings. `mapped`: io_mode auto reads a
  // dataset that fits in memory with mmap (for zero-copy reads), else with
  // pread.
  PyReader(const std::string& path, const std::vector<std::string>& columns, const std::string& io_mode,
           const std::vector<std::string>& files, bool mapped, const std::string& remote) {
    ReaderOptions o;
    o.io_mode = ValueOrThrow(ParseIoMode(io_mode));
    o.shard_paths = files;
    if (!remote.empty()) {
      // The plan's "remote" object, as JSON text (mindrecord/_remote.py).
      nlohmann::json j = nlohmann::json::parse(remote, nullptr, false);
      ThrowIfError(ParseRemoteOptions(j, &o.remote));
    }
    if (mapped) o.auto_cached_mode = IoMode::kMmap;
    {
      py::gil_scoped_release nogil;
      reader_ = ValueOrThrow(ShardReader::Open(path, o));
    }
    projection_ = ValueOrThrow(reader_->MakeProjection(columns));
    // The views hold the selected fields in schema (= name) order, as the
    // dicts do.
    for (size_t i = 0; i < projection_.field_ids.size(); ++i) {
      slots_.push_back(i);
      keys_.push_back(py::str(reader_->schema().fields()[projection_.field_ids[i]].name));
    }
  }

  uint64_t num_rows() const { return reader_->num_rows(); }
  std::vector<std::string> warnings() const { return reader_->warnings(); }
  std::vector<std::string> shard_io_modes() const {
    std::vector<std::string> out;
    for (uint32_t s = 0; s < reader_->num_shards(); ++s) out.push_back(IoModeName(reader_->shard_io_mode(s)));
    return out;
  }
  std::string schema_json() const { return reader_->schema().ToUserJson().dump(); }
  std::string desc() const { return reader_->schema().desc(); }
  std::vector<std::string> blob_fields() const { return reader_->schema().blob_field_names(); }
  std::vector<std::string> index_fields() const { return reader_->index_fields(); }
  std::vector<std::string> shard_paths() const { return reader_->shard_paths(); }
  std::string version() const { return reader_->version(); }
  uint64_t header_size() const { return reader_->header_size(); }
  uint64_t page_size() const { return reader_->page_size(); }
  // {"codec": spec ("none", "lz4", "zstd:3+dict", "zstd:3+dict+raw"), and
  // when compressed "dict_id", "raw_bytes", "stored_bytes" (compressed parts
  // before / after, over the dataset)}.
  std::string compression_json() const {
    const ShardHeader& h = reader_->header(0);
    nlohmann::json j = {{"codec", CompressionSpec(CompressionFromHeader(h))}};
    auto it = h.extra.find(kCompressionKey);
    if (it != h.extra.end() && it->is_object()) {
      for (const char* k : {"dict_id", "raw_bytes", "stored_bytes"}) {
        if (it->contains(k)) j[k] = (*it)[k];
      }
    }
    return j.dump();
  }
  std::vector<uint64_t> shard_rows() const {
    std::vector<uint64_t> out;
    for (uint32_t s = 0; s < reader_->num_shards(); ++s) out.push_back(reader_->shard_num_rows(s));
    return out;
  }

  // Rows [begin, end) in order as dicts, read with the GIL released. Up to
  // `threads` threads split the range (each scans its part page by page),
  // but only as many as give each kMinBytesPerThread of stored row data:
  // handing a part to a thread costs a thread start and a wait for it to be
  // scheduled, which on a busy machine takes longer than reading a chunk of
  // small rows (a chunk of 1,024 rows of 1 KiB read 4x slower with 4 threads
  // than with one, under load 3 on 2 cores). With `max_bytes` > 0 the reads
  // stop once the rows read hold more than that (compressed rows inflate
  // beyond what they store) and the rows up to the first one not read are
  // returned (at least one). Rows are read as views (RowChunk): in mmap mode
  // their bytes are copied once, into the Python objects, or not at all with
  // `zero_copy` (read-only views of the mapping, see RowChunk::AppendRows).
  py::list ReadRange(uint64_t begin, uint64_t end, uint32_t threads, uint64_t max_bytes, bool zero_copy) {
    end = std::min(end, reader_->num_rows());
    begin = std::min(begin, end);
    uint64_t bytes = 0;
    {
      py::gil_scoped_release nogil;
      for (uint64_t id = begin; id < end && bytes < uint64_t{threads} * kMinBytesPerThread; ++id) {
        bytes += ValueOrThrow(reader_->StoredBytes(id, &projection_));
      }
    }
    return Read(begin, end, bytes, threads, max_bytes, zero_copy);
  }

  // The next chunk of rows from `begin`: at most `max_rows` rows whose
  // selected parts take at most `max_bytes` in the file (at least one row),
  // read as ReadRange reads them with the same `max_bytes` cap on the bytes
  // the rows hold: ChunkEnd and ReadRange in one pass.
  py::list ReadChunk(uint64_t begin, uint64_t max_rows, uint64_t max_bytes, uint32_t threads, bool zero_copy) {
    uint64_t end, bytes;
    {
      py::gil_scoped_release nogil;
      end = ChunkEndImpl(begin, max_rows, max_bytes, &bytes);
    }
    return Read(std::min(begin, end), end, bytes, threads, max_bytes, zero_copy);
  }

  // The end of the chunk of rows from `begin`: at most `max_rows` rows whose
  // selected parts take at most `max_bytes` in the file, and at least one.
  uint64_t ChunkEnd(uint64_t begin, uint64_t max_rows, uint64_t max_bytes) const {
    py::gil_scoped_release nogil;
    uint64_t bytes;
    return ChunkEndImpl(begin, max_rows, max_bytes, &bytes);
  }

  // Rows by global id, in the given order; all columns when `all_columns`.
  // ValueError once the rows read hold more than `max_bytes` (0: no cap)
  // decoded, counted row by row: one call must return every row it is asked
  // for, so a dataset whose values inflate is refused, not held.
  py::list ReadIds(const std::vector<uint64_t>& ids, bool all_columns, uint64_t max_bytes) const {
    std::vector<Row> rows(ids.size());
    {
      py::gil_scoped_release nogil;
      uint64_t held = 0;
      for (size_t i = 0; i < ids.size(); ++i) {
        rows[i] = ValueOrThrow(reader_->ReadRow(ids[i], all_columns ? nullptr : &projection_));
        held += rows[i].value_bytes();
        if (max_bytes > 0 && held > max_bytes) {
          ThrowIfError(Status::InvalidArgument(
              "the " + std::to_string(ids.size()) + " rows asked for hold more than " + std::to_string(max_bytes) +
              " bytes once read (the first " + std::to_string(i + 1) + " of them, up to row " + std::to_string(ids[i]) +
              ", hold " + std::to_string(held) + "); ask for fewer rows at a time"));
        }
      }
    }
    py::list out(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) out[i] = RowToPy(std::move(rows[i]));
    return out;
  }

  // [(value, [row ids])] for each distinct value of index field `field`.
  py::list GroupBy(const std::string& field) const {
    std::vector<std::pair<Value, std::vector<uint64_t>>> groups;
    {
      py::gil_scoped_release nogil;
      groups = ValueOrThrow(reader_->GroupByIndexField(field));
    }
    py::list out;
    for (auto& [v, ids] : groups) out.append(py::make_tuple(ValueToPy(std::move(v)), py::cast(ids)));
    return out;
  }

 private:
  uint64_t ChunkEndImpl(uint64_t begin, uint64_t max_rows, uint64_t max_bytes, uint64_t* bytes) const {
    const uint64_t n = reader_->num_rows();
    uint64_t end = std::min(begin, n);
    *bytes = 0;
    while (end < n && end - begin < std::max<uint64_t>(max_rows, 1)) {
      const uint64_t b = ValueOrThrow(reader_->StoredBytes(end, &projection_));
      if (*bytes + b > max_bytes && end > begin) break;
      *bytes += b;
      ++end;
    }
    return end;
  }

  // Reads [begin, end), whose stored bytes are `bytes` (or, when more than
  // threads * kMinBytesPerThread, at least that), in as many parts as the
  // bytes give threads; see ReadRange.
  py::list Read(uint64_t begin, uint64_t end, uint64_t bytes, uint32_t threads, uint64_t max_bytes, bool zero_copy) {
    std::vector<std::unique_ptr<RowChunk>> parts_out;
    {
      py::gil_scoped_release nogil;
      const uint64_t n = end - begin;
      const uint64_t parts = std::clamp<uint64_t>(std::min<uint64_t>(threads, bytes / kMinBytesPerThread), 1,
                                                  std::max<uint64_t>(n, 1));
      std::vector<Status> errs(parts);
      std::atomic<uint64_t> held{0};
      std::atomic<bool> full{false};
      for (uint64_t p = 0; p < parts; ++p) parts_out.push_back(TakeChunk());
      auto work = [&](uint64_t p) {
        const uint64_t b = begin + n * p / parts, e = begin + n * (p + 1) / parts;
        RowChunk& out = *parts_out[p];
        errs[p] = reader_->ScanViews(b, e, &projection_, [&](uint64_t, const RowView& r) {
          if (full) return Status::Cancelled("chunk full");
          out.Add(r);
          const uint64_t bytes = r.value_bytes();
          if (max_bytes > 0 && held.fetch_add(bytes) + bytes > max_bytes) {
            full = true;
            return Status::Cancelled("chunk full");
          }
          return Status::OK();
        });
      };
      std::vector<std::thread> pool;
      for (uint64_t p = 1; p < parts; ++p) pool.emplace_back(work, p);
      work(0);
      for (auto& t : pool) t.join();
      for (auto& s : errs) {
        if (!(full && s.code() == StatusCode::kCancelled)) {
          if (!s.ok()) GiveBack(&parts_out);
          ThrowIfError(s);
        }
      }
      if (full) {
        // The rows up to the first one not read: whole parts, then the part
        // that stopped short.
        for (uint64_t p = 0; p < parts; ++p) {
          const uint64_t want = n * (p + 1) / parts - n * p / parts;
          if (parts_out[p]->rows() < want) {
            for (uint64_t q = p + 1; q < parts; ++q) parts_out[q]->Clear();
            break;
          }
        }
      }
    }
    py::list out;
    try {
      for (const auto& part : parts_out) part->AppendRows(keys_, ValueStyle::kPython, zero_copy, &out, {});
    } catch (...) {
      GiveBack(&parts_out);
      throw;
    }
    GiveBack(&parts_out);
    return out;
  }

  // Chunks are reused from call to call: their buffers stay allocated
  // (mapped and faulted in) instead of being allocated afresh per chunk;
  // one that grew past kKeepChunkBytes is dropped instead.
  static constexpr uint64_t kKeepChunkBytes = uint64_t{8} << 20;
  std::unique_ptr<RowChunk> TakeChunk() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.empty()) return std::make_unique<RowChunk>(slots_);
    auto c = std::move(pool_.back());
    pool_.pop_back();
    return c;
  }
  void GiveBack(std::vector<std::unique_ptr<RowChunk>>* chunks) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    for (auto& c : *chunks) {
      if (c->capacity_bytes() > kKeepChunkBytes) continue;
      c->Clear();
      pool_.push_back(std::move(c));
    }
    chunks->clear();
  }

  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  std::vector<size_t> slots_;     // 0 .. columns - 1
  std::vector<py::object> keys_;  // the dicts' keys, per column
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<RowChunk>> pool_;  // chunks not in use
};

}  // namespace

void BindIo(py::module_& m) {
  m.attr("MIN_HEADER_SIZE") = kMinHeaderSize;
  m.attr("MAX_HEADER_SIZE") = kMaxHeaderSize;
  m.attr("DEFAULT_HEADER_SIZE") = kDefaultHeaderSize;
  m.attr("MIN_PAGE_SIZE") = kMinPageSize;
  m.attr("MAX_PAGE_SIZE") = kMaxPageSize;
  m.attr("DEFAULT_PAGE_SIZE") = kDefaultPageSize;
  py::tuple io_modes(std::size(kIoModes));  // the reader's one list of I/O mode names
  for (size_t i = 0; i < std::size(kIoModes); ++i) io_modes[i] = IoModeName(kIoModes[i]);
  m.attr("IO_MODES") = io_modes;
  // Validates a user schema and (when given) index fields, as the writer would.
  m.def("check_schema", [](const std::string& schema_json, const std::string& desc,
                           const std::optional<std::vector<std::string>>& index_fields) {
    Schema s = ValueOrThrow(Schema::FromUserJsonString(schema_json, desc));
    if (index_fields) ThrowIfError(s.ValidateIndexFields(*index_fields));
  }, py::arg("schema_json"), py::arg("desc"), py::arg("index_fields"));
  // What remote reads cost this process so far (readers/remote_file.h).
  m.def("remote_counters", [] {
    const RemoteCounters c = GetRemoteCounters();
    py::dict d;
    d["requests"] = c.requests;
    d["bytes_fetched"] = c.bytes_fetched;
    d["retries"] = c.retries;
    d["memory_hits"] = c.memory_hits;
    d["disk_hits"] = c.disk_hits;
    d["disk_damaged"] = c.disk_damaged;
    d["pieces_fetched"] = c.pieces_fetched;
    return d;
  });
  // Forgets the remote pieces this process holds in memory (the disk cache
  // stays): the next read is what a new process would do.
  m.def("drop_remote_memory", [] { DropRemoteMemory(); });
  // readers/recover.h: mode "open", "roll_back" or "discard"; the lines done.
  m.def("recover", [](const std::string& path, const std::string& mode) {
    const RecoverMode m = mode == "roll_back" ? RecoverMode::kRollBack
                          : mode == "discard" ? RecoverMode::kDiscard
                                              : RecoverMode::kAsOpen;
    py::gil_scoped_release nogil;
    return ValueOrThrow(Recover(path, m));
  }, py::arg("path"), py::arg("mode"));
  py::class_<PyWriter>(m, "Writer")
      .def(py::init<const std::string&, const std::string&, const std::string&, uint32_t, uint64_t, uint64_t,
                    std::optional<std::vector<std::string>>, bool, bool, const std::string&,
                    const std::string&, bool>(),
           py::arg("path"), py::arg("schema_json"), py::arg("desc"), py::arg("shard_count"), py::arg("header_size"),
           py::arg("page_size"), py::arg("index_fields"), py::arg("overwrite"), py::arg("checksums") = true,
           py::arg("format_version") = "3.0", py::arg("compression") = "none", py::arg("direct_writes") = false)
      .def("write", &PyWriter::Write, py::arg("rows"), py::arg("first_index") = 0)
      .def("commit", &PyWriter::Commit, py::arg("protect") = false)
      .def("abandon", &PyWriter::Abandon)
      .def_property_readonly("rows_written", &PyWriter::rows_written)
      .def_property_readonly("direct_shards", &PyWriter::direct_shards)
      .def_property_readonly("shard_paths", &PyWriter::shard_paths)
      .def_property_readonly("schema_json", &PyWriter::schema_json)
      .def_property_readonly("compression", &PyWriter::compression)
      .def_static("open_for_append", &PyWriter::OpenForAppend, py::arg("path"));

  py::class_<PyReader>(m, "Reader")
      .def(py::init<const std::string&, const std::vector<std::string>&, const std::string&,
                    const std::vector<std::string>&, bool, const std::string&>(),
           py::arg("path"), py::arg("columns") = std::vector<std::string>{}, py::arg("io_mode") = "auto",
           py::arg("files") = std::vector<std::string>{}, py::arg("mapped") = false, py::arg("remote") = "")
      .def_property_readonly("num_rows", &PyReader::num_rows)
      .def_property_readonly("shard_io_modes", &PyReader::shard_io_modes)
      .def_property_readonly("warnings", &PyReader::warnings)
      .def_property_readonly("schema_json", &PyReader::schema_json)
      .def_property_readonly("desc", &PyReader::desc)
      .def_property_readonly("blob_fields", &PyReader::blob_fields)
      .def_property_readonly("index_fields", &PyReader::index_fields)
      .def_property_readonly("shard_paths", &PyReader::shard_paths)
      .def_property_readonly("shard_rows", &PyReader::shard_rows)
      .def_property_readonly("version", &PyReader::version)
      .def_property_readonly("header_size", &PyReader::header_size)
      .def_property_readonly("page_size", &PyReader::page_size)
      .def_property_readonly("compression_json", &PyReader::compression_json)
      .def("read_range", &PyReader::ReadRange, py::arg("begin"), py::arg("end"), py::arg("threads") = 1,
           py::arg("max_bytes") = 0, py::arg("zero_copy") = false)
      .def("chunk_end", &PyReader::ChunkEnd, py::arg("begin"), py::arg("max_rows"), py::arg("max_bytes"))
      .def("read_chunk", &PyReader::ReadChunk, py::arg("begin"), py::arg("max_rows"), py::arg("max_bytes"),
           py::arg("threads") = 1, py::arg("zero_copy") = false)
      .def("read_ids", &PyReader::ReadIds, py::arg("ids"), py::arg("all_columns") = false, py::arg("max_bytes") = 0)
      .def("group_by", &PyReader::GroupBy, py::arg("field"));
}

}  // namespace mindrecord::py_binding
