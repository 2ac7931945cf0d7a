// Python callables as pipeline ops ("PyFunc"). MindDataset.map registers a
// callable and puts {"op": "PyFunc", "name": qualname, "_ref": id} in the
// plan; the op runs it on the worker thread that transforms the row, holding
// the GIL only for the call and the conversions (C++ ops around it run
// without the GIL). Rows keep their positions, so the output order is the
// same for any worker count.
//
// The callable gets a numpy array (numeric columns; bytes columns as 1-D
// uint8; string columns as a 0-d str array) and returns a numpy array (or
// anything numpy.asarray takes), bytes or str. An exception it raises fails
// the row with a message naming the callable, the column and the row; the
// error carries the exception (PyExceptionDetail), and the consumer's
// exception is chained to it.
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "pipeline/op_registry.h"
#include "pipeline/ops/audio_util.h"
#include "python/py_common.h"
#include "python/worker_gil.h"

namespace mindrecord::py_binding {

namespace {

// A registered callable. Held for the life of the process (the registry
// keeps it), so it is never released on a thread without the GIL.
struct PyCallable {
  py::object fn;
  std::string name;
};

std::mutex& TableMutex() {
  static std::mutex mu;
  return mu;
}
std::map<uint64_t, std::shared_ptr<PyCallable>>& Table() {
  static auto* t = new std::map<uint64_t, std::shared_ptr<PyCallable>>();
  return *t;
}
std::map<PyObject*, uint64_t>& TableIds() {
  static auto* t = new std::map<PyObject*, uint64_t>();
  return *t;
}

// References to exceptions whose last Status died on a thread without the
// GIL, released by the next thread that holds it.
std::mutex& ReleaseMutex() {
  static std::mutex mu;
  return mu;
}
std::vector<PyObject*>& ToRelease() {
  static auto* v = new std::vector<PyObject*>();
  return *v;
}
std::atomic<bool> g_to_release{false};

std::string ExceptionText(const py::error_already_set& e) {
  std::string type = "Exception";
  try {
    type = py::str(e.type().attr("__name__")).cast<std::string>();
  } catch (...) {
  }
  std::string what;
  try {
    what = py::str(e.value()).cast<std::string>();
  } catch (...) {
  }
  return what.empty() ? type : type + ": " + what;
}

}  // namespace

namespace {

// The tensor type of a numpy dtype (kind and item size), or nullptr.
const TensorType* TypeOfDtype(char kind, ssize_t size) {
  static const TensorType kBool = TensorType::kBool, kU8 = TensorType::kUInt8, kI8 = TensorType::kInt8,
                          kI16 = TensorType::kInt16, kI32 = TensorType::kInt32, kI64 = TensorType::kInt64,
                          kF32 = TensorType::kFloat32, kF64 = TensorType::kFloat64;
  switch (kind) {
    case 'b': return size == 1 ? &kBool : nullptr;
    case 'u': return size == 1 ? &kU8 : nullptr;
    case 'i': return size == 1 ? &kI8 : size == 2 ? &kI16 : size == 4 ? &kI32 : size == 8 ? &kI64 : nullptr;
    case 'f': return size == 4 ? &kF32 : size == 8 ? &kF64 : nullptr;
    default: return nullptr;
  }
}

}  // namespace

const TensorType* TensorTypeOfDtype(const py::dtype& dt) {
  if (dt.byteorder() == '>') return nullptr;
  return TypeOfDtype(dt.kind(), dt.itemsize());
}

namespace {

// A Python or numpy scalar as a 0-d tensor of the type numpy.asarray gives
// it (int -> int64, float -> float64, bool -> bool; numpy scalars keep
// theirs), without making an array: a source's or a callable's scalars are
// converted once per row. nullopt: not such a scalar (or an int past int64).
std::optional<Tensor> ScalarTensor(PyObject* o) {
  const auto make = [](TensorType type, auto v) {
    Tensor t = Tensor::Make(type, {});
    std::memcpy(t.MutableData(), &v, sizeof(v));
    return t;
  };
  PyTypeObject* type = Py_TYPE(o);
  if (type == &PyBool_Type) return make(TensorType::kBool, static_cast<uint8_t>(o == Py_True));
  if (type == &PyFloat_Type) return make(TensorType::kFloat64, PyFloat_AS_DOUBLE(o));
  if (type == &PyLong_Type) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) return std::nullopt;
    return make(TensorType::kInt64, static_cast<int64_t>(v));
  }
  // numpy's scalar types, looked up once (kept for the life of the process).
  struct NumpyScalar {
    PyObject* type;
    TensorType tensor;
  };
  static const std::vector<NumpyScalar>* numpy_types = [] {
    auto* v = new std::vector<NumpyScalar>();
    py::module_ np = py::module_::import("numpy");
    const std::pair<const char*, TensorType> names[] = {
        {"int64", TensorType::kInt64}, {"float32", TensorType::kFloat32}, {"float64", TensorType::kFloat64},
        {"int32", TensorType::kInt32}, {"bool_", TensorType::kBool},      {"uint8", TensorType::kUInt8},
        {"int8", TensorType::kInt8},   {"int16", TensorType::kInt16}};
    for (const auto& [name, tensor] : names) v->push_back({py::object(np.attr(name)).release().ptr(), tensor});
    return v;
  }();
  for (const NumpyScalar& n : *numpy_types) {
    if (reinterpret_cast<PyObject*>(type) != n.type) continue;
    switch (n.tensor) {
      case TensorType::kFloat32: return make(n.tensor, static_cast<float>(PyFloat_AsDouble(o)));
      case TensorType::kFloat64: return make(n.tensor, PyFloat_AsDouble(o));
      case TensorType::kBool: return make(n.tensor, static_cast<uint8_t>(PyObject_IsTrue(o) == 1));
      case TensorType::kUInt8: return make(n.tensor, static_cast<uint8_t>(PyLong_AsLong(o)));
      case TensorType::kInt8: return make(n.tensor, static_cast<int8_t>(PyLong_AsLong(o)));
      case TensorType::kInt16: return make(n.tensor, static_cast<int16_t>(PyLong_AsLong(o)));
      case TensorType::kInt32: return make(n.tensor, static_cast<int32_t>(PyLong_AsLong(o)));
      default: return make(n.tensor, static_cast<int64_t>(PyLong_AsLongLong(o)));
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Tensor> PyToTensor(py::handle obj, const std::string& who) {
  if (std::optional<Tensor> scalar = ScalarTensor(obj.ptr())) {
    if (PyErr_Occurred()) throw py::error_already_set();
    return std::move(*scalar);
  }
  if (py::isinstance<py::bytes>(obj)) return Tensor::FromString(TensorType::kBytes, obj.cast<std::string>());
  if (py::isinstance<py::str>(obj)) {
    // surrogateescape: bytes a text source could not decode go back as those bytes.
    PyObject* b = PyUnicode_AsEncodedString(obj.ptr(), "utf-8", "surrogateescape");
    if (b == nullptr) {
      PyErr_Clear();
      return Status::InvalidArgument(who + " returned a str that UTF-8 cannot hold (a lone surrogate)");
    }
    py::bytes bytes = py::reinterpret_steal<py::bytes>(b);
    return Tensor::FromString(TensorType::kString, bytes.cast<std::string>());
  }
  if (py::isinstance<py::tuple>(obj)) {
    return Status::InvalidArgument(who + " returned a tuple; it must return one array (one column in, one out)");
  }
  // numpy's C API (PyArray_FromAny), not numpy.asarray through Python: an
  // array comes as it is, numbers and lists become arrays.
  py::array arr = py::array::ensure(obj);
  if (!arr) {
    PyErr_Clear();
    return Status::InvalidArgument(who + " returned a " + py::str(py::type::of(obj).attr("__qualname__")).cast<std::string>() +
                                   ", which numpy cannot make an array of");
  }
  const py::dtype dt = arr.dtype();
  if (arr.ndim() == 0 && (dt.kind() == 'U' || dt.kind() == 'S')) {
    py::object item = arr.attr("item")();
    return PyToTensor(item, who);
  }
  if (dt.kind() == 'U') return StrArrayToStrings(arr, who);
  const TensorType* type = TypeOfDtype(dt.kind(), dt.itemsize());
  if (type == nullptr) {
    return Status::InvalidArgument(who + " returned an array of dtype " + py::str(dt.attr("name")).cast<std::string>() +
                                   "; supported: bool, uint8, int8, int16, int32, int64, float32, float64, bytes, str (and str arrays)");
  }
  if (dt.byteorder() == '>' || !(arr.flags() & py::array::c_style)) {
    arr = py::module_::import("numpy").attr("asarray")(arr, TensorDtype(*type), "C");  // native order, C layout (keeps 0-d)
  }
  std::vector<int64_t> shape(arr.shape(), arr.shape() + arr.ndim());
  Tensor t = Tensor::Make(*type, std::move(shape));
  if (t.size_bytes() > 0) std::memcpy(t.MutableData(), arr.data(), t.size_bytes());
  return t;
}

py::object TensorToPyArg(Tensor t) {
  if (t.type() == TensorType::kString) {
    py::str s = py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
        reinterpret_cast<const char*>(t.data()), static_cast<Py_ssize_t>(t.size_bytes()), "surrogateescape"));
    return py::module_::import("numpy").attr("array")(s);
  }
  return TensorToArray(std::move(t));  // bytes: 1-D uint8
}

PyExceptionDetail::PyExceptionDetail(py::object exc) : exc_(exc.release().ptr()) {}

PyExceptionDetail::~PyExceptionDetail() { DecRefAnywhere(exc_); }

void DecRefAnywhere(PyObject* obj) {
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;  // the interpreter is going: nothing to release
  if (PyGILState_Check()) {
    Py_DECREF(obj);
    return;
  }
  // Taking the GIL here could deadlock: this thread may hold a lock that the
  // thread holding the GIL waits for.
  std::lock_guard<std::mutex> lock(ReleaseMutex());
  ToRelease().push_back(obj);
  g_to_release.store(true, std::memory_order_release);
}

void ReleaseQueuedExceptions() {
  if (!g_to_release.load(std::memory_order_acquire)) return;
  std::vector<PyObject*> objs;
  {
    std::lock_guard<std::mutex> lock(ReleaseMutex());
    objs.swap(ToRelease());
    g_to_release.store(false, std::memory_order_relaxed);
  }
  for (PyObject* o : objs) Py_DECREF(o);
}

Status CallableError(const std::string& who, const py::error_already_set& e) {
  ReleaseQueuedExceptions();
  return Status::InvalidArgument(who + " raised " + ExceptionText(e))
      .WithDetail(std::make_shared<PyExceptionDetail>(e.value()));
}

py::object RegisteredCallable(uint64_t ref, std::string* name) {
  std::shared_ptr<PyCallable> fn;
  {
    std::lock_guard<std::mutex> lock(TableMutex());
    auto it = Table().find(ref);
    if (it != Table().end()) fn = it->second;
  }
  if (!fn) return py::none();
  if (name) *name = fn->name;
  return fn->fn;
}

namespace {

// A Python callable as a pipeline op. One column in and one out unless the
// spec says otherwise: in a map over several columns (MindSpore's map) it
// gets them as positional arguments and returns a tuple with one value per
// output column; "num_inputs" / "num_outputs" in the spec give the counts
// (-1: as many as it is given / returns, known when it runs).
class PyFuncOp : public TensorOp {
 public:
  PyFuncOp(std::shared_ptr<PyCallable> fn, uint64_t ref, int inputs, int outputs)
      : fn_(std::move(fn)), ref_(ref), inputs_(inputs), outputs_(outputs) {}
  std::string name() const override { return "PyFunc(" + fn_->name + ")"; }
  nlohmann::json ToJson() const override {
    nlohmann::json j = {{"op", "PyFunc"}, {"name", fn_->name}, {"_ref", ref_}};
    if (inputs_ != 1 || outputs_ != 1) {
      j["num_inputs"] = inputs_;
      j["num_outputs"] = outputs_;
    }
    return j;
  }
  int num_inputs() const override { return inputs_; }
  int num_outputs() const override { return outputs_; }
  bool uses_interpreter() const override { return true; }
  bool takes_strings() const override { return true; }

