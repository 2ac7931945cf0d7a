// Python callables as batch maps: a per_batch_map ("PyBatchMap", also a
// callable batch_size's map) and bucket_batch_by_length's
// element_length_function ("PyLengthMap", below).
// The per_batch_map:
// MindDataset.batch registers an adapter around the user's function
// (mindrecord/dataset_ops.py, _BatchMapAdapter) and puts
// {"map": "PyBatchMap", "name": qualname, "_ref": id} in the plan. The adapter
// is called as adapter(epoch_num, batch_num, *columns), each column a list of
// the batch's values (numpy arrays, as a map's callable gets them), and
// returns a tuple with one entry per output column: a list of per-row values,
// or one array holding the whole batch. It runs on the worker (or consumer)
// thread that makes the batch, holding the GIL for the call and the
// conversions; an exception it raises names the function, the epoch and the
// batch, and the consumer re-raises it chained to the original.
#include <limits>

#include "pipeline/nodes/batch_steps.h"
#include "python/py_common.h"
#include "python/worker_gil.h"

namespace mindrecord::py_binding {

namespace {

// A registered Python callable as a batch map: the shutdown check, the GIL,
// the lookup (per call: the pipeline may be destroyed without the GIL, so it
// holds no Python object) and its exceptions as errors naming it.
class PyCallableMap : public BatchMap {
 public:
  PyCallableMap(uint64_t ref, std::string name, const char* kind) : ref_(ref), name_(std::move(name)), kind_(kind) {}
  std::string name() const override { return "'" + name_ + "'"; }

  Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>> columns,
                                            const BatchInfo& info) const final {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
    WorkerGil gil;
    const std::string who = std::string(kind_) + " '" + name_ + "'";
    try {
      py::object fn = RegisteredCallable(ref_, nullptr);
      if (fn.is_none()) return Status::Internal(who + ": the callable is gone");
      return Call(fn, std::move(columns), info, who);
    } catch (py::error_already_set& e) {
      return CallableError(who, e);
    } catch (const std::exception& e) {
      return Status::InvalidArgument(who + ": " + e.what());
    }
  }

 protected:
  // Under the GIL; Python exceptions propagate.
  virtual Result<std::vector<BatchMapColumn>> Call(const py::object& fn, std::vector<std::vector<Tensor>> columns,
                                                   const BatchInfo& info, const std::string& who) const = 0;

 private:
  uint64_t ref_;
  std::string name_;
  const char* kind_;
};

class PyBatchMap : public PyCallableMap {
 public:
  PyBatchMap(uint64_t ref, std::string name) : PyCallableMap(ref, std::move(name), "per_batch_map") {}

 protected:
  Result<std::vector<BatchMapColumn>> Call(const py::object& fn, std::vector<std::vector<Tensor>> columns,
                                           const BatchInfo& info, const std::string& who) const override {
    py::tuple args(columns.size() + 2);
    args[0] = py::int_(info.epoch_num);
    args[1] = py::int_(info.batch_num);
    for (size_t c = 0; c < columns.size(); ++c) {
      py::list rows;
      for (auto& t : columns[c]) rows.append(TensorToPyArg(std::move(t)));
      args[c + 2] = rows;
    }
    py::object out = fn(*args);
    if (!py::isinstance<py::tuple>(out)) return Status::Internal(who + ": the adapter did not return a tuple");
    std::vector<BatchMapColumn> result;
    for (py::handle col : out) {
      BatchMapColumn c;
      if (py::isinstance<py::list>(col)) {
        for (py::handle v : col) {
          MR_ASSIGN_OR_RETURN(Tensor t, PyToTensor(v, who));
          c.rows.push_back(std::move(t));
        }
      } else {
        MR_ASSIGN_OR_RETURN(c.batched, PyToTensor(col, who));
      }
      result.push_back(std::move(c));
    }
    return result;
  }
};

// A Python function of one row's columns giving an integer, as a length map
// ("PyLengthMap": bucket_batch_by_length's element_length_function). Called
// with the row's values as numpy arrays (as a map's callable gets them) and
// nothing else, so the per-row call is the function's alone; gives the
// length as one int64.
class PyLengthMap : public PyCallableMap {
 public:
  PyLengthMap(uint64_t ref, std::string name) : PyCallableMap(ref, std::move(name), "element_length_function") {}

 protected:
  Result<std::vector<BatchMapColumn>> Call(const py::object& fn, std::vector<std::vector<Tensor>> columns,
                                           const BatchInfo&, const std::string& who) const override {
    py::tuple args(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].size() != 1) return Status::Internal(who + ": not one row");
      args[c] = TensorToPyArg(std::move(columns[c][0]));
    }
    py::object out = fn(*args);
    if (py::isinstance<py::bool_>(out) || !PyIndex_Check(out.ptr())) {
      return Status::InvalidArgument(who + " must return an integer, got " + std::string(py::repr(out)));
    }
    const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(out.ptr()));
    if (!index) throw py::error_already_set();
    const long long n = PyLong_AsLongLong(index.ptr());
    if (n == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (n < 0 || n > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument(who + " should return a non negative integer (at most 2^31 - 1), got " +
                                     std::to_string(n));
    }
    std::vector<BatchMapColumn> result(1);
    result[0].batched = Tensor::Make(TensorType::kInt64, {});
    *result[0].batched.mutable_data_as<int64_t>() = n;
    return result;
  }
};

template <typename Map>
Result<std::unique_ptr<BatchMap>> MakePyMap(const nlohmann::json& spec, const char* kind) {
  if (!spec.contains("_ref") || !spec["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument(std::string(kind) + ": the spec has no '_ref' to a registered Python callable");
  }
  const uint64_t ref = spec["_ref"].get<uint64_t>();
  std::string name;
  {
    WorkerGil gil;
    if (RegisteredCallable(ref, &name).is_none()) {
      return Status::InvalidArgument(std::string(kind) + ": no Python callable #" + std::to_string(ref) +
                                     " in this process (plans with Python callables run where they were built)");
    }
  }
  return std::unique_ptr<BatchMap>(new Map(ref, spec.value("name", name)));
}

}  // namespace

void BindBatchMap(py::module_&) {
  RegisterBatchMap("PyBatchMap", [](const nlohmann::json& spec) { return MakePyMap<PyBatchMap>(spec, "PyBatchMap"); });
  RegisterBatchMap("PyLengthMap", [](const nlohmann::json& spec) { return MakePyMap<PyLengthMap>(spec, "PyLengthMap"); });
}

}  // namespace mindrecord::py_binding
