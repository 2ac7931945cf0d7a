// Pipeline and Convert bindings of mindrecord._core.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <pybind11/stl.h>

#include "pipeline/nodes/compile.h"
#include "pipeline/nodes/csv_source.h"
#include "pipeline/nodes/catalog_source.h"
#include "pipeline/nodes/celeba_source.h"
#include "pipeline/nodes/image_list_source.h"
#include "pipeline/nodes/imdb_source.h"
#include "pipeline/nodes/tagged_source.h"
#include "pipeline/nodes/text_source.h"
#include "pipeline/nodes/tfrecord_source.h"
#include "pipeline/padded.h"
#include "pipeline/pipeline.h"
#include "pipeline/sampler.h"
#include "pipeline/save.h"
#include "pipeline/tensor.h"
#include "readers/shard_reader.h"
#include "python/bind_values.h"
#include "mindrecord/encryption.h"
#include "python/py_common.h"
#include "python/worker_gil.h"
#include "writers/convert/converter.h"
#include "writers/convert/launch.h"
#include "writers/convert/rank_group.h"

namespace mindrecord::py_binding {

namespace {

py::object TensorToPyScalarList(const Tensor& t, int64_t rows) {
  // bytes / string columns: one Python object per row.
  py::list out;
  const int64_t per = rows > 0 ? static_cast<int64_t>(t.size_bytes()) / rows : 0;
  const char* p = reinterpret_cast<const char*>(t.data());
  for (int64_t i = 0; i < rows; ++i) {
    if (t.type() == TensorType::kString)
      out.append(py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(p + i * per, per, "surrogateescape")));
    else
      out.append(py::bytes(p + i * per, per));
  }
  return out;
}

py::object OneTensor(const Tensor& t, bool zero_copy = false) {
  if (t.type() == TensorType::kString)
    return py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        reinterpret_cast<const char*>(t.data()), static_cast<Py_ssize_t>(t.size_bytes()), "surrogateescape"));
  if (t.type() == TensorType::kBytes) return py::bytes(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  return TensorToArray(t, zero_copy);
}

// Releases a batch buffer that a Python allocator provided: drops the strong
// reference to its Python object (`obj`), taking the GIL.
struct PyBufferRelease {
  PyObject* obj = nullptr;
  void operator()(void*) const {
    if (obj == nullptr || !Py_IsInitialized() || _Py_IsFinalizing()) return;  // Python is gone: leave it
    WorkerGil gil;
    Py_DECREF(obj);
  }
};

// A BatchAllocator over a Python callable `fn(dtype_name, shape) -> (obj,
// address, nbytes)`: obj owns at least nbytes writable bytes at address and
// becomes the batch column handed to Python (see BatchToPy). `fn` is
// borrowed: the PyPipeline keeps it alive for longer than its pipeline.
BatchAllocator PyAllocator(PyObject* fn) {
  return [fn](TensorType type, const std::vector<int64_t>& shape) -> Result<Tensor> {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
    int64_t elems = 1;
    for (int64_t d : shape) elems *= d;
    const size_t need = static_cast<size_t>(elems) * TensorTypeSize(type);
    WorkerGil gil;
    try {
      py::tuple dims(shape.size());
      for (size_t i = 0; i < shape.size(); ++i) dims[i] = py::int_(shape[i]);
      py::tuple r = py::reinterpret_borrow<py::object>(fn)(TensorDtype(type).attr("name"), dims);
      if (r.size() != 3) return Status::Internal("batch allocator: expected (object, address, nbytes)");
      const auto address = r[1].cast<uintptr_t>();
      const auto nbytes = r[2].cast<size_t>();
      if (nbytes < need || (need > 0 && address == 0))
        return Status::Internal("batch allocator returned " + std::to_string(nbytes) + " bytes, " +
                                std::to_string(need) + " needed");
      py::object obj = r[0];
      std::shared_ptr<void> owner(nullptr, PyBufferRelease{obj.inc_ref().ptr()});
      return Tensor::Wrap(type, shape, std::move(owner), reinterpret_cast<uint8_t*>(address));
    } catch (py::error_already_set& e) {
      return Status::Internal(std::string("batch allocator raised ") + e.what());
    } catch (const std::exception& e) {
      return Status::Internal(std::string("batch allocator: ") + e.what());
    }
  };
}