  Result<std::vector<Tensor>> ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64&) const override {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
    WorkerGil gil(/*keep=*/true);  // kept for the next Python op (pipeline/interpreter_lock.h)
    const std::string who = "Python callable '" + fn_->name + "'";
    try {
      py::tuple args(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) args[i] = TensorToPyArg(std::move(inputs[i]));
      py::object out = fn_->fn(*args);
      std::vector<Tensor> result;
      if (py::isinstance<py::tuple>(out)) {
        for (py::handle v : out) {
          MR_ASSIGN_OR_RETURN(Tensor t, PyToTensor(v, who));
          result.push_back(std::move(t));
        }
      } else {
        MR_ASSIGN_OR_RETURN(Tensor t, PyToTensor(out, who));
        result.push_back(std::move(t));
      }
      return result;
    } catch (py::error_already_set& e) {
      return CallableError(who, e);
    } catch (const std::exception& e) {
      return Status::InvalidArgument(who + ": " + e.what());
    }
  }

  Result<Tensor> Apply(Tensor input, std::mt19937_64&) const override {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
    WorkerGil gil(/*keep=*/true);  // kept for the next Python op (pipeline/interpreter_lock.h)
    const std::string who = "Python callable '" + fn_->name + "'";
    try {
      py::object out = fn_->fn(TensorToPyArg(std::move(input)));
      // MindSpore's callables may return one column as a tuple of one.
      if (py::isinstance<py::tuple>(out) && py::len(out) == 1) return PyToTensor(out.cast<py::tuple>()[0], who);
      return PyToTensor(out, who);
    } catch (py::error_already_set& e) {
      return CallableError(who, e);
    } catch (const std::exception& e) {
      return Status::InvalidArgument(who + ": " + e.what());
    }
  }

