// mindrecord._core: the extension module. Status codes become Python
// exceptions that subclass the built-ins, with the C++ message.
#include <algorithm>
#include <cstring>
#include <limits>

#include "mindrecord/version.h"
#include "python/py_common.h"
#include "python/worker_gil.h"

namespace mindrecord::py_binding {

namespace {

// Each error is both the built-in Python exception our API documents and
// RuntimeError, which MindSpore raises for every failure of its C++ layer
// (missing or corrupt files, existing output), so `except RuntimeError:` in
// MindSpore code and `except FileNotFoundError:` both catch it.
PyObject* g_invalid = nullptr;
PyObject* g_not_found = nullptr;
PyObject* g_exists = nullptr;
PyObject* g_io = nullptr;
PyObject* g_corruption = nullptr;
PyObject* g_unsupported = nullptr;

PyObject* MakeError(py::module_& m, const char* name, PyObject* base, const char* doc) {
  std::string qual = std::string("mindrecord.") + name;
  py::tuple bases = py::make_tuple(py::handle(base), py::handle(PyExc_RuntimeError));
  PyObject* e = PyErr_NewExceptionWithDoc(qual.c_str(), doc, bases.ptr(), nullptr);
  if (e == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(e));
  return e;
}

PyObject* ExceptionFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return g_invalid;
    case StatusCode::kNotFound: return g_not_found;
    case StatusCode::kAlreadyExists: return g_exists;
    case StatusCode::kIOError: return g_io;
    case StatusCode::kCorruption: return g_corruption;
    case StatusCode::kNotSupported: return g_unsupported;
    default: return PyExc_RuntimeError;
  }
}

}  // namespace

void RegisterErrors(py::module_& m) {
  g_invalid = MakeError(m, "InvalidArgumentError", PyExc_ValueError,
                        "A bad argument, row or plan (ValueError and RuntimeError).");
  g_not_found = MakeError(m, "NotFoundError", PyExc_FileNotFoundError,
                          "A missing file, shard or index (FileNotFoundError and RuntimeError).");
  g_exists = MakeError(m, "AlreadyExistsError", PyExc_FileExistsError,
                       "Output that exists while overwrite is off (FileExistsError and RuntimeError).");
  g_io = MakeError(m, "ReadWriteError", PyExc_OSError,
                   "The OS refused a read, write, rename or fsync (OSError and RuntimeError).");
  g_corruption = MakeError(m, "CorruptionError", PyExc_OSError,
                           "Bytes on disk that do not parse or do not agree (names file, offset, expected vs found; "
                           "OSError and RuntimeError).");
  g_unsupported = MakeError(m, "UnsupportedError", PyExc_ValueError,
                            "A format version or feature this build cannot handle (ValueError and RuntimeError).");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      PyObject* type = ExceptionFor(e.status().code());
      const auto* raised = dynamic_cast<const PyExceptionDetail*>(e.status().detail());
      if (raised == nullptr) {
        PyErr_SetString(type, e.status().message().c_str());
        return;
      }
      // A Python callable's exception: chained as the cause (`raise ... from`).
      py::object err = py::reinterpret_borrow<py::object>(type)(e.status().message());
      PyException_SetCause(err.ptr(), py::reinterpret_borrow<py::object>(raised->exception()).release().ptr());
      PyErr_SetObject(type, err.ptr());
    }
  });
}

// ---- values -----------------------------------------------------------------

