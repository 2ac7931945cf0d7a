// Numeric variables of MATLAB .mat files (v4, v5 and v7.3 through libmatio):
// what Flowers102's imagelabels.mat / setid.mat and Caltech101's annotation
// files hold. The file is untrusted: a variable's declared size is checked
// against `max_values` before its data is read, and anything but a real,
// dense numeric array is an error naming the file and variable.
// Thread safety: free functions; any thread (libmatio keeps no shared state
// but its logger, which is set once to stay quiet).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord {

struct MatArray {
  std::vector<int64_t> dims;   // MATLAB's, column-major
  std::vector<double> values;  // every element, in MATLAB's (column-major) order
};

// Variable `name` of the .mat file at `path`, at most `max_values` elements.
Result<MatArray> ReadMatArray(const std::string& path, const std::string& name, uint64_t max_values);

// Field `field` of struct variable `name` (its first element): each array
// of it, one for a numeric array, one per cell of a cell array; a sparse
// matrix comes out dense. At most `max_values` elements in all; the whole
// variable at most `max_bytes` as declared (checked before it is read).
Result<std::vector<MatArray>> ReadMatStructField(const std::string& path, const std::string& name,
                                                 const std::string& field, uint64_t max_values, uint64_t max_bytes);

}  // namespace mindrecord
