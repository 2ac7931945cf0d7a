// tf.train.Example helpers for the baseline (the converter's proto, with
// TensorFlow's field numbers). Parsing reuses one message per thread, as a
// long-running reader would, so its allocations are recycled.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"
#include "writers/convert/tf_example.pb.h"

namespace mindrecord::bench {

// An Example with one bytes feature and one int64 feature, serialized.
std::string MakeExample(const std::string& bytes_key, std::string_view bytes, const std::string& int_key,
                        int64_t value);

// Parses `data` into *ex (cleared first).
Status ParseExample(std::string_view data, tf::Example* ex);

// The single value of a feature; Corruption when absent or of another kind.
Result<std::string_view> BytesFeature(const tf::Example& ex, const std::string& key);
Result<int64_t> Int64Feature(const tf::Example& ex, const std::string& key);

}  // namespace mindrecord::bench
