// Labels of a dataset for `inspect --histogram` and the contact sheet: how
// many rows hold each value of a scalar column, and the class names a
// converter stored in the description.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord {
class ShardReader;
class Schema;
}  // namespace mindrecord

namespace mindrecord::cli {

// At most this many distinct values are counted: a column with more is not a
// label column, and the counts stay a few MB whatever the row count.
inline constexpr size_t kMaxLabelValues = 65536;

struct LabelCount {
  Value value;
  uint64_t rows = 0;
};

struct Histogram {
  std::string column;
  bool from_index = false;  // counted by the .db files, not by reading rows
  std::vector<LabelCount> counts;  // ascending values
};

// Counts column `column` (a scalar int, float or string field): from every
// shard's SQLite index when it is an index field and every .db is there,
// else by reading the column (only its own part of each row). Memory: one
// entry per distinct value; more than kMaxLabelValues is InvalidArgument.
Result<Histogram> CountLabels(const ShardReader& r, const std::string& column);

// label -> class name from a description {"class_to_label": {name: label}}
// (what `convert imagefolder` stores); empty when there is none.
std::map<int64_t, std::string> ClassNames(const Schema& schema);

// Text for one label value: "3" or "3 (dog)".
std::string LabelText(const Value& v, const std::map<int64_t, std::string>& names);

}  // namespace mindrecord::cli