// The rows of a bytes or string column (contiguous: `rows` values of equal
// size; list: one tensor per row); empty when some row is of another type.
std::vector<std::string_view> TextRows(const BatchColumn& c, int64_t rows, TensorType type) {
  std::vector<std::string_view> out;
  if (c.is_list()) {
    out.reserve(c.list.size());
    for (const auto& t : c.list) {
      if (t.type() != type) return {};
      out.emplace_back(reinterpret_cast<const char*>(t.data()), t.size_bytes());
    }
    return out;
  }
  if (c.data.type() != type) return {};
  const size_t per = rows > 0 ? c.data.size_bytes() / static_cast<size_t>(rows) : 0;
  const char* p = reinterpret_cast<const char*>(c.data.data());
  for (int64_t i = 0; i < rows; ++i) out.emplace_back(p + static_cast<size_t>(i) * per, per);
  return out;
}

// Numeric columns become numpy arrays over the batch's own buffers (no copy),
// or, when built in buffers of the pipeline's Python allocator, the objects
// that allocator returned; ragged numeric columns in list mode become lists
// of arrays. Bytes and string columns become lists of bytes / str, or with
// kMindSpore MindSpore's batched values (BytesRowsToMindSpore /
// StringRowsToMindSpore; bytes in buffers the batch owns without a copy:
// BytesTensorsToMindSpore). `zero_copy`: rows of bytes (kMindSpore), ragged
// arrays and an unbatched row's array that lie in a mapped shard become
// read-only arrays over it (BytesTensorsToMindSpore, TensorToArray) instead
// of copies.
py::dict BatchToPy(Batch&& b, ValueStyle style, bool zero_copy) {
  py::dict d;
  const auto rows = static_cast<int64_t>(b.size());
  for (auto& c : b.columns) {
    if (c.is_list() && !c.list.empty() && c.list.front().type() == TensorType::kStrings) {
      // Arrays of strings of one shape stack into one str array, as MindSpore batches them.
      if (py::object v = StackedStrings(c.list)) {
        d[py::str(c.name)] = std::move(v);
        continue;
      }
    }
    if (style == ValueStyle::kMindSpore) {
      const TensorType first = c.is_list() ? (c.list.empty() ? TensorType::kUInt8 : c.list.front().type()) : c.data.type();
      // Buffers from the consumer's allocator are its to reuse: copied.
      const bool allocated = !c.is_list() && c.data.owner_deleter<PyBufferRelease>() != nullptr;
      if (first == TensorType::kBytes && (c.is_list() || rows == 1) && !allocated) {
        // (Not `c.is_list() ? c.list : std::vector<Tensor>{c.data}`: that
        // copies the list, a reference count taken and dropped per row.)
        py::object v = c.is_list() ? BytesTensorsToMindSpore(c.list, zero_copy)
                                   : BytesTensorsToMindSpore(std::vector<Tensor>{c.data}, zero_copy);
        if (v) {
          d[py::str(c.name)] = std::move(v);
          continue;
        }
      }
      if (first == TensorType::kBytes && !c.is_list() && !allocated && !c.data.read_only()) {
        // Rows of one length (or padded to one), stacked by the worker into
        // the batch's own buffer.
        d[py::str(c.name)] = TensorToArray(std::move(c.data));
        continue;
      }
      if (first == TensorType::kBytes || first == TensorType::kString) {
        std::vector<std::string_view> text = TextRows(c, rows, first);
        if (!text.empty()) {
          d[py::str(c.name)] = first == TensorType::kBytes ? BytesRowsToMindSpore(text) : StringRowsToMindSpore(text);
          continue;
        }
      }
    }
    if (c.is_list()) {
      py::list l;
      for (auto& t : c.list) l.append(OneTensor(t, zero_copy));
      d[py::str(c.name)] = l;
    } else if (c.data.type() == TensorType::kBytes || c.data.type() == TensorType::kString) {
      d[py::str(c.name)] = TensorToPyScalarList(c.data, rows);
    } else if (const auto* own = c.data.owner_deleter<PyBufferRelease>()) {
      d[py::str(c.name)] = py::reinterpret_borrow<py::object>(own->obj);
      c.data = Tensor();  // its reference dropped here, under the GIL, not by a worker
    } else {
      d[py::str(c.name)] = TensorToArray(std::move(c.data), zero_copy);
    }
  }
  return d;
}

