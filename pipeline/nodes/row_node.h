// RowNode: a node below the batch, compiled. Most nodes are positional: for
// epoch e a node knows its size and, for each of its positions p, which leaf
// rows and which per-row steps produce row p. It says so as a RowProgram, a
// short stack program the runtime runs per row:
//
//   read s id      push the columns of row `id` of source s
//   step k e p     apply step k (map, project, filter, ...) to the top frame,
//                  with the node's own epoch e and position p (the seed of
//                  its random ops)
//   zip n          merge the top n frames into one (columns side by side)
//   tag t          count the row under statistic t once it is handed out
//                  (a mix's rows per source)
//   cache_get c k n  push row k of cache c, skipping the next n instructions;
//                  when the entry is missing or corrupt, run them instead
//                  (their reads happen then, not in the bulk read)
//   cache_put c k  store the top frame as row k of cache c (cache_node.h)
//
// A leaf maps p to its sampler's row id; map/project/filter add a step and
// keep p; concat maps p to (child, p - offset); zip to (each child at p);
// take/skip shift p; repeat maps p to (child epoch, p mod n); shuffle and
// shard permute or select positions; mix draws a seeded sequence of sources.
// Tasks are then ranges of root positions, whatever the tree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/inline_vector.h"

namespace mindrecord {

struct Instr {
  enum class Kind : uint8_t { kRead = 0, kStep = 1, kZip = 2, kTag = 3, kCacheGet = 4, kCachePut = 5 };
  Kind kind = Kind::kRead;
  uint32_t arg = 0;  // kRead: source index; kStep: step index; kZip: frames merged; kTag: the statistic; kCache*: cache
  uint64_t a = 0;    // kRead: row id; kStep: the node's epoch; kCache*: the key
  uint64_t b = 0;    // kStep: the node's position; kCacheGet: instructions skipped on a hit
};
// A row's instructions: up to 3 of them (a leaf's read and a step or two,
// the common case) without an allocation, more on the heap.
using RowProgram = InlineVector<Instr, 3>;

// Thread safety: Size and Resolve may be called from many threads at once
// (nodes that cache per-epoch orders guard them).
class RowNode {
 public:
  virtual ~RowNode() = default;
  // The node's output columns, in order.
  const std::vector<std::string>& columns() const { return columns_; }
  // Positions of `epoch` (a filter at or below the node may leave some of
  // them without a row).
  virtual Result<uint64_t> Size(uint64_t epoch) const = 0;
  // Appends to out[i] the program of position begin + i of `epoch`, for
  // begin + i < end <= Size(epoch).
  virtual Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const = 0;
  // A filter at or below the node: positions may give no row.
  bool drops_rows() const { return drops_rows_; }

 protected:
  std::vector<std::string> columns_;
  bool drops_rows_ = false;
};

// Resolves arbitrary positions of `node` (out[i] for positions[i]), in runs
// of consecutive positions.
Status ResolvePositions(const RowNode& node, uint64_t epoch, const uint64_t* positions, size_t n, RowProgram* out);

}  // namespace mindrecord
