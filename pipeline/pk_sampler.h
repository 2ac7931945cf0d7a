// PK sampler: P classes x K rows per class, classes taken from an index field
// (ShardReader::GroupByIndexField, i.e. the SQLite index).
//   {"type": "pk", "field": "label", "k": 4, "num_classes": 0 (all), "shuffle": false,
//    "num_samples": 0 (all)}
// Output: K rows of the first class, then K of the second, ... Without shuffle
// classes come in ascending value order and each gives its first K rows in
// row-id order (cycling when it has fewer). With shuffle the class order is a
// new permutation per epoch and each class gives K random rows, distinct when
// the class has at least K rows (drawn with replacement otherwise).
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/sampler.h"

namespace mindrecord {

Result<std::unique_ptr<Sampler>> MakePKSampler(const nlohmann::json& spec, const DatasetLayout& layout);

}  // namespace mindrecord