class PyPipeline;
// Open pipelines, closed by an atexit hook before the interpreter finalizes
// (their workers may need the GIL for Python callables). Guarded by the GIL.
std::set<PyPipeline*>& LivePipelines() {
  static auto* s = new std::set<PyPipeline*>();
  return *s;
}

// Pipelines being stopped by a thread of their own (PyPipeline::Close on
// one of their workers). The exit hook waits for them: a worker still in a
// Python callable must not meet a finalizing interpreter.
struct StoppingPipelines {
  std::mutex mu;
  std::condition_variable cv;
  int count = 0;
  static StoppingPipelines& Get() {
    static auto* s = new StoppingPipelines();
    return *s;
  }
};

// Thread safety: next() is for one thread at a time (the GIL serialises
// Python callers); state() and stats() may be called at any time.
class PyPipeline {
 public:
  // `alloc`: optional Python batch allocator (see PyAllocator).
  // `style`: kMindSpore hands out bytes and string columns as MindSpore
  // batches them (see BatchToPy); other styles as lists of bytes / str.
  // `zero_copy` (kMindSpore): bytes rows in a mapped shard as read-only views.
  PyPipeline(const std::string& plan_json, const std::optional<std::string>& resume_json, py::object alloc,
             const std::string& style, bool zero_copy)
      : alloc_(std::move(alloc)), style_(ValueOrThrow(ParseValueStyle(style))), zero_copy_(zero_copy) {
    Plan plan = ValueOrThrow(Plan::Parse(plan_json));
    // Rows handed out as copies are copied by the workers, beside this
    // thread, not by it under the GIL.
    if (style_ == ValueStyle::kMindSpore && !zero_copy_) plan.copy_views = true;
    std::optional<PipelineState> resume;
    if (resume_json) resume = ValueOrThrow(PipelineState::FromJson(ParseJson(*resume_json)));
    BatchAllocator batch_alloc = alloc_.is_none() ? nullptr : PyAllocator(alloc_.ptr());
    {
      py::gil_scoped_release nogil;
      pipe_ = ValueOrThrow(Pipeline::Open(plan, resume ? &*resume : nullptr, std::move(batch_alloc)));
    }
    LivePipelines().insert(this);
  }

  // (columns dict, row ids, epoch) or None after the last batch.
  py::object Next() {
    if (!pipe_) throw StatusError(Status::Cancelled("the pipeline is closed"));
    // b_ holds what the last batch left after BatchToPy (its row tensors):
    // the pipeline hands it to a worker to release.
    Batch& b = b_;
    Result<bool> more = Status::Internal("unset");
    {
      py::gil_scoped_release nogil;
      more = pipe_->Next(&b);
    }
    ReleaseQueuedExceptions();
    if (!more.ok()) throw StatusError(more.status());
    if (!*more) return py::none();
    const uint64_t epoch = b.epoch;
    // The row-id array (a 2 KiB buffer at 256 rows) is made after the
    // columns' arrays (see ListOf in bind_values.cc); BatchToPy takes only
    // the batch's columns.
    py::dict columns = BatchToPy(std::move(b), style_, zero_copy_);
    py::array_t<uint64_t> ids(static_cast<ssize_t>(b.row_ids.size()));
    std::copy(b.row_ids.begin(), b.row_ids.end(), ids.mutable_data());
    return py::make_tuple(std::move(columns), ids, epoch);
  }
  // Workers may be waiting for the GIL (Python callables): never join them
  // while holding it.
  ~PyPipeline() { Close(); }
  PyPipeline(const PyPipeline&) = delete;
  PyPipeline& operator=(const PyPipeline&) = delete;

