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

// The header of a MATLAB 5 array element (`bytes`: the element from its
// tag, or its first bytes): class (matio's enum matio_classes), complexity,
// dimensions, name, and its real part's data type, offset (from the tag)
// and length. Corruption naming `where` when the header is malformed.
struct MatArrayHeader {
  uint8_t cls = 0;
  bool complex = false;
  std::vector<int64_t> dims;
  std::string name;
  uint32_t data_type = 0;
  uint64_t data_offset = 0, data_bytes = 0;
};
Result<MatArrayHeader> ParseMatArrayHeader(const std::string& bytes, const std::string& where);

// A little-endian uint32.
uint32_t MatLe32(const unsigned char* p);

// A compressed element's zlib stream `in` inflated, at most `cap` bytes:
// more is Corruption naming `where` unless `prefix`, which gives the first
// `cap` bytes (or fewer where `in`, the stream's start, runs out).
Result<std::string> InflateMatElement(const std::string& in, size_t cap, const std::string& where, bool prefix);

// Variable `name` of the .mat file at `path`, at most `max_values` elements.
Result<MatArray> ReadMatArray(const std::string& path, const std::string& name, uint64_t max_values);

// Field `field` of struct variable `name` (its first element): each array
// of it, one for a numeric array, one per cell of a cell array; a sparse
// matrix comes out dense. At most `max_values` elements in all; the whole
// variable at most `max_bytes` as declared (checked before it is read).
Result<std::vector<MatArray>> ReadMatStructField(const std::string& path, const std::string& name,
                                                 const std::string& field, uint64_t max_values, uint64_t max_bytes);

}  // namespace mindrecord
