// Pretrained word vectors (MindSpore's text.Vectors, GloVe, FastText,
// CharNGram): a text file of lines "token v1 v2 ... vd", after optional
// header lines of two fields ("count dim", as fastText's .vec files start).
// The token runs to the first space; the values are whitespace-separated
// numbers, d >= 2 of them on every line. A token seen twice keeps its first
// vector. `max_vectors` > 0 reads only that many lines after the header
// (0: all), as MindSpore's.
//
// The file is untrusted: every malformed line (a value that is not a number,
// fewer than two values, a dimension other than the first line's, an empty
// line, more than kMaxVectorDim values) is Corruption naming the file and
// line; only regular files are read (a device or FIFO never hangs a load).
//
// Thread safety: a VectorTable is immutable once made; LoadVectorTable is
// safe from many threads (one load per file and max_vectors at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord::ops {

// Which MindSpore class the table was loaded as: it decides the file names
// accepted (GloVe: glove.6B.*.txt, FastText: *.vec) and how ToVectors looks
// a token up (CharNGram: the mean of its character n-grams' vectors).
enum class VectorsKind { kVectors, kGloVe, kFastText, kCharNGram };

Result<VectorsKind> ParseVectorsKind(std::string_view name);
const char* VectorsKindName(VectorsKind kind);

inline constexpr int64_t kMaxVectorDim = int64_t{1} << 20;

class VectorTable {
 public:
  // The table of `text` (a file's bytes); `file` names it in errors.
  static Result<std::shared_ptr<const VectorTable>> Parse(std::string_view text, const std::string& file,
                                                         int64_t max_vectors);

  int64_t dim() const { return dim_; }
  size_t size() const { return rows_.size(); }
  // The vector of `token` (dim() floats), or nullptr.
  const float* Find(std::string_view token) const;

 private:
  friend class VectorTableBuilder;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  int64_t dim_ = 0;
  std::vector<float> values_;  // size() rows of dim_
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> rows_;
};

// The table of the file at `path` loaded as `kind`: shared by every op built
// while an earlier load of the same path and max_vectors is still held (a
// Python Vectors object holds its load), so building an op does not read the
// file again. NotFound for a missing file, InvalidArgument for a file name
// the kind does not accept or a file that is not a regular file.
Result<std::shared_ptr<const VectorTable>> LoadVectorTable(const std::string& path, VectorsKind kind,
                                                           int64_t max_vectors);

}  // namespace mindrecord::ops
