// A Python per_batch_map as a batch node's batch map ("PyBatchMap").
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
#include "pipeline/nodes/batch_steps.h"
#include "python/py_common.h"
#include "python/worker_gil.h"

namespace mindrecord::py_binding {

namespace {

class PyBatchMap : public BatchMap {
 public:
  PyBatchMap(uint64_t ref, std::string name) : ref_(ref), name_(std::move(name)) {}
  std::string name() const override { return "'" + name_ + "'"; }

  Result<std::vector<BatchMapColumn>> Apply(std::vector<std::vector<Tensor>> columns,
                                            const BatchInfo& info) const override {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
    WorkerGil gil;
    const std::string who = "per_batch_map '" + name_ + "'";
    try {
      // Looked up per call: the pipeline may be destroyed without the GIL,
      // so it holds no Python object.
      py::object fn = RegisteredCallable(ref_, nullptr);
      if (fn.is_none()) return Status::Internal(who + ": the callable is gone");
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
    } catch (py::error_already_set& e) {
      return CallableError(who, e);
    } catch (const std::exception& e) {
      return Status::InvalidArgument(who + ": " + e.what());
    }
  }

 private:
  uint64_t ref_;
  std::string name_;
};

Result<std::unique_ptr<BatchMap>> MakePyBatchMap(const nlohmann::json& spec) {
  if (!spec.contains("_ref") || !spec["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument("PyBatchMap: the spec has no '_ref' to a registered Python callable");
  }
  const uint64_t ref = spec["_ref"].get<uint64_t>();
  std::string name;
  {
    WorkerGil gil;
    if (RegisteredCallable(ref, &name).is_none()) {
      return Status::InvalidArgument("PyBatchMap: no Python callable #" + std::to_string(ref) +
                                     " in this process (plans with Python callables run where they were built)");
    }
  }
  return std::unique_ptr<BatchMap>(new PyBatchMap(ref, spec.value("name", name)));
}

}  // namespace

void BindBatchMap(py::module_&) { RegisterBatchMap("PyBatchMap", MakePyBatchMap); }

}  // namespace mindrecord::py_binding
