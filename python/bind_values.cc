#include "python/bind_values.h"

#include <algorithm>
#include <deque>

#include "mindrecord/prefetch.h"

namespace mindrecord::py_binding {

namespace {

using npy = py::detail::npy_api;

int TypeNum(DataType t) {
  switch (t) {
    case DataType::kInt32: return npy::NPY_INT32_;
    case DataType::kInt64: return npy::NPY_INT64_;
    case DataType::kFloat32: return npy::NPY_FLOAT_;
    case DataType::kFloat64: return npy::NPY_DOUBLE_;
    default: return npy::NPY_UINT8_;
  }
}

py::object Steal(PyObject* o) {
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// The tensor type of the numpy types TypeNum gives.
TensorType TensorTypeOf(int typenum) {
  switch (typenum) {
    case npy::NPY_INT32_: return TensorType::kInt32;
    case npy::NPY_INT64_: return TensorType::kInt64;
    case npy::NPY_FLOAT_: return TensorType::kFloat32;
    case npy::NPY_DOUBLE_: return TensorType::kFloat64;
    default: return TensorType::kUInt8;
  }
}

// A new C-contiguous array holding a copy of `nbytes` at `src` (`src` null:
// uninitialized). Arrays of at least kTensorPoolMinBytes take their buffer
// from the tensor pool: the blocks row readers fill and drop every few
// hundred rows would otherwise be mapped afresh by malloc (they are above its
// mmap and trim thresholds) and every page faulted in again.
py::object CopyArray(int typenum, int nd, const int64_t* dims, const char* src, size_t nbytes) {
  const npy& api = npy::get();
  static_assert(sizeof(Py_intptr_t) == sizeof(int64_t));
  const TensorType type = TensorTypeOf(typenum);
  int64_t elems = 1;
  for (int i = 0; i < nd; ++i) elems *= dims[i];
  py::object a;
  if (static_cast<size_t>(elems) * TensorTypeSize(type) >= kTensorPoolMinBytes) {
    a = TensorToArray(Tensor::Make(type, std::vector<int64_t>(dims, dims + nd)));
  } else {
    a = Steal(api.PyArray_NewFromDescr_(api.PyArray_Type_, api.PyArray_DescrFromType_(typenum), nd,
                                        reinterpret_cast<Py_intptr_t*>(const_cast<int64_t*>(dims)), nullptr,
                                        nullptr, 0, nullptr));
  }
  if (nbytes && src) std::memcpy(py::detail::array_proxy(a.ptr())->data, src, nbytes);
  return a;
}

// A read-only array over `data`, kept alive by `base`; of numpy array
// subclass `type` (nullptr: numpy.ndarray).
py::object ViewArray(int typenum, int nd, const int64_t* dims, const char* data, const py::object& base,
                     PyTypeObject* type = nullptr) {
  const npy& api = npy::get();
  py::object a = Steal(api.PyArray_NewFromDescr_(type ? type : api.PyArray_Type_, api.PyArray_DescrFromType_(typenum),
                                                 nd, reinterpret_cast<Py_intptr_t*>(const_cast<int64_t*>(dims)),
                                                 nullptr, const_cast<char*>(data), 0, nullptr));
  if (api.PyArray_SetBaseObject_(a.ptr(), base.inc_ref().ptr()) != 0) throw py::error_already_set();
  return a;
}

// An object that keeps `owner` (e.g. a shard's mapping) alive while it lives:
// the base of arrays over the owner's bytes.
py::capsule KeepAlive(std::shared_ptr<const void> owner) {
  auto* keep = new std::shared_ptr<const void>(std::move(owner));
  return py::capsule(keep, [](void* k) { delete static_cast<std::shared_ptr<const void>*>(k); });
}

// numpy's scalar types and numpy.array, looked up once (numpy outlives us).
const py::object& NumpyAttr(const char* name) {
  static auto* np = new py::object(py::module_::import("numpy"));
  static auto* cache = new std::deque<std::pair<std::string, py::object>>();  // references stay valid
  for (const auto& [n, o] : *cache)
    if (n == name) return o;
  cache->emplace_back(name, np->attr(name));
  return cache->back().second;
}

}  // namespace

Result<ValueStyle> ParseValueStyle(std::string_view name) {
  if (name == "python") return ValueStyle::kPython;
  if (name == "numpy") return ValueStyle::kNumpy;
  if (name == "mindspore") return ValueStyle::kMindSpore;
  return Status::InvalidArgument("value style '" + std::string(name) + "' is not one of python, numpy, mindspore");
}

void RowChunk::Add(const RowView& row) {
  if (cells_.empty()) cells_.reserve(slots_.size() * 64);
  for (size_t slot : slots_) {
    const FieldView& f = row[slot];
    Cell c;
    c.field = f.field;
    c.kind = f.kind;
    c.i = f.i;
    c.f = f.f;
    if (f.kind == Value::Kind::kString || f.kind == Value::Kind::kBytes || f.kind == Value::Kind::kArray) {
      c.len = f.data.size();
      c.mapped = f.mapped && row.mapping() != nullptr;
      if (c.mapped) {
        c.ptr = f.data.data();
        c.owner = &row.mapping();  // the reader's, stable while it lives
        c.file = row.mapped_file();
      } else {
        c.off = arena_.size();
        arena_.append(f.data);
      }
      if (f.kind == Value::Kind::kArray) {
        c.dims_at = static_cast<uint32_t>(dims_.size());
        c.ndim = static_cast<uint32_t>(f.shape.size());
        dims_.insert(dims_.end(), f.shape.begin(), f.shape.end());
      }
    }
    cells_.push_back(c);
  }
  value_bytes_ += row.value_bytes();
  ++rows_;
}

void RowChunk::Clear() {
  blocks_.clear();
  placed_ = false;
  cells_.clear();
  arena_.clear();
  dims_.clear();
  rows_ = 0;
  value_bytes_ = 0;
}

RowChunk::Objects::Mapping& RowChunk::MappingOf(const Cell& c, Objects* objects) const {
  for (auto& m : objects->mappings)
    if (m.owner == c.owner) return m;
  objects->mappings.push_back({c.owner, KeepAlive(*c.owner), py::object()});
  return objects->mappings.back();
}

bool RowChunk::Placed(const Cell& c, ValueStyle style, bool zero_copy) const {
  if (style != ValueStyle::kMindSpore) return false;
  switch (c.kind) {
    case Value::Kind::kInt:
    case Value::Kind::kFloat: return true;
    case Value::Kind::kBytes:
    case Value::Kind::kArray: return !(zero_copy && c.mapped);
    default: return false;
  }
}

std::string_view RowChunk::PlacedBytes(const Cell& c, char (&scalar)[8]) const {
  if (c.kind == Value::Kind::kInt || c.kind == Value::Kind::kFloat) {
    const DataType type = c.field->type;
    const int32_t i32 = static_cast<int32_t>(c.i);
    const float f32 = static_cast<float>(c.f);
    const void* src = type == DataType::kInt32     ? static_cast<const void*>(&i32)
                      : type == DataType::kInt64   ? static_cast<const void*>(&c.i)
                      : type == DataType::kFloat32 ? static_cast<const void*>(&f32)
                                                   : static_cast<const void*>(&c.f);
    const size_t n = DataTypeSize(type);
    std::memcpy(scalar, src, n);
    return {scalar, n};
  }
  return {c.mapped ? c.ptr : arena_.data() + c.off, c.len};
}

void RowChunk::Place(ValueStyle style, bool zero_copy) {
  if (placed_ && placed_style_ == style && placed_zero_copy_ == zero_copy) return;
  blocks_.clear();
  for (Cell& c : cells_) c.block = -1;
  placed_ = true;
  placed_style_ = style;
  placed_zero_copy_ = zero_copy;
  // What is left to place, each value aligned to 16 bytes: the last block
  // is no larger than that (it holds no unused tail).
  size_t left = 0;
  for (const Cell& c : cells_) {
    if (Placed(c, style, zero_copy)) left += (c.kind == Value::Kind::kBytes || c.kind == Value::Kind::kArray ? c.len : 8) + 15;
  }
  uint8_t* data = nullptr;
  size_t used = 0, size = 0;
  // A mapped value is copied from a random place in the shard: its lines are
  // prefetched a few cells ahead.
  CopyEachPrefetched(
      cells_.size(),
      [&](size_t i) { return cells_[i].mapped ? std::string_view(cells_[i].ptr, cells_[i].len) : std::string_view(); },
      [&](size_t i) {
        Cell& c = cells_[i];
        if (!Placed(c, style, zero_copy)) return;
        char scalar[8];
        const std::string_view bytes = PlacedBytes(c, scalar);
        size_t at = (used + 15) & ~size_t{15};  // every element type aligned
        if (data == nullptr || at + bytes.size() > size) {
          size = std::max(std::min(kArrayBlock, left), bytes.size());
          blocks_.push_back(Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(size)}));
          data = blocks_.back().MutableData();
          at = 0;
        }
        if (!bytes.empty()) std::memcpy(data + at, bytes.data(), bytes.size());
        c.block = static_cast<int32_t>(blocks_.size() - 1);
        c.block_at = at;
        used = at + bytes.size();
        left -= std::min(left, bytes.size() + 15);
      });
}

