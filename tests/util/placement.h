// Where ShardWriter puts rows (MindSpore's placement, shard_writer.cc
// Distribute): each WriteRows call is cut into one contiguous block per
// shard, shard 0 first, the call's remainder rows going to the shards after
// those of the previous calls. For tests that compare rows read by global id
// with the rows written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mindrecord::testing {

// The written index (0-based over all calls) of each global row id, for
// calls of `batches` rows each into `shards` shards.
inline std::vector<size_t> BlockPlacementOrder(const std::vector<size_t>& batches, uint32_t shards) {
  std::vector<std::vector<size_t>> per_shard(shards);
  size_t written = 0;
  for (size_t m : batches) {
    const size_t per = m / shards, extra = m % shards, first = written % shards;
    size_t next = written;
    for (uint32_t s = 0; s < shards; ++s) {
      const size_t take = per + ((s + shards - first) % shards < extra ? 1 : 0);
      for (size_t k = 0; k < take; ++k) per_shard[s].push_back(next++);
    }
    written += m;
  }
  std::vector<size_t> order;
  for (const auto& rows : per_shard) order.insert(order.end(), rows.begin(), rows.end());
  return order;
}

// `n` rows written in calls of `batch` rows.
inline std::vector<size_t> EqualBatches(size_t n, size_t batch) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; i += batch) out.push_back(std::min(batch, n - i));
  return out;
}

}  // namespace mindrecord::testing
