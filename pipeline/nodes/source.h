// Source: the data under a leaf of the execution tree. Rows are addressed by
// id (0 .. num_rows() - 1) and read in bulk into one tensor per column. The
// MindRecord shards are one source (mindrecord_source.h); a raw-format reader
// (an image folder, CIFAR, MNIST, VOC, COCO through the converters' parsers)
// implements the same interface: its size and layout, its columns, and Read.
// The leaf node pairs a source with a sampler (row_node.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/sampler.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// Called once per requested row, in any order, on the thread calling Read:
// `i` indexes the request, `st` is the row's read error (then `columns` is
// empty), `bytes` what the row holds as read (blobs decompressed; for byte
// caps). Returning an error stops the read, which returns that error.
using SourceRowFn = std::function<Status(size_t i, const Status& st, std::vector<Tensor>&& columns, uint64_t bytes)>;

// The type and shape of every row of a column (Source::FixedRows).
struct RowSpec {
  TensorType type = TensorType::kUInt8;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;  // of one row
};

// Thread safety: every method may be called from many threads at once.
class Source {
 public:
  virtual ~Source() = default;
  // Column names, in the order Read gives the tensors.
  virtual const std::vector<std::string>& columns() const = 0;
  virtual uint64_t num_rows() const = 0;
  // Rows per shard (one shard: all rows), and the index groups of the PK
  // sampler where the source has an index; what samplers draw from.
  virtual DatasetLayout Layout() const = 0;
  // Reads the rows `ids` (ids may repeat and come in any order; runs of
  // consecutive ids may be read together) and hands each to `fn`. Errors
  // of single rows go to `fn`; other errors (and fn's) are returned.
  virtual Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const = 0;
  // Names a row in error messages: "row N (shard S 'path', local row L)".
  virtual std::string Where(uint64_t id) const = 0;
  // A source whose rows are slices of memory of one type and shape per
  // column (in-memory arrays) gives those, one per column in columns()
  // order; the runtime then has Gather copy a batch's rows straight into
  // its buffers instead of reading them one by one. Others give none.
  virtual std::vector<RowSpec> FixedRows() const { return {}; }
  // Where FixedRows() is not empty: copies rows `ids` of column c, back to
  // back, to out[c] (room for ids.size() rows of its spec). An id past the
  // last row is an error naming it.
  virtual Status Gather(const std::vector<uint64_t>& ids, const std::vector<uint8_t*>& out) const {
    (void)ids;
    (void)out;
    return Status::NotSupported("this source does not gather rows");
  }
  // How the source's files are read, for stats() (empty when it has none):
  // one mode for all shards or "mixed", and per shard.
  virtual std::string io_mode() const { return std::string(); }
  virtual std::vector<std::string> shard_io_modes() const { return {}; }
  // The files that hold the source's rows (what a persistent cache's key
  // identifies it by); empty when it has none.
  virtual std::vector<std::string> files() const { return {}; }
};

}  // namespace mindrecord
