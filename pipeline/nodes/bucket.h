// Batches by length (MindSpore's bucket_batch_by_length): a batch node's
// `bucket` puts each row in the bucket its length falls in, [0, b0),
// [b0, b1), ..., [b(n-1), inf), and makes a batch of a bucket once it holds
// that bucket's batch size; at the end of an epoch the buckets that still
// hold rows are batched in bucket order (dropped with drop_remainder).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/batch.h"

namespace mindrecord {

// Thread safety: a value type; const use from any thread.
struct BucketSpec {
  std::string column;                 // the column that gives a row's length
  bool value = false;                 // the length is the column's integer value, else its first dimension
  // Or a length map: a batch map spec (batch_steps.h) the consumer calls per
  // row with the row's `length_columns` (one tensor each), giving one int64.
  nlohmann::json length_map;
  std::vector<std::string> length_columns;
  std::vector<uint64_t> boundaries;   // upper bounds, strictly increasing, >= 1
  std::vector<uint64_t> batch_sizes;  // one per bucket: boundaries.size() + 1, each >= 1
  bool pad_to_boundary = false;       // padded dims of -1 take the bucket's upper bound - 1

  nlohmann::json ToJson() const;
  // {"column", "length": "dim0" | "value", "boundaries", "batch_sizes", "pad_to_boundary"}, or
  // "length_map" and "input_columns" in place of "column" and "length".
  static Result<BucketSpec> FromJson(const nlohmann::json& j);

  size_t num_buckets() const { return batch_sizes.size(); }
  // The bucket of a row whose length column holds `t` ("dim0": its first
  // dimension, 0 for a scalar or a string); an error when a "value" column
  // holds not one integer >= 0.
  Result<size_t> BucketOf(const Tensor& t) const;
  // The bucket of a row of length `length` (an error below 0).
  Result<size_t> BucketForLength(int64_t length) const;
  // The batch options of bucket `b`'s batches: `base`'s padding, with -1
  // dims resolved to the bucket's bound when pad_to_boundary (an error for
  // the last bucket, which has none).
  Result<BatchOptions> OptionsFor(size_t b, const BatchOptions& base) const;
};

}  // namespace mindrecord
