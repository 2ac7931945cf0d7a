// The parallel engine behind every converter: a source describes each output
// dataset as a SplitPlan (a schema and a row builder indexed 0..N-1); the
// engine builds rows on worker threads into ordered slots and one thread
// writes them, so the output does not depend on the worker count.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

struct SplitPlan {
  std::string split;  // "" for a source without splits
  Schema schema;
  // Indexed fields; nullopt: MindSpore's default (every scalar non-bytes field).
  std::optional<std::vector<std::string>> index_fields;
  size_t num_items = 0;
  // The input behind item i, for error messages and the skip list.
  std::function<std::string(size_t)> item_name;
  // Builds the row of item i. Called concurrently from worker threads, each
  // index exactly once: must be thread-safe. An error is a bad input.
  std::function<Result<Row>(size_t)> make_row;
};

// Writes every plan to SplitOutputPath(output, plan.split) and commits them
// all at the end; on error abandons them all (no output is left). Returns one
// OutputReport per plan. Thread safety: reentrant.
Result<std::vector<OutputReport>> RunPlans(const std::vector<SplitPlan>& plans, const std::string& output,
                                           ConvertContext& ctx);

// Worker threads for `requested` (0: all cores), at least 1.
unsigned EffectiveWorkers(uint32_t requested);

}  // namespace mindrecord::convert
