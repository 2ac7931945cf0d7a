// Shared helpers of the Python binding: Status -> exception, Value <-> Python
// conversion, Tensor -> numpy without a copy.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "pipeline/tensor.h"

namespace mindrecord::py_binding {

namespace py = pybind11;

// Carries a non-OK Status to the module's exception translator.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status s) : status_(std::move(s)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return status_.message().c_str(); }

 private:
  Status status_;
};

inline void ThrowIfError(const Status& s) {
  if (!s.ok()) throw StatusError(s);
}
template <typename T>
T ValueOrThrow(Result<T>&& r) {
  if (!r.ok()) throw StatusError(r.status());
  return std::move(r).value();
}

// Registers the exception classes and the translator on `m`.
void RegisterErrors(py::module_& m);

// A row value as a Python object: int, float, str, bytes, or a numpy array
// that takes over the value's buffer.
py::object ValueToPy(Value&& v);
// A Python object as a value of `field`; InvalidArgument naming the field.
Result<Value> PyToValue(const Field& field, py::handle obj);
// A dict as a row of `schema`, validated; errors name the row and the field.
Row PyToRow(const Schema& schema, py::handle obj, size_t row_index);
py::dict RowToPy(Row&& row);

// numpy dtype of a numeric tensor type.
py::dtype TensorDtype(TensorType t);
// A numpy array over the tensor's buffer; the array keeps the buffer alive.
// A read-only tensor (Tensor::View, e.g. of a mapped shard) is copied into a
// writable array, or with `view_read_only` handed out as a read-only array
// over the same bytes.
py::array TensorToArray(Tensor t, bool view_read_only = false);

// String arrays (bind_strings.cc; the GIL must be held): a numpy str array
// as a kStrings tensor (`who` names the caller in errors), a kStrings tensor
// as a numpy str array of its shape, and rows of one shape stacked into one
// array [rows, ...] (a null object when some row is not kStrings or has
// another shape).
Result<Tensor> StrArrayToStrings(const py::array& array, const std::string& who);
py::array StringsToArray(const Tensor& t);
py::object StackedStrings(const std::vector<Tensor>& rows);

void BindIo(py::module_& m);
// mindrecord.text's pretrained vectors (bind_vectors.cc).
void BindVectors(py::module_& m);
void BindPipeline(py::module_& m);
void BindConvert(py::module_& m);
void BindPyFunc(py::module_& m);
void BindPySource(py::module_& m);
void BindNumpySource(py::module_& m);
void BindRows(py::module_& m);
void BindCrypto(py::module_& m);
void BindNativeTokenizer(py::module_& m);
void BindBatchMap(py::module_& m);
void BindImageIo(py::module_& m);

// ---- Python callables (bind_pyfunc.cc), for the ops and batch maps that
// call them. The GIL must be held.
// The callable registered under `ref` (_core.register_callable) and its
// qualified name; None when there is none.
py::object RegisteredCallable(uint64_t ref, std::string* name);
// The tensor type of a numpy dtype in native byte order, or nullptr.
const TensorType* TensorTypeOfDtype(const py::dtype& dt);
// What a callable returned as a tensor (numpy arrays of numeric dtypes,
// bytes, str); `who` names the callable in errors.
Result<Tensor> PyToTensor(py::handle obj, const std::string& who);
// A tensor as a callable's argument (numeric: an array over its buffer;
// bytes: 1-D uint8; strings: a 0-d str array).
py::object TensorToPyArg(Tensor t);
// The error for an exception a callable raised: InvalidArgument naming `who`
// and carrying the exception (PyExceptionDetail), so that the exception the
// translator raises for it is chained to the original.
Status CallableError(const std::string& who, const py::error_already_set& e);

// A Python exception carried by a Status. Made with the GIL held; released
// where the last Status holding it dies: at once on a thread holding the
// GIL, else queued for ReleaseQueuedExceptions (taking the GIL there could
// deadlock against a lock that thread holds). Thread safety: immutable; may
// be destroyed on any thread.
class PyExceptionDetail : public StatusDetail {
 public:
  explicit PyExceptionDetail(py::object exc);
  ~PyExceptionDetail() override;
  PyExceptionDetail(const PyExceptionDetail&) = delete;
  PyExceptionDetail& operator=(const PyExceptionDetail&) = delete;
  // Borrowed.
  PyObject* exception() const { return exc_; }

 private:
  PyObject* exc_;
};
// Drops a reference to `obj`: at once on a thread holding the GIL, else
// queued for ReleaseQueuedExceptions (taking the GIL there could deadlock
// against a lock that thread holds). Thread safety: any thread.
void DecRefAnywhere(PyObject* obj);
// Drops the references queued by DecRefAnywhere (exceptions of details that
// died without the GIL, among others). The GIL must be held.
void ReleaseQueuedExceptions();

}  // namespace mindrecord::py_binding
