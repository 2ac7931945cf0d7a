// RowStream of mindrecord._core: an unbatched MindDataset without map ops,
// read as rows in the sampler's order without the pipeline's worker threads.
// Rows are read a chunk at a time with the GIL released and handed to Python
// as one list of dicts, so crossing into Python costs per chunk, not per row
// (the Python side iterates the lists with itertools.chain). The order, the
// resume state and
// the value types are those of the pipeline with batch_size 1 (the same
// sampler, seed and fingerprint), so either path resumes the other's state.
#include <algorithm>
#include <optional>

#include <pybind11/stl.h>

#include "pipeline/plan.h"
#include "pipeline/sampler.h"
#include "pipeline/stats.h"
#include "python/py_common.h"
#include "readers/shard_reader.h"

namespace mindrecord::py_binding {

namespace {

// Rows per chunk at most; the chunk's stored bytes are capped separately.
constexpr size_t kChunkRows = 1024;

// Thread safety: one thread at a time (the GIL serialises Python callers).
class PyRowStream {
 public:
  PyRowStream(const std::string& plan_json, const std::optional<std::string>& resume_json, uint64_t read_ahead_bytes)
      : read_ahead_(std::max<uint64_t>(read_ahead_bytes, 1)) {
    plan_ = ValueOrThrow(Plan::Parse(plan_json));
    if (!plan_.ops.empty() || !plan_.padded.is_null() || plan_.batch.batch_size != 1 || plan_.source.empty()) {
      throw StatusError(Status::InvalidArgument("RowStream: the plan must read rows (batch_size 1) without ops or "
                                                "padding"));
    }
    ReaderOptions ro;  // as the pipeline's runtime opens it
    ro.io_mode = ValueOrThrow(ParseIoMode(plan_.io_mode));
    ro.auto_cached_mode = IoMode::kMmap;
    ro.auto_direct_above = plan_.auto_direct_above;
    ro.direct_fallback = plan_.direct_fallback;
    if (plan_.source.size() > 1 || plan_.source_list) ro.shard_paths = plan_.source;
    {
      py::gil_scoped_release nogil;
      reader_ = ValueOrThrow(ShardReader::Open(plan_.source[0], ro));
    }
    const Schema& schema = reader_->schema();
    std::vector<std::string> names = plan_.columns;
    if (names.empty()) {
      for (const auto& f : schema.fields()) names.push_back(f.name);
    }
    projection_ = ValueOrThrow(reader_->MakeProjection(names));
    for (const auto& n : names) columns_.push_back(Column{n, py::str(n), *schema.Find(n)});
    sampler_ = ValueOrThrow(MakeSampler(plan_.sampler, LayoutOf(*reader_, 0)));
    size_ = sampler_->size();
    state_.seed = plan_.seed;
    state_.fingerprint = plan_.SequenceFingerprint();
    if (resume_json) {
      auto j = nlohmann::json::parse(*resume_json, nullptr, false);
      if (j.is_discarded()) throw StatusError(Status::InvalidArgument("resume state is not valid JSON"));
      PipelineState r = ValueOrThrow(PipelineState::FromJson(j));
      if (r.fingerprint != state_.fingerprint || r.seed != plan_.seed) {
        throw StatusError(Status::InvalidArgument(
            "resume state belongs to another plan (source, columns, sampler, ops, batch, seed or on_error differ)"));
      }
      if (r.position > size_) {
        throw StatusError(Status::InvalidArgument("resume state: position " + std::to_string(r.position) +
                                                  " is past the epoch's " + std::to_string(size_) + " rows"));
      }
      state_ = r;
    }
  }

  // The next chunk of rows as a list of dicts; None after the last. state()
  // counts the chunk as handed out.
  py::object NextChunk() {
    if (!Fill()) return py::none();
    py::list out(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) out[i] = std::move(rows_[i]);
    state_.position += rows_.size();
    state_.rows += rows_.size();
    rows_.clear();
    return std::move(out);
  }

