// Integers read from JSON we did not write (shard headers, append journals,
// COCO annotations, plans). nlohmann's get<int64_t>() and get<uint64_t>()
// cast a float (undefined behaviour beyond the target's range; 2.5 becomes
// 2) and wrap an integer of the other signedness (2^64-1 becomes -1); these
// return nothing instead, so the caller reports the value as it was written.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace mindrecord {

// `v` as an integer >= 0; nothing for a negative integer, a float or a non-number.
std::optional<uint64_t> JsonUnsigned(const nlohmann::json& v);

// `v` as an integer in [lo, hi]; nothing otherwise. A float without a
// fractional part (some tools write ids as 3.0) counts as an integer only
// when `integral_floats` says so.
std::optional<int64_t> JsonInt(const nlohmann::json& v, int64_t lo, int64_t hi, bool integral_floats = false);

// `v` as a JSON integer that fits int64 (2^64-1 is not -1); nothing otherwise.
std::optional<int64_t> JsonInt64(const nlohmann::json& v);

}  // namespace mindrecord