py::object RowChunk::BlockArray(const Cell& c, int typenum, int nd, const int64_t* dims, Objects* objects) const {
  const size_t b = static_cast<size_t>(c.block);
  if (objects->blocks.size() <= b) objects->blocks.resize(b + 1);
  py::object& block = objects->blocks[b];
  if (!block) block = TensorToArray(blocks_[b]);
  char* dst = py::detail::array_proxy(block.ptr())->data + c.block_at;
  const npy& api = npy::get();
  py::object a = Steal(api.PyArray_NewFromDescr_(
      objects->array_type ? objects->array_type : api.PyArray_Type_, api.PyArray_DescrFromType_(typenum), nd,
      reinterpret_cast<Py_intptr_t*>(const_cast<int64_t*>(dims)), nullptr, dst,
      npy::NPY_ARRAY_C_CONTIGUOUS_ | npy::NPY_ARRAY_ALIGNED_ | npy::NPY_ARRAY_WRITEABLE_, nullptr));
  if (api.PyArray_SetBaseObject_(a.ptr(), block.inc_ref().ptr()) != 0) throw py::error_already_set();
  return a;
}

py::object RowChunk::ToPy(const Cell& c, ValueStyle style, bool zero_copy, Objects* objects) const {
  const char* p = c.mapped ? c.ptr : arena_.data() + c.off;
  const DataType type = c.field->type;
  const bool view = zero_copy && c.mapped;
  switch (c.kind) {
    case Value::Kind::kNull:
      return py::none();
    case Value::Kind::kInt:
    case Value::Kind::kFloat: {
      if (style == ValueStyle::kMindSpore) return BlockArray(c, TypeNum(type), 0, nullptr, objects);
      py::object v = c.kind == Value::Kind::kInt ? Steal(PyLong_FromLongLong(c.i)) : Steal(PyFloat_FromDouble(c.f));
      if (style == ValueStyle::kPython) return v;
      const char* name = type == DataType::kInt32 ? "int32" : type == DataType::kInt64 ? "int64"
                         : type == DataType::kFloat32 ? "float32" : "float64";
      return NumpyAttr(name)(v);
    }
    case Value::Kind::kString: {
      py::object s = Steal(PyUnicode_DecodeUTF8(p, static_cast<Py_ssize_t>(c.len), "surrogateescape"));
      if (style != ValueStyle::kMindSpore) return s;
      py::object a = NumpyAttr("array")(s);  // 0-d, dtype <U
      if (objects->array_type) return a.attr("view")(py::handle(reinterpret_cast<PyObject*>(objects->array_type)));
      return a;
    }
    case Value::Kind::kBytes: {
      const int64_t n = static_cast<int64_t>(c.len);
      if (style == ValueStyle::kMindSpore) {
        if (view) return ViewArray(npy::NPY_UINT8_, 1, &n, p, MappingOf(c, objects).keep, objects->array_type);
        return BlockArray(c, npy::NPY_UINT8_, 1, &n, objects);
      }
      if (view) {
        // A slice of one read-only memoryview over the whole mapped file.
        auto& m = MappingOf(c, objects);
        if (!m.memoryview) {
          const int64_t size = static_cast<int64_t>(c.file.size());
          m.memoryview = Steal(PyMemoryView_FromObject(ViewArray(npy::NPY_UINT8_, 1, &size, c.file.data(), m.keep).ptr()));
        }
        const Py_ssize_t at = p - c.file.data();
        return Steal(PySequence_GetSlice(m.memoryview.ptr(), at, at + static_cast<Py_ssize_t>(c.len)));
      }
      return Steal(PyBytes_FromStringAndSize(p, static_cast<Py_ssize_t>(c.len)));
    }
    case Value::Kind::kArray: {
      const int64_t* dims = dims_.data() + c.dims_at;
      const int nd = static_cast<int>(c.ndim);
      if (view) {
        return ViewArray(TypeNum(type), nd, dims, p, MappingOf(c, objects).keep,
                         style == ValueStyle::kMindSpore ? objects->array_type : nullptr);
      }
      if (style == ValueStyle::kMindSpore) return BlockArray(c, TypeNum(type), nd, dims, objects);
      return CopyArray(TypeNum(type), nd, dims, p, c.len);
    }
  }
  return py::none();
}

