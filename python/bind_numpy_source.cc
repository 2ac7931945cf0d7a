// NumpySlicesDataset's numeric columns as a pipeline source that needs no
// Python per row: a "source" leaf of kind "numpy" names a registered object
// ("_ref") whose `columns` attribute is a tuple of numpy arrays, C-contiguous,
// in native byte order, of at least one dimension and of a dtype tensors hold
// (the Python side checks; other data goes through the "python" kind). Row i
// of a column is its slice [i] (shape: the array's without the first
// dimension), a read-only view of the array's memory made by the pipeline's
// workers without the GIL (batching copies it). The source and its rows hold
// references to the arrays; the caller must not resize them (numpy refuses
// while they are referenced) and writes to them while a pipeline reads race
// with the reads, as with any buffer shared between threads.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/prefetch.h"
#include "pipeline/nodes/source_registry.h"
#include "python/object_source.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

namespace {

struct NumpyColumn {
  // Holds a reference to the array for the source and for every row handed
  // out as a view of it; the last one drops it (DecRefAnywhere).
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  TensorType type = TensorType::kUInt8;
  std::vector<int64_t> row_shape;
  uint64_t row_bytes = 0;
};

// Thread safety: as Source; Read needs no GIL.
class NumpySource : public ObjectSource {
 public:
  NumpySource(std::vector<NumpyColumn> cols, std::vector<std::string> names, uint64_t rows, std::string name)
      : ObjectSource(std::move(name), std::move(names), rows), cols_(std::move(cols)) {}

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= num_rows()) {
        MR_RETURN_IF_ERROR(fn(k, Status::InvalidArgument(Where(ids[k]) + ": past the last row"), {}, 0));
        continue;
      }
      std::vector<Tensor> out;
      out.reserve(cols_.size());
      uint64_t bytes = 0;
      for (const NumpyColumn& c : cols_) {
        // A read-only view of the row (batching copies it once, into the batch).
        out.push_back(Tensor::View(c.type, c.row_shape, c.owner, c.data + ids[k] * c.row_bytes));
        bytes += c.row_bytes;
      }
      MR_RETURN_IF_ERROR(fn(k, Status::OK(), std::move(out), bytes));
    }
    return Status::OK();
  }

  std::vector<RowSpec> FixedRows() const override {
    std::vector<RowSpec> specs;
    for (const NumpyColumn& c : cols_) specs.push_back(RowSpec{c.type, c.row_shape, c.row_bytes});
    return specs;
  }

  Status Gather(const std::vector<uint64_t>& ids, const std::vector<uint8_t*>& out) const override {
    if (out.size() != cols_.size()) return Status::Internal("Gather: one buffer per column expected");
    for (uint64_t id : ids) {
      if (id >= num_rows()) return Status::InvalidArgument(Where(id) + ": past the last row");
    }
    for (size_t k = 0; k < cols_.size(); ++k) {
      const NumpyColumn& c = cols_[k];
      const auto bytes = [&](size_t i) {
        return std::string_view(reinterpret_cast<const char*>(c.data + ids[i] * c.row_bytes), c.row_bytes);
      };
      CopyEachPrefetched(ids.size(), bytes,
                         [&](size_t i) { std::memcpy(out[k] + i * c.row_bytes, bytes(i).data(), c.row_bytes); });
    }
    return Status::OK();
  }

 private:
  std::vector<NumpyColumn> cols_;
};

Result<std::unique_ptr<Source>> MakeNumpySource(const nlohmann::json& node) {
  if (!node.contains("_ref") || !node["_ref"].is_number_unsigned()) {
    return Status::InvalidArgument("a 'numpy' source needs '_ref', a registered object's id");
  }
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return Status::Cancelled("Python is shutting down");
  const uint64_t ref = node["_ref"].get<uint64_t>();
  const auto names = node["columns"].get<std::vector<std::string>>();
  const uint64_t rows = node["rows"].get<uint64_t>();
  const std::string name = node.value("name", std::string("NumpySlicesDataset"));
  py::gil_scoped_acquire gil;
  py::object holder = RegisteredCallable(ref, nullptr);
  if (holder.is_none()) {
    return Status::NotFound("no Python object is registered as " + std::to_string(ref) +
                            " in this process (a plan's Python sources do not cross processes)");
  }
  py::tuple arrays = holder.attr("columns");
  if (arrays.size() != names.size()) {
    return Status::InvalidArgument(name + ": " + std::to_string(arrays.size()) + " arrays for " +
                                   std::to_string(names.size()) + " columns");
  }
  std::vector<NumpyColumn> cols;
  for (size_t i = 0; i < arrays.size(); ++i) {
    py::array a = py::reinterpret_borrow<py::array>(arrays[i]);
    const TensorType* type = TensorTypeOfDtype(a.dtype());
    if (type == nullptr || a.ndim() < 1 || !(a.flags() & py::array::c_style) ||
        static_cast<uint64_t>(a.shape(0)) != rows) {
      return Status::InvalidArgument(name + ", column '" + names[i] +
                                     "': not a C-contiguous numeric array of one row per sample");
    }
    NumpyColumn c;
    c.owner = std::shared_ptr<const void>(a.inc_ref().ptr(), [](const void* o) {
      DecRefAnywhere(static_cast<PyObject*>(const_cast<void*>(o)));
    });
    c.data = static_cast<const uint8_t*>(a.data());
    c.type = *type;
    c.row_shape.assign(a.shape() + 1, a.shape() + a.ndim());
    c.row_bytes = rows == 0 ? 0 : static_cast<uint64_t>(a.nbytes()) / rows;
    cols.push_back(std::move(c));
  }
  return std::unique_ptr<Source>(new NumpySource(std::move(cols), names, rows, name));
}

}  // namespace

void BindNumpySource(py::module_&) { RegisterSource("numpy", MakeNumpySource); }

}  // namespace mindrecord::py_binding
