// RowStream of mindrecord._core: an unbatched MindDataset without map ops,
// read as rows in the sampler's order without the pipeline's worker threads.
// Rows are read a chunk at a time with the GIL released and handed to Python
// as one list of dicts (or of lists), so crossing into Python costs per
// chunk, not per row (the Python side iterates them with itertools.chain). One reader
// thread reads and copies the next chunk while Python takes the current one.
// The order, the resume state and the value types are those of the pipeline
// with batch_size 1 (the same sampler, seed and fingerprint), so either path
// resumes the other's state.
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <pybind11/stl.h>

#include "pipeline/plan.h"
#include "pipeline/sampler.h"
#include "pipeline/stats.h"
#include "python/bind_values.h"
#include "python/py_common.h"
#include "readers/shard_reader.h"

namespace mindrecord::py_binding {

namespace {

// Rows per chunk: the first chunk (read while the caller waits) holds up to
// kFirstChunkRows, each next one twice as many as the one before, up to
// kChunkRows. Every chunk costs a handoff between two threads (a few futex
// calls: 20-30 us each on a virtual machine); chunks of 4,096 rows of
// ~1 KiB read a shuffled epoch 1.25x as fast as chunks of 1,024 and
// faster than chunks of 8,192 (which fall out of the cache). The chunk's
// stored bytes are capped separately.
constexpr size_t kFirstChunkRows = 256;
constexpr size_t kChunkRows = 4096;

// Where the next chunk starts: an epoch and a position in its order.
struct Cursor {
  uint64_t epoch = 0, position = 0;
};

// A chunk read ahead, or why there is none.
struct Prepared {
  std::unique_ptr<RowChunk> chunk;
  Status status;     // reading it failed (it holds nothing then)
  bool end = false;  // no rows are left
  Cursor after;      // where the chunk after it starts
};

// Thread safety: one thread at a time (the GIL serialises Python callers).
// While a chunk is handed out, the next one is read and copied by the
// stream's reader thread, which touches no Python object; the two never
// work on the same chunk.
class PyRowStream {
 public:
  PyRowStream(const std::string& plan_json, const std::optional<std::string>& resume_json, uint64_t read_ahead_bytes,
              const std::string& value_style, bool zero_copy, bool lists, const py::object& array_type)
      : chunk_bytes_(std::max<uint64_t>(read_ahead_bytes / 2, 1)), zero_copy_(zero_copy), pid_(::getpid()) {
    style_ = ValueOrThrow(ParseValueStyle(value_style));
    rows_as_.lists = lists;
    if (!array_type.is_none()) {
      PyTypeObject* ndarray = py::detail::npy_api::get().PyArray_Type_;
      if (!PyType_Check(array_type.ptr()) ||
          !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(array_type.ptr()), ndarray)) {
        throw py::type_error("RowStream: array_type must be a subclass of numpy.ndarray");
      }
      array_type_ = array_type;  // held while the stream lives
      rows_as_.array_type = reinterpret_cast<PyTypeObject*>(array_type_.ptr());
    }
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
    for (const auto& n : names) {
      const auto& ids = projection_.field_ids;
      slots_.push_back(
          static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), schema.FieldIndex(n)) - ids.begin()));
      keys_.push_back(py::str(n));
    }
    ahead_ = std::make_unique<Ahead>();
    ahead_->sampler = ValueOrThrow(MakeSampler(plan_.sampler, LayoutOf(*reader_, 0)));
    size_ = ahead_->sampler->size();
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

  ~PyRowStream() {
    if (::getpid() != pid_) {
      // A forked copy: the reader thread, and the locks it may have held at
      // the fork, exist only in the parent. Joining or freeing what it used
      // could hang or crash, so that is left as it is for the process's life.
      (void)ahead_.release();
      (void)reader_.release();
      return;
    }
    StopThread();
  }

  // The next chunk of rows as a list of dicts (of lists with `lists`, values
  // of `array_type` for arrays); None after the last. state()
  // counts the chunk as handed out. The first call reads its chunk itself;
  // every call then has the reader thread read the next one meanwhile.
  py::object NextChunk() {
    if (::getpid() != pid_) {
      if (ahead_ && ahead_->thread.joinable()) {
        throw StatusError(Status::NotSupported("this row stream was read from in another process (before a fork); "
                                               "open one in this process"));
      }
      pid_ = ::getpid();  // never read from before the fork: nothing the parent holds is shared
    }
    if (!reader_) return py::none();
    Prepared p;
    {
      py::gil_scoped_release nogil;
      if (requested_) {
        p = Await();
      } else {
        p = Read(Cursor{state_.epoch, state_.position}, std::move(spare_));
      }
      if (p.status.ok() && !p.end) Request(p.after, std::move(current_));
    }
    if (!p.status.ok()) {
      spare_ = std::move(p.chunk);
      throw StatusError(p.status);
    }
    if (p.end) return py::none();
    current_ = std::move(p.chunk);
    py::list out;
    current_->AppendRows(keys_, style_, zero_copy_, &out, rows_as_);
    state_.epoch = p.after.epoch;
    state_.position = p.after.position;
    state_.rows += current_->rows();
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
    if (::getpid() != pid_) return;  // the parent's: left as it is (see the destructor)
    {
      py::gil_scoped_release nogil;
      StopThread();
    }
    current_.reset();
    spare_.reset();
    reader_.reset();
  }

 private:
  // What the reader thread and the calling thread share: the request, the
  // chunk read ahead, and the sampler's order (read by whichever reads).
  struct Ahead {
    std::mutex mu;
    std::condition_variable cv;
    std::thread thread;
    bool stop = false;
    bool want = false;       // a chunk is asked for at `at`
    bool ready = false;      // `prepared` holds it
    Cursor at;
    std::unique_ptr<RowChunk> free;  // a chunk to read into
    Prepared prepared;
    std::unique_ptr<Sampler> sampler;
    std::vector<uint64_t> ids;  // the order of epoch ids_epoch
    int64_t ids_epoch = -1;
  };

  // Asks the reader thread for the chunk at `at`, read into `into` (its
  // earlier rows are dropped); starts the thread the first time.
  void Request(Cursor at, std::unique_ptr<RowChunk> into) {
    Ahead& a = *ahead_;
    {
      std::lock_guard<std::mutex> lk(a.mu);
      a.want = true;
      a.at = at;
      a.free = std::move(into);
    }
    if (!a.thread.joinable()) {
      a.thread = std::thread([this] { Run(); });
    } else {
      a.cv.notify_all();
    }
    requested_ = true;
  }

  Prepared Await() {
    Ahead& a = *ahead_;
    std::unique_lock<std::mutex> lk(a.mu);
    a.cv.wait(lk, [&] { return a.ready; });
    a.ready = false;
    requested_ = false;
    return std::move(a.prepared);
  }

  void Run() {
    Ahead& a = *ahead_;
    std::unique_lock<std::mutex> lk(a.mu);
    for (;;) {
      a.cv.wait(lk, [&] { return a.stop || a.want; });
      if (a.stop) return;
      a.want = false;
      const Cursor at = a.at;
      std::unique_ptr<RowChunk> chunk = std::move(a.free);
      lk.unlock();
      Prepared p = Read(at, std::move(chunk));
      lk.lock();
      a.prepared = std::move(p);
      a.ready = true;
      // Woken after the unlock, the caller does not wait for this mutex.
      lk.unlock();
      a.cv.notify_all();
      lk.lock();
    }
  }

  void StopThread() {
    if (!ahead_ || !ahead_->thread.joinable()) return;
    {
      std::lock_guard<std::mutex> lk(ahead_->mu);
      ahead_->stop = true;
    }
    ahead_->cv.notify_all();
    ahead_->thread.join();
    requested_ = false;
  }

  // Reads the chunk at `at` into `chunk` (a new one when null) and copies
  // its values as AppendRows will hand them out. Runs without the GIL, on
  // the calling thread or the reader thread; never throws.
  Prepared Read(Cursor at, std::unique_ptr<RowChunk> chunk) const {
    Prepared p;
    p.chunk = chunk ? std::move(chunk) : std::make_unique<RowChunk>(slots_);
    p.chunk->Clear();
    try {
      Ahead& a = *ahead_;
      if (size_ == 0) {
        p.end = true;
        return p;
      }
      if (at.position >= size_) {
        if (plan_.epochs != 0 && at.epoch + 1 >= plan_.epochs) {
          p.end = true;
          return p;
        }
        at.epoch++;
        at.position = 0;
      }
      if (plan_.epochs != 0 && at.epoch >= plan_.epochs) {
        p.end = true;
        return p;
      }
      if (a.ids_epoch != static_cast<int64_t>(at.epoch)) {
        a.ids = ValueOrThrow(a.sampler->Epoch(plan_.seed, at.epoch));
        a.ids_epoch = static_cast<int64_t>(at.epoch);
      }
      // A chunk: up to chunk_rows_ rows, cut short before the row that takes
      // its stored bytes, or the bytes its values hold (compressed rows
      // inflate beyond what they store), past chunk_bytes_ (at least one
      // row). Views of a mapped shard are kept as references, other rows
      // copied once.
      const uint64_t end = std::min<uint64_t>(size_, at.position + chunk_rows_);
      chunk_rows_ = std::min(chunk_rows_ * 2, kChunkRows);
      const std::vector<uint64_t> ids(a.ids.begin() + static_cast<ptrdiff_t>(at.position),
                                      a.ids.begin() + static_cast<ptrdiff_t>(end));
      RowChunk& c = *p.chunk;
      uint64_t stored = 0;
      bool full = false;
      Status st = reader_->ReadRowViews(ids, &projection_, [&](size_t, const Status& s, const RowView& v) -> Status {
        MR_RETURN_IF_ERROR(s);
        stored += v.stored_bytes();
        if (c.rows() > 0 && (stored > chunk_bytes_ || c.value_bytes() + v.value_bytes() > chunk_bytes_)) {
          full = true;
          return Status::Cancelled("chunk full");
        }
        c.Add(v);
        return Status::OK();
      });
      if (!full && !st.ok()) {
        c.Clear();
        p.status = st;
        return p;
      }
      c.Place(style_, zero_copy_);
      p.end = c.rows() == 0;
      p.after = Cursor{at.epoch, at.position + c.rows()};
    } catch (const StatusError& e) {
      p.status = e.status();
    } catch (const std::exception& e) {
      p.status = Status::Internal(std::string("reading rows: ") + e.what());
    }
    if (!p.status.ok()) p.chunk->Clear();
    return p;
  }

  Plan plan_;
  uint64_t chunk_bytes_;  // half the read-ahead: two chunks are held at once
  // Rows of the next chunk at most. Read() runs on one thread at a time (the
  // caller's, or the reader thread's between a Request and its Await).
  mutable size_t chunk_rows_ = kFirstChunkRows;
  std::unique_ptr<ShardReader> reader_;
  Projection projection_;
  ValueStyle style_ = ValueStyle::kNumpy;
  bool zero_copy_ = false;
  RowChunk::RowsAs rows_as_;
  py::object array_type_;  // keeps rows_as_.array_type alive
  pid_t pid_;
  std::vector<size_t> slots_;
  std::vector<py::object> keys_;       // output column names
  std::unique_ptr<RowChunk> current_;  // the chunk handed out last
  std::unique_ptr<RowChunk> spare_;    // a chunk to read into on this thread
  std::unique_ptr<Ahead> ahead_;
  bool requested_ = false;  // the reader thread is reading (or has read) the next chunk
  uint64_t size_ = 0;
  PipelineState state_;  // after the rows handed out
};

}  // namespace

void BindRows(py::module_& m) {
  py::class_<PyRowStream>(m, "RowStream")
      .def(py::init<const std::string&, const std::optional<std::string>&, uint64_t, const std::string&, bool, bool,
                    const py::object&>(),
           py::arg("plan_json"),
           py::arg("resume_json") = py::none(), py::arg("read_ahead_bytes") = uint64_t{16} << 20,
           py::arg("value_style") = "mindspore", py::arg("zero_copy") = false, py::arg("lists") = false,
           py::arg("array_type") = py::none())
      .def("next_chunk", &PyRowStream::NextChunk)
      .def("state", &PyRowStream::State)
      .def("stats", &PyRowStream::Stats)
      .def("close", &PyRowStream::Close);
}

}  // namespace mindrecord::py_binding