namespace {

const char* NumpyFormat(DataType t) {
  switch (t) {
    case DataType::kInt32: return "<i4";
    case DataType::kInt64: return "<i8";
    case DataType::kFloat32: return "<f4";
    default: return "<f8";
  }
}

std::string TypeNameOf(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

Status Bad(const Field& f, const std::string& why) {
  return Status::InvalidArgument("field '" + f.name + "' (" + DataTypeName(f.type) + (f.has_shape ? " array" : "") +
                                 "): " + why);
}

Result<Value> ArrayValue(const Field& f, py::handle obj) {
  if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj))
    return Bad(f, "expected an array, got " + TypeNameOf(obj));
  py::array arr = py::array::ensure(obj);
  if (!arr) {
    PyErr_Clear();
    return Bad(f, "expected an array, got " + TypeNameOf(obj));
  }
  const char kind = arr.dtype().kind();
  const bool int_field = IsIntegerType(f.type);
  if (arr.size() > 0 && (int_field ? (kind != 'i' && kind != 'u' && kind != 'b') : (kind != 'i' && kind != 'u' && kind != 'f' && kind != 'b')))
    return Bad(f, "elements of numpy kind '" + std::string(1, kind) + "' (" +
                      std::string(py::str(arr.dtype())) + ") cannot be stored losslessly");
  if (int_field && arr.size() > 0) {
    // Range check through int64 (uint64 values above INT64_MAX are refused too).
    if (kind == 'u' && arr.dtype().itemsize() == 8) {
      auto u = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
      for (ssize_t i = 0; i < u.size(); ++i)
        if (u.data()[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          return Bad(f, "element " + std::to_string(i) + " is out of int64 range");
    }
    if (f.type == DataType::kInt32) {
      auto w = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
      for (ssize_t i = 0; i < w.size(); ++i) {
        const int64_t x = w.data()[i];
        if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
          return Bad(f, "element " + std::to_string(i) + " = " + std::to_string(x) + " is out of int32 range");
      }
    }
  }
  py::array c = py::array::ensure(arr.attr("astype")(py::dtype(NumpyFormat(f.type))),
                                  py::array::c_style | py::array::forcecast);
  std::vector<int64_t> shape(c.shape(), c.shape() + c.ndim());
  std::string data(static_cast<const char*>(c.data()), c.nbytes());
  return Value::Array(f.type, std::move(shape), std::move(data));
}

}  // namespace

Result<Value> PyToValue(const Field& f, py::handle obj) {
  if (obj.is_none()) return Bad(f, "value is None");
  if (f.has_shape) return ArrayValue(f, obj);
  switch (f.type) {
    case DataType::kInt32:
    case DataType::kInt64: {
      if (py::isinstance<py::float_>(obj) || py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) ||
          !PyIndex_Check(obj.ptr()))
        return Bad(f, "expected an integer, got " + TypeNameOf(obj) + " " + std::string(py::repr(obj)));
      py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
      if (!idx) throw py::error_already_set();
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
      if (overflow != 0) return Bad(f, std::string(py::repr(obj)) + " is out of int64 range");
      if (f.type == DataType::kInt32 && (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
        return Bad(f, std::to_string(v) + " is out of int32 range");
      return Value::Int(v);
    }
    case DataType::kFloat32:
    case DataType::kFloat64: {
      if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) ||
          (!PyFloat_Check(obj.ptr()) && !PyIndex_Check(obj.ptr()) && !py::hasattr(obj, "__float__")))
        return Bad(f, "expected a number, got " + TypeNameOf(obj) + " " + std::string(py::repr(obj)));
      if (py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).ndim() != 0)
        return Bad(f, "expected a scalar, got an array");
      if (!PyFloat_Check(obj.ptr()) && PyIndex_Check(obj.ptr())) {
        // An integer stays one, so the writer can refuse it when the field's
        // type cannot hold it exactly (2^40+1 in float32 became 2^40).
        py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
        if (!idx) throw py::error_already_set();
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
        if (overflow == 0) return Value::Int(v);
        const double d = PyLong_AsDouble(idx.ptr());
        if (d == -1.0 && PyErr_Occurred()) {
          PyErr_Clear();
          return Bad(f, std::string(py::repr(obj)) + " is beyond " + DataTypeName(f.type) + "'s range");
        }
        const int same = PyObject_RichCompareBool(py::float_(f.type == DataType::kFloat32 ? static_cast<float>(d) : d).ptr(),
                                                  idx.ptr(), Py_EQ);
        if (same < 0) throw py::error_already_set();
        if (same == 0) return Bad(f, std::string(py::repr(obj)) + " does not fit " + DataTypeName(f.type) + " exactly");
        return Value::Float(d);
      }
      const double d = PyFloat_AsDouble(obj.ptr());
      if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      return Value::Float(d);
    }
    case DataType::kString:
      if (!py::isinstance<py::str>(obj)) return Bad(f, "expected str, got " + TypeNameOf(obj));
      {
        Py_ssize_t n = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
        if (utf8 == nullptr) {  // a lone surrogate has no UTF-8 form
          PyErr_Clear();
          return Bad(f, "the string " + std::string(py::repr(obj)) +
                            " holds a lone surrogate, which has no UTF-8 form (encode it or use a bytes field)");
        }
        return Value::String(std::string(utf8, static_cast<size_t>(n)));
      }
    case DataType::kBytes: {
      if (py::isinstance<py::bytes>(obj)) return Value::Bytes(obj.cast<std::string>());
      if (py::isinstance<py::str>(obj) || !PyObject_CheckBuffer(obj.ptr()))
        return Bad(f, "expected bytes, got " + TypeNameOf(obj));
      py::bytes b = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(obj.ptr()));
      if (!b) throw py::error_already_set();
      return Value::Bytes(b.cast<std::string>());
    }
  }
  return Bad(f, "unknown type");
}

