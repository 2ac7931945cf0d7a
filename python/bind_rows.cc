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
#include "python/bind_values.h"
#include "python/py_common.h"
#include "readers/shard_reader.h"

namespace mindrecord::py_binding {

namespace {

// Rows per chunk at most; the chunk's stored bytes are capped separately.
constexpr size_t kChunkRows = 1024;

// Thread safety: one thread at a time (the GIL serialises Python callers).
class PyRowStream {
 public:
  PyRowStream(const std::string& plan_json, const std::optional<std::string>& resume_json, uint64_t read_ahead_bytes,
              const std::string& value_style, bool zero_copy)
      : read_ahead_(std::max<uint64_t>(read_ahead_bytes, 1)), zero_copy_(zero_copy) {
    style_ = ValueOrThrow(ParseValueStyle(value_style));
    plan_ = ValueOrThrow(Plan::Parse(plan_json));
    if (!plan_.ops.empty() || !plan_.padded.is_null() || plan_.batch.batch_size != 1 || plan_.source.empty()) {
      throw StatusError(Status::InvalidArgument("RowStream: the plan must read rows (batch_size 1) without ops or "
                                                "padding"));
    }
    const ReaderOptions ro = plan_.ReaderOptionsForSource();  // as the pipeline's runtime opens it
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
    // Output columns in the plan's order; the views hold them in schema order.
    std::vector<size_t> slots;
    for (const auto& n : names) {
      const auto& ids = projection_.field_ids;
      slots.push_back(static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), schema.FieldIndex(n)) - ids.begin()));
      keys_.push_back(py::str(n));
    }
    chunk_ = std::make_unique<RowChunk>(std::move(slots));
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
    py::list out;
    chunk_->AppendDicts(keys_, style_, zero_copy_, &out);
    state_.position += chunk_->rows();
    state_.rows += chunk_->rows();
    chunk_->Clear();
    return out;
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
    chunk_->Clear();
    reader_.reset();
  }

 private:
  // Reads the next chunk into chunk_; false at the end of the last epoch.
  bool Fill() {
    chunk_->Clear();
    if (!reader_ || size_ == 0) return false;
    if (state_.position >= size_) {
      if (plan_.epochs != 0 && state_.epoch + 1 >= plan_.epochs) return false;
      state_.epoch++;
      state_.position = 0;
    }
    if (plan_.epochs != 0 && state_.epoch >= plan_.epochs) return false;
    py::gil_scoped_release nogil;
    if (ids_epoch_ != static_cast<int64_t>(state_.epoch)) {
      ids_ = ValueOrThrow(sampler_->Epoch(plan_.seed, state_.epoch));
      ids_epoch_ = static_cast<int64_t>(state_.epoch);
    }
    // A chunk: up to kChunkRows rows, cut short before the row that takes
    // its stored bytes, or the bytes its values hold (compressed rows
    // inflate beyond what they store), past read_ahead_ (at least one row).
    // Views of a mapped shard are kept as references, other rows copied once.
    const uint64_t end = std::min<uint64_t>(size_, state_.position + kChunkRows);
    const std::vector<uint64_t> chunk(ids_.begin() + static_cast<ptrdiff_t>(state_.position),
                                      ids_.begin() + static_cast<ptrdiff_t>(end));
    uint64_t stored = 0;
    bool full = false;
    Status st = reader_->ReadRowViews(chunk, &projection_, [&](size_t, const Status& s, const RowView& v) -> Status {
      MR_RETURN_IF_ERROR(s);
      stored += v.stored_bytes();
      if (chunk_->rows() > 0 && (stored > read_ahead_ || chunk_->value_bytes() + v.value_bytes() > read_ahead_)) {
        full = true;
        return Status::Cancelled("chunk full");
      }
      chunk_->Add(v);
      return Status::OK();
    });
    if (!full) ThrowIfError(st);
    return chunk_->rows() > 0;
  }

  Plan plan_;
  uint64_t read_ahead_;
  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  ValueStyle style_ = ValueStyle::kNumpy;
  bool zero_copy_ = false;
  std::vector<py::object> keys_;     // output column names
  std::unique_ptr<RowChunk> chunk_;  // the chunk being made
  std::unique_ptr<Sampler> sampler_;
  uint64_t size_ = 0;
  PipelineState state_;  // after the rows handed out
  std::vector<uint64_t> ids_;
  int64_t ids_epoch_ = -1;
};

}  // namespace

void BindRows(py::module_& m) {
  py::class_<PyRowStream>(m, "RowStream")
      .def(py::init<const std::string&, const std::optional<std::string>&, uint64_t, const std::string&, bool>(),
           py::arg("plan_json"),
           py::arg("resume_json") = py::none(), py::arg("read_ahead_bytes") = uint64_t{16} << 20,
           py::arg("value_style") = "mindspore", py::arg("zero_copy") = false)
      .def("next_chunk", &PyRowStream::NextChunk)
      .def("state", &PyRowStream::State)
      .def("stats", &PyRowStream::Stats)
      .def("close", &PyRowStream::Close);
}

}  // namespace mindrecord::py_binding
