// Row values -> Python objects for the row readers (FileReader, MindDataset
// rows): rows read as RowViews are gathered without the GIL into a RowChunk
// (scalars kept, bytes in a mapped shard referenced, other bytes copied once
// into the chunk), then turned into one dict (or list) per row with the GIL, in one pass
// and in the value types the caller asks for. Numpy arrays are made through
// numpy's C API, without a Python call per value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/row_view.h"
#include "python/py_common.h"

namespace mindrecord::py_binding {

// The Python types of a row's values.
enum class ValueStyle : uint8_t {
  // MindSpore's FileReader: int, float, str, bytes; arrays as numpy arrays.
  kPython = 0,
  // numeric scalars as numpy scalars (numpy.int64, ...), str, bytes, arrays.
  kNumpy = 1,
  // MindSpore's MindDataset (output_numpy=True): numeric scalars as 0-d
  // arrays, bytes as 1-D uint8 arrays, strings as 0-d str arrays, arrays.
  kMindSpore = 2,
};
// "python", "numpy", "mindspore"; InvalidArgument naming the accepted ones.
Result<ValueStyle> ParseValueStyle(std::string_view name);

// Thread safety: Add and Place may run without the GIL, one thread per chunk
// at a time; AppendRows needs the GIL.
class RowChunk {
 public:
  // `slots[c]`: the index, in the RowViews added, of output column c.
  explicit RowChunk(std::vector<size_t> slots) : slots_(std::move(slots)) {}

  // Keeps row `row`'s output columns. A mapped field is referenced (its
  // mapping stays alive while the reader does); the rest is copied.
  void Add(const RowView& row);
  size_t rows() const { return rows_; }
  // Bytes the rows' values hold (RowView::value_bytes()), what read-ahead caps count.
  uint64_t value_bytes() const { return value_bytes_; }
  // Forgets the rows, keeping the buffers' capacity for the next ones.
  void Clear();
  // Bytes the chunk's buffers have reserved.
  uint64_t capacity_bytes() const { return arena_.capacity() + cells_.capacity() * sizeof(Cell); }

  // Copies the values that AppendRows(style, zero_copy) copies into blocks
  // (kMindSpore copies) into pooled tensors of kArrayBlock bytes shared by
  // consecutive values. Needs no GIL, so a reader thread can do it while the
  // caller hands out an earlier chunk; AppendRows places what is not placed.
  void Place(ValueStyle style, bool zero_copy);

  // What AppendRows makes of a row.
  struct RowsAs {
    bool lists = false;                  // a list of the values in column order, not a dict
    PyTypeObject* array_type = nullptr;  // kMindSpore arrays' numpy subclass (nullptr: numpy.ndarray)
  };
  // Appends one dict {keys[c]: value} (or list, RowsAs) per row to `out`. `zero_copy`: bytes
  // and arrays that lie in a mapped shard become read-only views of it
  // (numpy arrays; bytes in kPython and kNumpy as memoryview slices of one
  // memoryview over the shard) that keep the mapping alive; everything else
  // is a copy the caller owns. kMindSpore copies are numpy arrays over
  // blocks of kArrayBlock bytes shared by consecutive values (one allocation
  // per block, not per value): a value kept alive keeps its block.
  void AppendRows(const std::vector<py::object>& keys, ValueStyle style, bool zero_copy, py::list* out,
                  const RowsAs& as);

  // Bytes of one block of kMindSpore copies (a larger value gets its own).
  static constexpr size_t kArrayBlock = size_t{256} << 10;

 private:
  struct Cell {
    const Field* field = nullptr;
    Value::Kind kind = Value::Kind::kNull;
    bool mapped = false;
    int64_t i = 0;
    double f = 0;
    const char* ptr = nullptr;  // mapped: the bytes in the mapping
    uint64_t off = 0;           // not mapped: the bytes in arena_
    uint64_t len = 0;
    uint32_t dims_at = 0, ndim = 0;  // kArray: shape in dims_
    const std::shared_ptr<const void>* owner = nullptr;  // mapped: the mapping's owner
    int32_t block = -1;    // placed: the bytes are at blocks_[block] + block_at
    uint64_t block_at = 0;
    std::string_view file;  // mapped: the whole mapped file
  };
  // Per AppendRows call: the objects views are cut from, per mapping, and
  // the block kMindSpore copies are placed in.
  struct Objects {
    struct Mapping {
      const void* owner;
      py::object keep;         // capsule holding a copy of the owner
      py::object memoryview;   // over the whole mapped file (made when first needed)
    };
    std::vector<Mapping> mappings;
    std::vector<py::object> blocks;  // numpy uint8 arrays over blocks_, made when first needed
    PyTypeObject* array_type = nullptr;  // RowsAs::array_type
  };
  // Whether AppendRows(style, zero_copy) copies the cell into a block, and
  // the bytes it copies (scalars converted to the field's type in `scalar`).
  bool Placed(const Cell& c, ValueStyle style, bool zero_copy) const;
  std::string_view PlacedBytes(const Cell& c, char (&scalar)[8]) const;
  py::object ToPy(const Cell& c, ValueStyle style, bool zero_copy, Objects* objects) const;
  Objects::Mapping& MappingOf(const Cell& c, Objects* objects) const;
  // A writable array of `nd` dims over the placed cell's bytes.
  py::object BlockArray(const Cell& c, int typenum, int nd, const int64_t* dims, Objects* objects) const;

  std::vector<size_t> slots_;
  std::vector<Cell> cells_;  // rows_ x slots_.size()
  std::string arena_;
  std::vector<int64_t> dims_;
  size_t rows_ = 0;
  uint64_t value_bytes_ = 0;
  std::vector<Tensor> blocks_;  // Place's copies
  bool placed_ = false;
  ValueStyle placed_style_ = ValueStyle::kPython;
  bool placed_zero_copy_ = false;
};

// A batch column of bytes or strings as MindSpore batches them: bytes rows of
// one length stacked into a writable [rows, length] uint8 array, rows of
// different lengths as a list of writable 1-D uint8 arrays (copied into one
// shared buffer: one allocation per batch, not per row); strings as one numpy
// str array. Needs the GIL.
py::object BytesRowsToMindSpore(const std::vector<std::string_view>& rows);
// As BytesRowsToMindSpore for a batch column of bytes tensors, without
// copying what need not be: rows that are the batch's own buffers (not
// read-only: nobody else holds them, e.g. rows the workers copied,
// Plan::copy_views) become writable arrays over them; read-only views
// (Tensor::View: bytes in a mapped shard) become read-only arrays over the
// same bytes with `views` (do_copy=False), else copies. Arrays over one
// owner share one object keeping it alive (a mapping stays mapped while an
// array over it lives). Applies to rows of different lengths and to a
// single row (a [1, length] array); rows of one length in a batch of
// several are stacked into a copy as MindSpore does. A null object when
// some row is not of type kBytes. Needs the GIL.
py::object BytesTensorsToMindSpore(const std::vector<Tensor>& rows, bool views);
py::object StringRowsToMindSpore(const std::vector<std::string_view>& rows);

}  // namespace mindrecord::py_binding