  std::string State() const { return state_.ToJson().dump(); }
  std::string Stats() const {
    nlohmann::json j = {{"rows", state_.rows}, {"path", "rows"}};
    if (reader_) {
      std::vector<std::string> modes;
      for (uint32_t s = 0; s < reader_->num_shards(); ++s) modes.push_back(IoModeName(reader_->shard_io_mode(s)));
      std::string mode = modes.empty() ? "" : modes[0];
      for (const auto& m : modes) mode = m == mode ? mode : "mixed";
      j["io_mode"] = mode;
      j["shard_io_modes"] = modes;
    }
    return j.dump();
  }
  void Close() {
    rows_.clear();
    reader_.reset();
  }

 private:
  struct Column {
    std::string name;
    py::str key;
    Field field;
  };

  // Reads the next chunk; false at the end of the last epoch.
  bool Fill() {
    rows_.clear();
    if (!reader_ || size_ == 0) return false;
    if (state_.position >= size_) {
      if (plan_.epochs != 0 && state_.epoch + 1 >= plan_.epochs) return false;
      state_.epoch++;
      state_.position = 0;
    }
    if (plan_.epochs != 0 && state_.epoch >= plan_.epochs) return false;
    std::vector<Row> rows;
    {
      py::gil_scoped_release nogil;
      if (ids_epoch_ != static_cast<int64_t>(state_.epoch)) {
        ids_ = ValueOrThrow(sampler_->Epoch(plan_.seed, state_.epoch));
        ids_epoch_ = static_cast<int64_t>(state_.epoch);
      }
      // A chunk: up to kChunkRows rows and read_ahead_ stored bytes (at least
      // one row), cut short once the rows read hold more than read_ahead_
      // (compressed rows inflate beyond what they store).
      std::vector<uint64_t> chunk;
      uint64_t bytes = 0;
      for (uint64_t p = state_.position; p < size_ && chunk.size() < kChunkRows; ++p) {
        bytes += ValueOrThrow(reader_->StoredBytes(ids_[p], &projection_));
        if (bytes > read_ahead_ && !chunk.empty()) break;
        chunk.push_back(ids_[p]);
      }
      rows.resize(chunk.size());
      uint64_t held = 0;
      size_t got = 0;
      bool full = false;
      Status st = reader_->ReadRows(chunk, &projection_, [&](size_t i, Result<Row>&& r) -> Status {
        if (!r.ok()) return r.status();
        rows[i] = std::move(r).value();
        got = i + 1;
        held += rows[i].value_bytes();
        if (held > read_ahead_ && got < chunk.size()) {
          full = true;
          return Status::Cancelled("chunk full");
        }
        return Status::OK();
      });
      if (!full) ThrowIfError(st);
      rows.resize(got);
    }
    rows_.reserve(rows.size());
    for (Row& r : rows) rows_.push_back(ToDict(std::move(r)));
    return !rows_.empty();
  }

  py::object ToDict(Row&& row) {
    py::dict d;
    auto fields = std::move(row).TakeFields();
    for (const Column& c : columns_) {
      auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == c.name; });
      if (it == fields.end()) {
        d[c.key] = py::none();
        continue;
      }
      // MindSpore's types, as the pipeline path gives them (dataset.py).
      d[c.key] = MindSporeValueToPy(std::move(it->second), c.field);
    }
    return std::move(d);
  }

  Plan plan_;
  uint64_t read_ahead_;
  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  std::vector<Column> columns_;
  std::unique_ptr<Sampler> sampler_;
  uint64_t size_ = 0;
  PipelineState state_;  // after the rows handed out
  std::vector<uint64_t> ids_;
  int64_t ids_epoch_ = -1;
  std::vector<py::object> rows_;  // the chunk being made
};

}  // namespace

void BindRows(py::module_& m) {
  py::class_<PyRowStream>(m, "RowStream")
      .def(py::init<const std::string&, const std::optional<std::string>&, uint64_t>(), py::arg("plan_json"),
           py::arg("resume_json") = py::none(), py::arg("read_ahead_bytes") = uint64_t{16} << 20)
      .def("next_chunk", &PyRowStream::NextChunk)
      .def("state", &PyRowStream::State)
      .def("stats", &PyRowStream::Stats)
      .def("close", &PyRowStream::Close);
}

}  // namespace mindrecord::py_binding