namespace {
// Takes `o` out of the cycle collector's care: a row's list and its Tensors
// hold only arrays, strings and numbers, so they cannot be part of a cycle
// until the caller makes one. Tracked, thousands of them per chunk (a list
// per row, and the Tensor subclass's instances, which Python tracks) made
// the collector run full collections over every object of the process: a
// shuffled epoch of ~1 KiB rows after `import torch` ran at half the speed.
// (CPython leaves a dict untracked while its values are not of a collected
// type; a Tensor is, so a dict of Tensors is untracked here too.)
void Untrack(PyObject* o) {
  if (PyObject_IS_GC(o) && PyObject_GC_IsTracked(o)) PyObject_GC_UnTrack(o);
}
}  // namespace

void RowChunk::AppendRows(const std::vector<py::object>& keys, ValueStyle style, bool zero_copy, py::list* out,
                          const RowsAs& as) {
  Place(style, zero_copy);
  Objects objects;
  objects.array_type = as.array_type;
  const size_t ncol = slots_.size();
  for (size_t r = 0; r < rows_; ++r) {
    // A dict presized: the first key does not resize the empty dict's table.
    py::object row = Steal(as.lists ? PyList_New(static_cast<Py_ssize_t>(ncol))
                                    : _PyDict_NewPresized(static_cast<Py_ssize_t>(ncol)));
    for (size_t c = 0; c < ncol; ++c) {
      py::object v = ToPy(cells_[r * ncol + c], style, zero_copy, &objects);
      if (as.array_type) Untrack(v.ptr());
      if (as.lists) {
        PyList_SET_ITEM(row.ptr(), static_cast<Py_ssize_t>(c), v.release().ptr());  // takes the reference
      } else if (PyDict_SetItem(row.ptr(), keys[c].ptr(), v.ptr()) != 0) {
        throw py::error_already_set();
      }
    }
    if (as.lists || as.array_type) Untrack(row.ptr());  // a list, or a dict a Tensor made tracked
    if (PyList_Append(out->ptr(), row.ptr()) != 0) throw py::error_already_set();
  }
}

