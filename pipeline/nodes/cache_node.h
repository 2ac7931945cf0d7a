// The "cache" node of the execution tree (MindSpore's DatasetCache): its
// input's rows, stored in a CacheStore (pipeline/cache/cache_store.h) the
// first time they are made and served from it from then on, so later epochs
// (and later jobs, and other processes) neither read nor transform them.
//
// Its input must be a mindrecord leaf under a chain of map, ops, project and
// rename nodes whose ops are all deterministic: a row is then a function of
// its row id, which is the entry's key, whatever the sampler's order. A
// random op (or a Python callable, which may be one) below a cache is refused
// with InvalidArgument naming it (as MindSpore refuses it): put the cache
// below the random op, i.e. on the map of the deterministic ops before it.
//
// Rows: position p of the input, with the program
//   cached:      cache_get c key n, <the input's program>, cache_put c key
//   not cached:  <the input's program>, cache_put c key
// The runtime serves a cache_get from the store and skips the next n
// instructions; when the entry turns out missing or corrupt it runs them (the
// read then happens on the worker) and the put replaces the entry.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/cache/cache_store.h"
#include "pipeline/nodes/row_node.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// Thread safety: as RowNode (the store is thread-safe).
class CacheNode : public RowNode {
 public:
  CacheNode(std::unique_ptr<RowNode> input, uint32_t cache_index, CacheStore* store);
  Result<uint64_t> Size(uint64_t epoch) const override { return input_->Size(epoch); }
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  std::unique_ptr<RowNode> input_;
  uint32_t index_;
  CacheStore* store_;
};

// Checks that the normalized cache node `node`'s input may be cached (see
// above; errors name `path` and the node or op) and returns the fingerprint
// of what it caches: `source`'s files (path, size, mtime, header checksum)
// and the input's JSON without samplers and seeds. `meta` gets what
// `mindrecord cache ls` shows.
Result<uint64_t> CacheFingerprint(const nlohmann::json& node, const std::string& path, const Source& source,
                                  nlohmann::json* meta);

// The tree without its cache nodes (each replaced by its input): caching never
// changes the rows, so the resume fingerprint leaves it out.
nlohmann::json WithoutCaches(nlohmann::json tree);

}  // namespace mindrecord