  // After close(): the state and statistics at closing.
  std::string State() const { return pipe_ ? pipe_->state().ToJson().dump() : closed_state_; }
  std::string Stats() const { return pipe_ ? pipe_->stats().ToJson().dump() : closed_stats_; }
  std::string PlanJson() const {
    if (!pipe_) throw StatusError(Status::Cancelled("the pipeline is closed"));
    return pipe_->plan().ToString(-1);
  }
  void Close() {
    if (!pipe_) return;
    LivePipelines().erase(this);
    closed_state_ = pipe_->state().ToJson().dump();
    closed_stats_ = pipe_->stats().ToJson().dump();
    if (pipe_->OnOwnThread()) {
      // Closed from one of its own workers: a Python callable of this
      // pipeline let the garbage collector collect the iterator that owned
      // it. That thread cannot join itself, so another thread stops the
      // pipeline once the callable has returned. It keeps the batch
      // allocator alive until then, and drops it under the GIL if Python
      // still runs (else it is left, as at exit).
      PyObject* alloc = alloc_.inc_ref().ptr();
      auto& stopping = StoppingPipelines::Get();
      {
        std::lock_guard<std::mutex> lock(stopping.mu);
        ++stopping.count;
      }
      std::thread([pipe = std::move(pipe_), b = std::move(b_), alloc, &stopping]() mutable {
        pipe.reset();
        b = Batch();
        if (Py_IsInitialized() && !_Py_IsFinalizing()) {
          py::gil_scoped_acquire gil;
          Py_DECREF(alloc);
        }
        {
          std::lock_guard<std::mutex> lock(stopping.mu);
          --stopping.count;
        }
        stopping.cv.notify_all();
      }).detach();
      return;
    }
    {
      py::gil_scoped_release nogil;
      pipe_.reset();
      b_ = Batch();
    }
    ReleaseQueuedExceptions();  // what its sources and rows held of Python (DecRefAnywhere)
  }

 private:
  static nlohmann::json ParseJson(const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw StatusError(Status::InvalidArgument("resume state is not valid JSON"));
    return j;
  }
  py::object alloc_;  // outlives pipe_ (members are destroyed in reverse order)
  ValueStyle style_;
  bool zero_copy_;
  Batch b_;  // declared before pipe_: released after the pipeline stops
  std::unique_ptr<Pipeline> pipe_;
  std::string closed_state_, closed_stats_;
};

// Fills ConvertOptions from a dict of the Python keyword arguments.
convert::ConvertOptions OptionsFrom(const py::dict& d) {
  convert::ConvertOptions o;
  for (auto kv : d) {
    const std::string k = kv.first.cast<std::string>();
    py::handle v = kv.second;
    if (k == "shards") o.shards = v.cast<uint32_t>();
    else if (k == "workers") o.workers = v.cast<uint32_t>();
    else if (k == "header_size") o.header_size = v.cast<uint64_t>();
    else if (k == "page_size") o.page_size = v.cast<uint64_t>();
    else if (k == "overwrite") o.overwrite = v.cast<bool>();
    else if (k == "on_error") o.on_error = ValueOrThrow(convert::ParseOnError(v.cast<std::string>()));
    else if (k == "encode") o.encode = ValueOrThrow(convert::ParseEncodeMode(v.cast<std::string>()));
    else if (k == "batch_rows") o.batch_rows = v.cast<uint32_t>();
    else if (k == "task") o.task = v.cast<std::string>();
    else if (k == "split") o.split = v.cast<std::string>();
    else if (k == "annotations") o.annotations = v.cast<std::string>();
    else if (k == "image_dir") o.image_dir = v.cast<std::string>();
    else if (k == "panoptic_dir") o.panoptic_dir = v.cast<std::string>();
    else if (k == "classes") o.classes = v.cast<std::vector<std::string>>();
    else if (k == "strict_boxes") o.strict_boxes = v.cast<bool>();
    else if (k == "csv_columns") o.csv_columns = v.cast<std::vector<std::string>>();
    else if (k == "split_outputs") o.split_outputs = v.cast<std::map<std::string, std::string>>();
    else if (k == "fields") o.fields = v.cast<std::string>();
    else if (k == "resume") o.resume = v.cast<bool>();
    else if (k == "protect") {
      // mindrecord.config's set_enc_key / set_hash_mode, as FileWriter applies them.
      if (v.cast<bool>()) o.protection = CurrentCryptoConfig();
    } else if (k == "ranks") continue;  // Convert() makes the group
    else if (k == "csv_delimiter") {
      const std::string s = v.cast<std::string>();
      if (s.size() != 1) throw StatusError(Status::InvalidArgument("csv delimiter must be one character"));
      o.csv_delimiter = s[0];
    } else if (k == "infer_records") o.infer_records = v.cast<uint32_t>();
    else throw StatusError(Status::InvalidArgument("convert: unknown option '" + k + "'"));
  }
  return o;
}