namespace {
// Copies `rows` one after another to `dst`. Rows of a mapped shard lie at
// random places: each row's lines are prefetched a few rows ahead, so the
// copy does not wait for them one row at a time.
void CopyRows(const std::vector<std::string_view>& rows, char* dst) {
  CopyEachPrefetched(
      rows.size(), [&](size_t i) { return rows[i]; },
      [&](size_t i) {
        if (!rows[i].empty()) std::memcpy(dst, rows[i].data(), rows[i].size());
        dst += rows[i].size();
      });
}

// A new 1-D uint8 array holding `rows` one after another; `*dst` its bytes.
py::object RowsBlock(const std::vector<std::string_view>& rows, char** dst) {
  int64_t total = 0;
  for (const auto& r : rows) total += static_cast<int64_t>(r.size());
  py::object block = CopyArray(npy::NPY_UINT8_, 1, &total, nullptr, 0);
  *dst = py::detail::array_proxy(block.ptr())->data;
  CopyRows(rows, *dst);
  return block;
}

// A writable 1-D uint8 array of the `n` bytes at `at`, which lie in `block`
// (a numpy array that the new array keeps alive).
py::object BlockRow(char* at, size_t n, const py::object& block) {
  const npy& api = npy::get();
  const auto len = static_cast<int64_t>(n);
  py::object a = Steal(api.PyArray_NewFromDescr_(api.PyArray_Type_, api.PyArray_DescrFromType_(npy::NPY_UINT8_), 1,
                                                 reinterpret_cast<Py_intptr_t*>(const_cast<int64_t*>(&len)), nullptr,
                                                 at, npy::NPY_ARRAY_C_CONTIGUOUS_ | npy::NPY_ARRAY_WRITEABLE_, nullptr));
  if (api.PyArray_SetBaseObject_(a.ptr(), block.inc_ref().ptr()) != 0) throw py::error_already_set();
  return a;
}

// A list of the `n` objects make(i) returns, made before the list itself.
// The list's item array is a malloc of 1 KiB or more at 128+ items, which
// makes glibc merge its free small chunks (malloc_consolidate): made first,
// it merged the ones the previous batch's arrays had just freed (numpy's
// per-array shape buffers), and each new array's then came from the slow
// path. The items wait on the stack (up to kScratchRows of them).
constexpr size_t kScratchRows = 512;
template <class Make>
py::list ListOf(size_t n, Make&& make) {
  PyObject* on_stack[kScratchRows];
  std::vector<PyObject*> on_heap(n > kScratchRows ? n : 0);
  PyObject** items = n > kScratchRows ? on_heap.data() : on_stack;
  size_t made = 0;
  auto drop = [&] {
    for (size_t i = 0; i < made; ++i) Py_DECREF(items[i]);
  };
  try {
    for (; made < n; ++made) items[made] = make(made).release().ptr();
  } catch (...) {
    drop();
    throw;
  }
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) {
    drop();
    throw py::error_already_set();
  }
  for (size_t i = 0; i < n; ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), items[i]);
  return py::reinterpret_steal<py::list>(list);
}
}  // namespace