 private:
  std::shared_ptr<PyCallable> fn_;
  uint64_t ref_;
  int inputs_, outputs_;
};

Result<std::unique_ptr<TensorOp>> MakePyFunc(const nlohmann::json& spec) {
  int counts[2] = {1, 1};
  const char* keys[2] = {"num_inputs", "num_outputs"};
  for (int i = 0; i < 2; ++i) {
    if (!spec.contains(keys[i])) continue;
    const auto& v = spec[keys[i]];
    if (!v.is_number_integer() || v.get<int64_t>() < -1 || v.get<int64_t>() == 0 || v.get<int64_t>() > 64) {
      return Status::InvalidArgument(std::string("PyFunc: '") + keys[i] + "' must be -1 or a count in [1, 64], got " +
                                     v.dump());
    }
    counts[i] = v.get<int>();
  }
  if (!spec.contains("_ref") || !spec["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument("PyFunc: the spec has no '_ref' to a registered Python callable");
  }
  const uint64_t ref = spec["_ref"].get<uint64_t>();
  std::shared_ptr<PyCallable> fn;
  {
    std::lock_guard<std::mutex> lock(TableMutex());
    auto it = Table().find(ref);
    if (it != Table().end()) fn = it->second;
  }
  if (!fn) {
    return Status::InvalidArgument("PyFunc: no Python callable #" + std::to_string(ref) +
                                   " in this process (plans with Python callables run where they were built)");
  }
  return std::unique_ptr<TensorOp>(new PyFuncOp(std::move(fn), ref, counts[0], counts[1]));
}

}  // namespace

void BindPyFunc(py::module_& m) {
  // pybind11 caches numpy's C API in a function-local static whose first use
  // imports numpy: do it now, under the GIL on the importing thread, not on
  // workers (one would wait for the static's guard holding the GIL while the
  // other waits for the GIL inside the import).
  py::detail::npy_api::get();
  ToRelease();
  Table();
  TableIds();
  RegisterOp("PyFunc", MakePyFunc);
  // The id of `fn` for {"op": "PyFunc", "_ref": id}; one id per callable.
  m.def("register_callable", [](py::object fn) {
    if (!PyCallable_Check(fn.ptr())) throw StatusError(Status::InvalidArgument("map: operation is not callable"));
    std::lock_guard<std::mutex> lock(TableMutex());
    auto found = TableIds().find(fn.ptr());
    if (found != TableIds().end()) return found->second;
    auto c = std::make_shared<PyCallable>();
    c->name = py::hasattr(fn, "__qualname__") ? py::str(fn.attr("__qualname__")).cast<std::string>()
                                              : py::str(py::type::of(fn).attr("__qualname__")).cast<std::string>();
    c->fn = fn;
    static uint64_t next_id = 1;  // under TableMutex
    const uint64_t id = next_id++;
    Table()[id] = std::move(c);
    TableIds()[fn.ptr()] = id;
    return id;
  });
  // Drops the registry's reference to callable `ref` (a GeneratorDataset
  // source whose datasets are all gone). Only for callables no op holds:
  // ops keep their callable (PyFuncOp) and release it without the GIL.
  m.def("unregister_callable", [](uint64_t ref) {
    std::shared_ptr<PyCallable> gone;  // released here, with the GIL, after the lock
    {
      std::lock_guard<std::mutex> lock(TableMutex());
      auto it = Table().find(ref);
      if (it == Table().end()) return;
      gone = std::move(it->second);
      Table().erase(it);
      TableIds().erase(gone->fn.ptr());
    }
  });
  // One op applied by hand (vision ops are callable, as MindSpore's are):
  // `value` is the op's one input, or a tuple of its inputs for a
  // multi-column op (image and boxes; a batch's images and labels; the
  // arrays Concatenate joins). Values
  // are what a map op's callable takes and returns (bytes, str or array); an
  // op that gives several columns returns a tuple.
  m.def(
      "apply_op",
      [](const std::string& spec_json, py::object value, py::object seed) {
        nlohmann::json spec = nlohmann::json::parse(spec_json, nullptr, false);
        if (spec.is_discarded()) throw StatusError(Status::InvalidArgument("apply_op: spec is not JSON"));
        auto ops = ValueOrThrow(BuildColumnOps({spec}));
        const TensorOp& op = *ops[0];
        std::vector<Tensor> inputs;
        if (py::isinstance<py::tuple>(value)) {
          for (py::handle v : value.cast<py::tuple>())
            inputs.push_back(ValueOrThrow(PyToTensor(v, "a value given to " + op.name())));
        } else {
          inputs.push_back(ValueOrThrow(PyToTensor(value, "the value given to " + op.name())));
        }
        // num_inputs() -1: any number of columns (Concatenate).
        if (op.num_inputs() >= 0 && static_cast<int>(inputs.size()) != op.num_inputs())
          throw StatusError(Status::InvalidArgument(op.name() + " takes " + std::to_string(op.num_inputs()) +
                                                    " input(s), got " + std::to_string(inputs.size())));
        ThrowIfError(CheckStringInputs(op, inputs.data(), inputs.size()));
        std::mt19937_64 rng(seed.is_none() ? std::random_device{}() : seed.cast<uint64_t>());
        std::vector<Tensor> outputs;
        {
          py::gil_scoped_release nogil;
          if (op.num_inputs() == 1 && op.num_outputs() == 1)
            outputs.push_back(ValueOrThrow(op.Apply(std::move(inputs[0]), rng)));
          else
            outputs = ValueOrThrow(op.ApplyColumns(std::move(inputs), rng));
        }
        auto to_py = [](Tensor t) {
          return t.type() == TensorType::kBytes
                     ? py::object(py::bytes(reinterpret_cast<const char*>(t.data()), t.size_bytes()))
                     : TensorToPyArg(std::move(t));
        };
        if (outputs.size() == 1 && op.num_outputs() == 1) return to_py(std::move(outputs[0]));
        py::tuple out(outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) out[i] = to_py(std::move(outputs[i]));
        return py::object(std::move(out));
      },
      py::arg("spec_json"), py::arg("value"), py::arg("seed") = py::none());
  // The audio module's utils (melscale_fbanks, linear_fbanks, create_dct):
  // the matrices its ops use, as float32 arrays (pipeline/ops/audio_util.h).
  m.def("audio_matrix", [](const std::string& request_json) {
    nlohmann::json request = nlohmann::json::parse(request_json, nullptr, false);
    return TensorToPyArg(ValueOrThrow(ops::AudioMatrix(request)));
  });
}

}  // namespace mindrecord::py_binding