// convert::RankGroup over a Python object with int attributes `rank` and
// `size`, bool `connected` and all_gather(bytes) -> list of bytes, one per
// rank (mindrecord/converters.py makes it over torch.distributed).
// Failures are exchanged at the end of the conversion only.
class PyRankGroup : public convert::RankGroup {
 public:
  explicit PyRankGroup(py::object o)
      : o_(std::move(o)),
        rank_(o_.attr("rank").cast<uint32_t>()),
        size_(o_.attr("size").cast<uint32_t>()),
        connected_(o_.attr("connected").cast<bool>()) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  bool connected() const override { return connected_; }
  Result<std::vector<std::string>> AllGather(const std::string& mine) override {
    py::gil_scoped_acquire gil;
    try {
      std::vector<std::string> out;
      for (py::handle h : o_.attr("all_gather")(py::bytes(mine))) out.push_back(h.cast<std::string>());
      return out;
    } catch (py::error_already_set& e) {
      return Status::IOError(std::string("exchanging with the other ranks: ") + e.what());
    }
  }

 private:
  py::object o_;
  const uint32_t rank_, size_;
  const bool connected_;
};

py::dict Convert(const std::string& source, const std::string& input, const std::string& output,
                 const py::dict& options) {
  convert::ConvertOptions o = OptionsFrom(options);
  std::unique_ptr<PyRankGroup> group;
  if (options.contains("ranks") && !options["ranks"].is_none()) {
    group = std::make_unique<PyRankGroup>(py::reinterpret_borrow<py::object>(options["ranks"]));
    o.ranks = group.get();
  }
  Result<convert::ConvertReport> r = Status::Internal("unset");
  {
    py::gil_scoped_release nogil;
    r = convert::Convert(source, input, output, o);
  }
  convert::ConvertReport rep = ValueOrThrow(std::move(r));
  py::list outputs;
  for (auto& out : rep.outputs) {
    py::dict od;
    od["split"] = out.split;
    od["files"] = out.files;
    od["rows"] = out.rows;
    od["bytes"] = out.bytes;
    od["kept"] = out.kept;
    outputs.append(od);
  }
  py::list ranks;
  for (const auto& s : rep.ranks) {
    py::dict rd;
    rd["rows"] = s.rows;
    rd["bytes"] = s.bytes;
    rd["seconds"] = s.seconds;
    ranks.append(rd);
  }
  py::dict d;
  d["outputs"] = outputs;
  d["rows"] = rep.rows;
  d["bytes"] = rep.bytes;
  d["seconds"] = rep.seconds;
  d["skipped"] = rep.skipped;
  d["skipped_count"] = rep.skipped_count;
  d["skipped_file"] = rep.skipped_file;
  d["notes"] = rep.notes;
  d["rank"] = rep.rank;
  d["world_size"] = rep.world_size;
  d["ranks"] = ranks;
  d["parts_only"] = rep.parts_only;
  return d;
}

}  // namespace