py::object BytesRowsToMindSpore(const std::vector<std::string_view>& rows) {
  bool same = true;
  for (const auto& r : rows) same = same && r.size() == rows.front().size();
  if (same && !rows.empty()) {
    const int64_t dims[2] = {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows.front().size())};
    py::object a = CopyArray(npy::NPY_UINT8_, 2, dims, nullptr, 0);
    CopyRows(rows, py::detail::array_proxy(a.ptr())->data);
    return a;
  }
  char* dst = nullptr;
  py::object block = RowsBlock(rows, &dst);
  return ListOf(rows.size(), [&](size_t i) {
    py::object a = BlockRow(dst, rows[i].size(), block);
    dst += rows[i].size();
    return a;
  });
}

py::object BytesTensorsToMindSpore(const std::vector<Tensor>& rows, bool views) {
  bool same = true;
  size_t to_copy = 0;  // read-only rows handed out as copies
  for (const Tensor& t : rows) {
    if (t.type() != TensorType::kBytes) return py::object();
    same = same && t.size_bytes() == rows.front().size_bytes();
    to_copy += t.read_only() && !views;
  }
  auto text = [&rows](size_t i) {
    return std::string_view(reinterpret_cast<const char*>(rows[i].data()), rows[i].size_bytes());
  };
  if (rows.size() == 1 && to_copy == 0) {
    const Tensor& t = rows.front();
    const int64_t dims[2] = {1, static_cast<int64_t>(t.size_bytes())};
    if (t.read_only()) return ViewArray(npy::NPY_UINT8_, 2, dims, text(0).data(), KeepAlive(t.owner()));
    return TensorToArray(t.Reshaped({dims[0], dims[1]}));
  }
  if (same || to_copy == rows.size()) {
    std::vector<std::string_view> all(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) all[i] = text(i);
    return BytesRowsToMindSpore(all);
  }
  // Rows to copy go into one block (as BytesRowsToMindSpore copies them);
  // the others share one owner object per run of rows over one owner.
  py::object block;
  char* dst = nullptr;
  if (to_copy > 0) {  // only without views, so every read-only row is copied
    std::vector<std::string_view> copied;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].read_only()) copied.push_back(text(i));
    block = RowsBlock(copied, &dst);
  }
  std::vector<std::pair<const Tensor*, py::object>> mappings;  // few: one per shard mapping
  const Tensor* last_owned = nullptr;
  py::object owned;
  return ListOf(rows.size(), [&](size_t i) {
    const Tensor& t = rows[i];
    const std::string_view row = text(i);
    const int64_t n = static_cast<int64_t>(row.size());
    if (t.read_only() && views) {
      auto it = std::find_if(mappings.begin(), mappings.end(), [&](const auto& o) { return o.first->SameOwner(t); });
      if (it == mappings.end()) it = mappings.insert(mappings.end(), {&t, KeepAlive(t.owner())});
      return ViewArray(npy::NPY_UINT8_, 1, &n, row.data(), it->second);
    }
    if (t.read_only()) {
      py::object a = BlockRow(dst, row.size(), block);
      dst += row.size();
      return a;
    }
    if (last_owned == nullptr || !last_owned->SameOwner(t)) owned = KeepAlive(t.owner());
    last_owned = &t;
    return BlockRow(const_cast<char*>(row.data()), row.size(), owned);
  });
}

py::object StringRowsToMindSpore(const std::vector<std::string_view>& rows) {
  py::list l(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    PyObject* s = PyUnicode_DecodeUTF8(rows[i].data(), static_cast<Py_ssize_t>(rows[i].size()), "surrogateescape");
    if (s == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(l.ptr(), static_cast<Py_ssize_t>(i), s);
  }
  return NumpyAttr("array")(l);
}

}  // namespace mindrecord::py_binding
