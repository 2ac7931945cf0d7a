// `--rows A:B` for the verbs that read a range of rows (cat, export).
#pragma once

#include <cstdint>
#include <string>

#include "mindrecord/status.h"

namespace mindrecord::cli {

// "A:B", "A:", ":B", "A" (one row); B exclusive; empty: every row of `n`.
// A range reaching past the dataset, a single id that is not a row, or A
// after B is InvalidArgument saying how many rows there are.
Status ParseRowRange(const std::string& spec, uint64_t n, uint64_t* begin, uint64_t* end);

}  // namespace mindrecord::cli