void BindPipeline(py::module_& m) {
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    while (!LivePipelines().empty()) (*LivePipelines().begin())->Close();
    auto& stopping = StoppingPipelines::Get();
    py::gil_scoped_release nogil;  // their workers may be waiting for it
    std::unique_lock<std::mutex> lock(stopping.mu);
    stopping.cv.wait(lock, [&] { return stopping.count == 0; });
  }));
  py::class_<PyPipeline>(m, "Pipeline")
      .def(py::init<const std::string&, const std::optional<std::string>&, py::object, const std::string&, bool>(),
           py::arg("plan_json"), py::arg("resume_json") = py::none(), py::arg("alloc") = py::none(),
           py::arg("style") = "python", py::arg("zero_copy") = false)
      .def("next", &PyPipeline::Next)
      .def("state", &PyPipeline::State)
      .def("stats", &PyPipeline::Stats)
      .def("plan", &PyPipeline::PlanJson)
      .def("close", &PyPipeline::Close);
  m.def("plan_fingerprint", [](const std::string& plan_json) {
    return ValueOrThrow(Plan::Parse(plan_json)).SequenceFingerprint();
  });
  // The process-wide pool of large tensor buffers (see pipeline/tensor.h).
  m.def("tensor_pool_stats", [] {
    const TensorPoolStats s = GetTensorPoolStats();
    py::dict d;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    d["cached_bytes"] = s.cached_bytes;
    // None: the limit follows the workload (kTensorPoolAuto).
    d["capacity"] = s.capacity == kTensorPoolAuto ? py::object(py::none()) : py::int_(s.capacity);
    d["limit"] = s.limit;
    d["live_bytes"] = s.live_bytes;
    d["peak_live_bytes"] = s.peak_live_bytes;
    return d;
  });
  // Atomic 64-bit counters in memory shared between processes (the
  // DataLoader buffer ring's control page, python/mindrecord/torch.py).
  // `address` must be 8-byte aligned and stay mapped for the call.
  m.def("_u64_load", [](uintptr_t address) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(address)).load();
  });
  m.def("_u64_add", [](uintptr_t address, uint64_t delta) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(address)).fetch_add(delta) + delta;
  });
  m.def("_u64_cas", [](uintptr_t address, uint64_t expected, uint64_t desired) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(address)).compare_exchange_strong(expected, desired);
  });
  m.def(
      "set_tensor_pool_capacity",
      [](std::optional<size_t> bytes) { SetTensorPoolCapacity(bytes ? *bytes : kTensorPoolAuto); },
      py::arg("bytes"));
  // What the plan's execution tree gives (its files opened, its ops built):
  // columns, rows (positions of epoch 0 of the row tree, before filters),
  // drops_rows (a filter, or on_error skip: rows may go missing), counted
  // (take / skip the consumer counts, batches by length or by a size
  // function), batch_size, drop_remainder, batched
  // (a batch node), passes (repeat above the batch), source_rows (all rows of
  // its one source, whatever its sampler takes; None with several).
  m.def("plan_info", [](const std::string& plan_json) {
    Plan plan = ValueOrThrow(Plan::Parse(plan_json));
    const nlohmann::json tree = plan.Tree();
    ExecTree t;
    uint64_t rows = 0;
    {
      py::gil_scoped_release nogil;
      t = ValueOrThrow(CompileTree(tree, plan.read, plan.seed, plan.on_error == ErrorPolicy::kSkip));
      rows = ValueOrThrow(t.root->Size(0));
    }
    py::dict d;
    d["columns"] = t.columns;
    d["rows"] = rows;
    d["source_rows"] = t.sources.size() == 1 ? py::object(py::int_(t.sources[0]->num_rows())) : py::none();
    d["drops_rows"] = t.drops_rows;
    d["counted"] = !t.row_stream.empty() || !t.batch_stream.empty() || t.bucket.has_value() || t.batch_size_map;
    d["batch_size"] = t.batch.batch_size;
    d["drop_remainder"] = t.batch.drop_remainder;
    d["passes"] = t.passes;
    return d;
  });
  // Positions of epoch `epoch` of the plan's row tree (an elastic epoch's
  // differ from the others').
  m.def("epoch_size", [](const std::string& plan_json, uint64_t epoch) {
    Plan plan = ValueOrThrow(Plan::Parse(plan_json));
    py::gil_scoped_release nogil;
    ExecTree t = ValueOrThrow(CompileTree(plan.Tree(), plan.read, plan.seed, plan.on_error == ErrorPolicy::kSkip));
    return ValueOrThrow(t.root->Size(epoch));
  }, py::arg("plan_json"), py::arg("epoch"));
  // Rows per epoch of the plan's sampler over its source (a tree plan: the
  // positions of its row tree's epoch 0).
  m.def("sampler_size", [](const std::string& plan_json) {
    Plan plan = ValueOrThrow(Plan::Parse(plan_json));
    py::gil_scoped_release nogil;
    if (!plan.tree.is_null()) {
      ExecTree t = ValueOrThrow(CompileTree(plan.tree, plan.read, plan.seed, plan.on_error == ErrorPolicy::kSkip));
      return ValueOrThrow(t.root->Size(0));
    }
    ReaderOptions o;
    std::string path = plan.source.empty() ? std::string() : plan.source[0];
    if (plan.source.size() > 1 || plan.source_list) o.shard_paths = plan.source;
    auto reader = ValueOrThrow(ShardReader::Open(path, o));
    const uint64_t padded = plan.padded.is_object() ? plan.padded.value("count", uint64_t{0}) : 0;
    auto sampler = ValueOrThrow(MakeSampler(plan.sampler, LayoutOf(*reader, padded)));
    return sampler->size();
  });
  // Benchmark helper: runs the plan to the end with a C++ consumer (no
  // Python objects made); returns (rows, batches, seconds).
  // `copy`: the consumer copies every batch's bytes out (into one reused
  // buffer), as a consumer that hands them on must; else it only counts rows.
  m.def(
      "drain_pipeline",
      [](const std::string& plan_json, bool copy) {
        Plan plan = ValueOrThrow(Plan::Parse(plan_json));
        uint64_t rows = 0, batches = 0;
        double s = 0;
        {
          py::gil_scoped_release nogil;
          const auto t0 = std::chrono::steady_clock::now();
          auto pipe = ValueOrThrow(Pipeline::Open(plan));
          Batch b;
          std::vector<uint8_t> out;
          while (ValueOrThrow(pipe->Next(&b))) {
            rows += b.size();
            ++batches;
            if (!copy) continue;
            size_t at = 0;
            auto take = [&](const Tensor& t) {
              if (out.size() < at + t.size_bytes()) out.resize(std::max(out.size() * 2, at + t.size_bytes()));
              if (t.size_bytes()) std::memcpy(out.data() + at, t.data(), t.size_bytes());
              at += t.size_bytes();
            };
            for (const auto& c : b.columns) {
              if (c.is_list()) {
                for (const auto& t : c.list) take(t);
              } else {
                take(c.data);
              }
            }
          }
          s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        return py::make_tuple(rows, batches, s);
      },
      py::arg("plan_json"), py::arg("copy") = false);
  // CSVDataset: the records of each file (after its header line).
  m.def("csv_records", [](const std::vector<std::string>& files, const std::string& delimiter, bool header) {
    if (delimiter.size() != 1) throw StatusError(Status::InvalidArgument("field_delim must be one character"));
    py::gil_scoped_release nogil;
    return ValueOrThrow(CountCsvRecords(files, delimiter[0], header));
  });
  // TextFileDataset: the non-empty lines of each file.
  m.def(
      "tagged_sentences",
      [](const std::vector<std::string>& files) {
        py::gil_scoped_release nogil;
        return ValueOrThrow(CountTaggedSentences(files));
      },
      py::arg("files"));
  m.def(
      "celeba_rows",
      [](const std::string& dataset_dir, const std::string& usage, const std::vector<std::string>& extensions) {
        py::gil_scoped_release nogil;
        return ValueOrThrow(CountCelebARows(dataset_dir, usage, extensions));
      },
      py::arg("dataset_dir"), py::arg("usage"), py::arg("extensions"));
  m.def(
      "image_list_rows",
      [](const std::string& args_json) {
        nlohmann::json args = nlohmann::json::parse(args_json, nullptr, false);
        if (args.is_discarded()) throw StatusError(Status::InvalidArgument("image_list_rows: args are not JSON"));
        py::gil_scoped_release nogil;
        return ValueOrThrow(CountImageList(args));
      },
      py::arg("args_json"));
  // The datasets their own lists describe (LFWDataset, ...): (columns, rows, meta as JSON).
  m.def(
      "catalog_info",
      [](const std::string& args_json) {
        nlohmann::json args = nlohmann::json::parse(args_json, nullptr, false);
        if (args.is_discarded()) throw StatusError(Status::InvalidArgument("catalog_info: args are not JSON"));
        nlohmann::json info;
        {
          py::gil_scoped_release nogil;
          info = ValueOrThrow(DescribeCatalog(args));
        }
        return py::make_tuple(info["columns"].get<std::vector<std::string>>(), info["rows"].get<uint64_t>(),
                              info["meta"].dump());
      },
      py::arg("args_json"));
  m.def(
      "imdb_files",
      [](const std::string& dataset_dir, const std::string& usage) {
        py::gil_scoped_release nogil;
        return ValueOrThrow(CountImdbFiles(dataset_dir, usage));
      },
      py::arg("dataset_dir"), py::arg("usage"));
  m.def(
      "text_file_lines",
      [](const std::vector<std::string>& files, bool empty_lines) {
        py::gil_scoped_release nogil;
        return ValueOrThrow(CountTextFileLines(files, empty_lines));
      },
      py::arg("files"), py::arg("empty_lines") = false);
  // TFRecordDataset: the records of each file, and the columns of a file's
  // first record (MindSpore's schema when none is given).
  // `compression`: "" (none), "gzip" or "zlib".
  m.def("tfrecord_records", [](const std::vector<std::string>& files, const std::string& compression) {
    const StreamCompression c = ValueOrThrow(ParseStreamCompression(compression));
    py::gil_scoped_release nogil;
    return ValueOrThrow(CountTfRecords(files, c));
  }, py::arg("files"), py::arg("compression") = "");
  m.def("tfrecord_columns", [](const std::string& file, const std::string& compression) {
    const StreamCompression c = ValueOrThrow(ParseStreamCompression(compression));
    py::gil_scoped_release nogil;
    return ValueOrThrow(TfRecordColumns(file, c));
  }, py::arg("file"), py::arg("compression") = "");
  // Dataset.save: runs the plan and writes its rows (each batch one row when
  // `batched`) to `file_name`, `num_files` shards named as MindSpore's save
  // names them. Returns {"rows", "files", "schema"}.
  m.def(
      "save_plan",
      [](const std::string& plan_json, const std::string& file_name, uint32_t num_files, bool batched,
         bool protect) {
        Plan plan = ValueOrThrow(Plan::Parse(plan_json));
        SaveOptions o;
        o.writer.shard_count = num_files;
        o.writer.pad_shard_suffix = false;
        // Hashed and encrypted as mindrecord.config asks, before the commit
        // gives the files their names (as FileWriter.commit).
        if (protect) o.writer.protection = CurrentCryptoConfig();
        o.batched = batched;
        Result<SaveResult> saved = Status::Internal("unset");
        {
          py::gil_scoped_release nogil;
          saved = SavePlan(plan, file_name, o);
        }
        ReleaseQueuedExceptions();  // what the pipeline's sources held of Python, failed or not
        SaveResult r = ValueOrThrow(std::move(saved));
        py::dict d;
        d["rows"] = r.rows;
        d["files"] = r.files;
        d["schema"] = r.schema.dump();
        return d;
      },
      py::arg("plan_json"), py::arg("file_name"), py::arg("num_files"), py::arg("batched"),
      py::arg("protect") = false);
  // The plan form of a padded sample: {column: value} for exactly `columns`
  // of the schema, each value checked as the writer checks it.
  m.def("padded_row_json", [](const std::string& schema_json, const std::vector<std::string>& columns,
                              const py::dict& sample) {
    Schema schema = ValueOrThrow(Schema::FromUserJsonString(schema_json, ""));
    nlohmann::json row = nlohmann::json::object();
    for (const auto& c : columns) {
      const Field* f = schema.Find(c);
      if (f == nullptr) throw StatusError(Status::NotFound("column '" + c + "' is not in the schema"));
      if (!sample.contains(c)) throw StatusError(Status::InvalidArgument("padded_sample has no column '" + c + "'"));
      auto v = PyToValue(*f, sample[py::str(c)]);
      if (!v.ok()) throw StatusError(v.status().WithContext("padded_sample"));
      ThrowIfError(ValidateFieldValue(*f, *v).WithContext("padded_sample"));
      row[c] = PaddedValueToJson(*v);
    }
    return row.dump();
  });
  m.def("normalize_plan", [](const std::string& plan_json) {
    return ValueOrThrow(Plan::Parse(plan_json)).ToString(-1);
  });
}

void BindConvert(py::module_& m) {
  m.def("convert", &Convert, py::arg("source"), py::arg("input"), py::arg("output"), py::arg("options"));
  m.def("convert_sources", [] { return convert::ConvertSources(); });
  // The launcher's rank variables (convert::DetectLaunch): None, or a dict
  // with rank, size, by (the variables) and mpi (started by an MPI launcher).
  m.def("detect_launch", []() -> py::object {
    std::optional<convert::Launch> l = ValueOrThrow(convert::DetectLaunch());
    if (!l) return py::none();
    py::dict d;
    d["rank"] = l->rank;
    d["size"] = l->size;
    d["by"] = l->by;
    d["mpi"] = l->mpi;
    return d;
  });
}

}  // namespace mindrecord::py_binding