Row PyToRow(const Schema& schema, py::handle obj, size_t row_index) {
  const std::string where = "row " + std::to_string(row_index);
  if (!py::isinstance<py::dict>(obj))
    throw StatusError(Status::InvalidArgument(where + ": expected a dict, got " + TypeNameOf(obj)));
  auto d = py::reinterpret_borrow<py::dict>(obj);
  Row row;
  for (auto kv : d) {
    if (!py::isinstance<py::str>(kv.first))
      throw StatusError(Status::InvalidArgument(where + ": field names must be str, got " + TypeNameOf(kv.first)));
    const std::string name = kv.first.cast<std::string>();
    const Field* f = schema.Find(name);
    if (f == nullptr) continue;  // as MindSpore's FileWriter: fields outside the schema are not stored
    auto v = PyToValue(*f, kv.second);
    if (!v.ok()) throw StatusError(v.status().WithContext(where));
    row.Set(name, std::move(v).value());
  }
  Status st = schema.ValidateRow(row);
  if (!st.ok()) throw StatusError(st.WithContext(where));
  return row;
}

py::object ValueToPy(Value&& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: return py::none();
    case Value::Kind::kInt: return py::int_(v.as_int());
    case Value::Kind::kFloat: return py::float_(v.as_float());
    case Value::Kind::kString: {
      const std::string& s = v.bytes();
      PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case Value::Kind::kBytes: return py::bytes(v.bytes());
    case Value::Kind::kArray: {
      auto* owned = new std::string(std::move(v.mutable_bytes()));
      py::capsule keep(owned, [](void* p) { delete static_cast<std::string*>(p); });
      std::vector<ssize_t> shape(v.shape().begin(), v.shape().end());
      return py::array(py::dtype(NumpyFormat(v.array_dtype())), shape, {}, owned->data(), keep);
    }
  }
  return py::none();
}

py::dict RowToPy(Row&& row) {
  py::dict d;
  for (auto& [name, v] : std::move(row).TakeFields()) d[py::str(name)] = ValueToPy(std::move(v));
  return d;
}

py::dtype TensorDtype(TensorType t) {
  switch (t) {
    case TensorType::kUInt8: return py::dtype("u1");
    case TensorType::kInt8: return py::dtype("i1");
    case TensorType::kInt16: return py::dtype("<i2");
    case TensorType::kInt32: return py::dtype("<i4");
    case TensorType::kInt64: return py::dtype("<i8");
    case TensorType::kFloat32: return py::dtype("<f4");
    case TensorType::kFloat64: return py::dtype("<f8");
    case TensorType::kBool: return py::dtype("?");
    default: return py::dtype("u1");
  }
}

py::array TensorToArray(Tensor t, bool view_read_only) {
  if (t.type() == TensorType::kStrings) return StringsToArray(t);
  auto* owned = new Tensor(std::move(t));
  py::capsule keep(owned, [](void* p) { delete static_cast<Tensor*>(p); });
  std::vector<ssize_t> shape(owned->shape().begin(), owned->shape().end());
  // Handed-out batch buffers are owned by nobody else, so the array may
  // write; a view of a mapped shard (Tensor::View) is copied first, or
  // handed out read-only.
  const bool view = owned->read_only() && view_read_only;
  uint8_t* data = owned->read_only() && !view ? owned->MutableData() : const_cast<uint8_t*>(owned->data());
  py::array a(TensorDtype(owned->type()), shape, {}, data, keep);
  if (view) py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

}  // namespace mindrecord::py_binding

PYBIND11_MODULE(_core, m) {
  namespace mb = mindrecord::py_binding;
  m.doc() = "mindrecord C++ engine binding (use the mindrecord package, not this module)";
  m.attr("__version__") = MINDRECORD_VERSION;  // CMake's project version; mindrecord.__version__ is this
  mb::RegisterErrors(m);
  mb::BindIo(m);
  mb::BindPipeline(m);
  mb::BindConvert(m);
  mb::BindPyFunc(m);
  mb::InstallKeptGil();  // Python ops keep the GIL from row to row (python/worker_gil.h)
  mb::BindPySource(m);
  mb::BindNumpySource(m);
  mb::BindRows(m);
  mb::BindCrypto(m);
  mb::BindNativeTokenizer(m);
  mb::BindBatchMap(m);
  mb::BindImageIo(m);
  mb::BindVectors(m);
}
