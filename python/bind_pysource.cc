// Python objects as pipeline sources (GeneratorDataset): a "source" leaf of
// kind "python" names a registered callable ("_ref", register_callable) that
// gives row i's values: fetch(i) -> a tuple (or list) with one value per
// column, or one value for one column (a dict is refused); each value what a
// map's callable returns (a numpy array or anything numpy.asarray takes,
// bytes, str). GeneratorDataset registers the source's own __getitem__
// when no column_types are given, so that no Python frame of ours runs per
// row. The
// pipeline's workers call it holding the GIL only for the call and the
// conversions; rows keep their positions, so the output is the same for any
// worker count. An exception fails the row with a message naming the source
// and the row, carrying the exception (as map callables' errors do).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/nodes/source_registry.h"
#include "python/object_source.h"
#include "python/py_common.h"
#include "python/worker_gil.h"

namespace mindrecord::py_binding {

namespace {

// Thread safety: as Source; each call takes the GIL.
class PySource : public ObjectSource {
 public:
  // The callable is looked up by `ref` for each row (the registry holds it
  // for the life of the process), so no Python reference is ever released
  // on a thread without the GIL.
  PySource(uint64_t ref, std::string name, std::vector<std::string> columns, uint64_t rows)
      : ObjectSource(std::move(name), std::move(columns), rows), ref_(ref) {
    for (const std::string& c : this->columns()) column_who_.push_back(this->name() + ", column '" + c + "'");
  }

  // The rows of one request are fetched under one hold of the GIL (a
  // handoff per row would cost more than most sources' rows), then handed
  // to `fn` without it.
  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    constexpr size_t kRowsPerHold = 64;
    std::vector<std::vector<Tensor>> cols(std::min(ids.size(), kRowsPerHold));
    std::vector<Status> st(cols.size());
    for (size_t at = 0; at < ids.size(); at += kRowsPerHold) {
      const size_t n = std::min(kRowsPerHold, ids.size() - at);
      if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
      {
        WorkerGil gil;
        py::object fetch = RegisteredCallable(ref_, nullptr);  // once per hold, not per row
        for (size_t k = 0; k < n; ++k) {
          cols[k].clear();
          st[k] = fetch.is_none() ? Status::Internal(Who(ids[at + k]) + ": its callable is no longer registered")
                                  : Fetch(fetch, ids[at + k], &cols[k]);
        }
      }
      for (size_t k = 0; k < n; ++k) {
        if (!st[k].ok()) cols[k].clear();
        uint64_t bytes = 0;
        for (const Tensor& t : cols[k]) bytes += t.size_bytes();
        MR_RETURN_IF_ERROR(fn(at + k, st[k], std::move(cols[k]), bytes));
      }
    }
    return Status::OK();
  }

 private:
  std::string Who(uint64_t id) const { return name() + " (row " + std::to_string(id) + ")"; }

  // Needs the GIL. Calls fetch(id) through the C API (pybind11's call
  // builds an argument tuple and the names are built only for an error):
  // this runs once per row.
  Status Fetch(const py::object& fetch, uint64_t id, std::vector<Tensor>* out) const {
    py::object index = py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(id));
    if (!index) return CallableError(Who(id), py::error_already_set());
    py::object row = py::reinterpret_steal<py::object>(PyObject_CallOneArg(fetch.ptr(), index.ptr()));
    if (!row) return CallableError(Who(id), py::error_already_set());
    if (PyDict_Check(row.ptr())) {
      return Status::InvalidArgument(Who(id) + " is a dict; GeneratorDataset rows are tuples of column values");
    }
    const bool tuple = PyTuple_Check(row.ptr()), list = PyList_Check(row.ptr());
    const size_t n = tuple ? static_cast<size_t>(PyTuple_GET_SIZE(row.ptr()))
                     : list ? static_cast<size_t>(PyList_GET_SIZE(row.ptr()))
                            : 1;
    if (n != columns().size()) {
      return Status::InvalidArgument(Who(id) + " gave " + std::to_string(n) + " value(s) for " +
                                     std::to_string(columns().size()) + " column(s) (column_names)");
    }
    for (size_t c = 0; c < n; ++c) {
      PyObject* v = tuple ? PyTuple_GET_ITEM(row.ptr(), c) : list ? PyList_GET_ITEM(row.ptr(), c) : row.ptr();
      try {
        auto t = PyToTensor(v, column_who_[c]);
        if (!t.ok()) return t.status();
        out->push_back(std::move(t).value());
      } catch (py::error_already_set& e) {
        return CallableError(Who(id), e);
      }
    }
    return Status::OK();
  }

  uint64_t ref_;
  std::vector<std::string> column_who_;  // each column's name in conversion errors
};

Result<std::unique_ptr<Source>> MakePySource(const nlohmann::json& node) {
  if (!node.contains("_ref") || !node["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument("a 'python' source needs '_ref', a registered callable's id");
  }
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
  const uint64_t ref = node["_ref"].get<uint64_t>();
  std::string registered;
  {
    py::gil_scoped_acquire gil;
    if (RegisteredCallable(ref, &registered).is_none()) {
      return Status::NotFound("no Python callable is registered as " + std::to_string(ref) +
                              " in this process (a plan's Python sources do not cross processes)");
    }
  }
  const std::string name = node.value("name", registered);
  return std::unique_ptr<Source>(
      new PySource(ref, name, node["columns"].get<std::vector<std::string>>(), node["rows"].get<uint64_t>()));
}

}  // namespace

void BindPySource(py::module_&) { RegisterSource("python", MakePySource); }

}  // namespace mindrecord::py_binding
