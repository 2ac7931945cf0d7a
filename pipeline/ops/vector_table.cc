// VectorTable: pretrained word vectors parsed from their text file.
#include "pipeline/ops/vector_table.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace mindrecord::ops {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Fields of `line` split at single spaces as MindSpore counts them (its
// getline(' ')): a trailing space ends the last field, it does not start one.
size_t SpaceFields(std::string_view line) {
  if (line.empty()) return 0;
  size_t n = 1;
  for (char c : line) n += c == ' ';
  return line.back() == ' ' ? n - 1 : n;
}

std::string Where(const std::string& file, size_t line) { return file + ":" + std::to_string(line); }

Result<float> ParseValue(std::string_view s, const std::string& file, size_t line) {
  std::string_view digits = s;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);  // atof's "+0.5"
  float v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    return Status::Corruption("Vectors: " + Where(file, line) + ": value '" + std::string(s) +
                              "' is out of the float range");
  if (ec != std::errc() || end != digits.data() + digits.size())
    return Status::Corruption("Vectors: " + Where(file, line) + ": value '" + std::string(s.substr(0, 64)) +
                              "' is not a number");
  return v;
}

// The token of a line and its values (appended to `out`); the count of values.
Result<int64_t> ParseLine(std::string_view line, const std::string& file, size_t number, int64_t expect,
                          std::string_view* token, std::vector<float>* out) {
  const size_t space = line.find(' ');
  *token = line.substr(0, space);
  std::string_view rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  int64_t dim = 0;
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && IsSpace(rest[i])) ++i;
    if (i == rest.size()) break;
    size_t j = i;
    while (j < rest.size() && !IsSpace(rest[j])) ++j;
    if (++dim > kMaxVectorDim)
      return Status::Corruption("Vectors: " + Where(file, number) + ": more than " + std::to_string(kMaxVectorDim) +
                                " values");
    MR_ASSIGN_OR_RETURN(float v, ParseValue(rest.substr(i, j - i), file, number));
    out->push_back(v);
    i = j;
  }
  if (dim <= 1)
    return Status::Corruption("Vectors: " + Where(file, number) + ": token with 1-dimensional vector (" +
                              std::to_string(dim) + " values; at least 2)");
  if (expect > 0 && dim != expect)
    return Status::Corruption("Vectors: " + Where(file, number) +
                              ": all vectors must have the same number of dimensions, but got dim " +
                              std::to_string(dim) + " while expecting " + std::to_string(expect));
  return dim;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// MindSpore's file-name checks of GloVe (glove.6B.<anything>.txt) and FastText (*.vec).
Status CheckName(const std::string& path, VectorsKind kind) {
  const std::string_view base = std::string_view(path).substr(path.rfind('/') + 1);
  if (kind == VectorsKind::kGloVe) {
    const size_t last = base.rfind('.');
    const std::string_view stem = base.substr(0, last);
    const std::string_view glove = stem.substr(0, stem.rfind('.'));
    if (last == std::string_view::npos || base.substr(last + 1) != "txt" || glove != "glove.6B")
      return Status::InvalidArgument("GloVe: invalid file, can not find file 'glove.6B.*.txt', but got: " + path);
  } else if (kind == VectorsKind::kFastText) {
    if (!EndsWith(base, ".vec"))
      return Status::InvalidArgument("FastText: invalid file, can not find file '*.vec', but got: " + path);
  }
  return Status::OK();
}

}  // namespace

Result<VectorsKind> ParseVectorsKind(std::string_view name) {
  if (name == "Vectors") return VectorsKind::kVectors;
  if (name == "GloVe") return VectorsKind::kGloVe;
  if (name == "FastText") return VectorsKind::kFastText;
  if (name == "CharNGram") return VectorsKind::kCharNGram;
  return Status::InvalidArgument("vectors kind must be Vectors, GloVe, FastText or CharNGram, got '" +
                                 std::string(name) + "'");
}

const char* VectorsKindName(VectorsKind kind) {
  switch (kind) {
    case VectorsKind::kGloVe: return "GloVe";
    case VectorsKind::kFastText: return "FastText";
    case VectorsKind::kCharNGram: return "CharNGram";
    default: return "Vectors";
  }
}

// Lines in, table out: the state of one parse.
class VectorTableBuilder {
 public:
  VectorTableBuilder(const std::string& file, int64_t max_vectors) : file_(file), max_(max_vectors) {}
  bool full() const { return max_ > 0 && taken_ >= max_; }

  // One line, without its '\n'.
  Status Add(std::string_view line) {
    ++number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (header_ && SpaceFields(line) == 2) return Status::OK();  // "count dim"
    header_ = false;
    std::string_view token;
    const size_t before = t_->values_.size();
    MR_ASSIGN_OR_RETURN(int64_t dim, ParseLine(line, file_, number_, t_->dim_, &token, &t_->values_));
    t_->dim_ = dim;
    ++taken_;
    if (t_->rows_.find(token) != t_->rows_.end()) {
      t_->values_.resize(before);  // a token's first vector stays
    } else {
      t_->rows_.emplace(std::string(token), before / static_cast<size_t>(dim));
    }
    return Status::OK();
  }

  Result<std::shared_ptr<const VectorTable>> Finish() {
    if (taken_ == 0) return Status::Corruption("Vectors: " + file_ + ": invalid file, file is empty.");
    t_->values_.shrink_to_fit();
    return std::shared_ptr<const VectorTable>(std::move(t_));
  }

 private:
  const std::string& file_;
  const int64_t max_;
  std::shared_ptr<VectorTable> t_ = std::make_shared<VectorTable>();
  bool header_ = true;
  size_t number_ = 0;
  int64_t taken_ = 0;
};

namespace {

Status CheckMax(int64_t max_vectors) {
  if (max_vectors >= 0) return Status::OK();
  return Status::InvalidArgument("Vectors: max_vectors must be non negative, but got: " + std::to_string(max_vectors));
}

// The lines of the regular file at `path`, read in blocks (a file that
// shrinks while it is read ends early; it never faults a mapping).
Status ReadLines(const std::string& path, VectorsKind kind, VectorTableBuilder& b) {
  const std::string what = VectorsKindName(kind);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    std::string m = what + ": get real path failed, path: " + path + " (" + std::strerror(err) + ")";
    return err == ENOENT || err == ENOTDIR ? Status::NotFound(m) : Status::IOError(m);
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return Status::IOError(what + ": " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(what + ": invalid file, " + path + " is not a regular file");
  constexpr size_t kBlock = size_t{4} << 20;
  std::string buf;
  size_t kept = 0;  // bytes of an unfinished line at the front of buf
  off_t offset = 0;
  while (!b.full()) {
    buf.resize(kept + kBlock);
    const ssize_t n = pread(fd, buf.data() + kept, kBlock, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(what + ": " + path + ": read failed: " + std::strerror(errno));
    }
    offset += n;
    const size_t have = kept + static_cast<size_t>(n);
    const std::string_view data(buf.data(), have);
    size_t pos = 0;
    for (size_t nl; !b.full() && (nl = data.find('\n', pos)) != std::string_view::npos; pos = nl + 1)
      MR_RETURN_IF_ERROR(b.Add(data.substr(pos, nl - pos)));
    if (n == 0) {  // end of file: its last line has no '\n'
      if (pos < have && !b.full()) MR_RETURN_IF_ERROR(b.Add(data.substr(pos)));
      break;
    }
    kept = have - pos;
    if (kept > kMaxVectorDim * 64)
      return Status::Corruption(what + ": " + path + ": a line of more than " + std::to_string(kMaxVectorDim * 64) +
                                " bytes");
    std::memmove(buf.data(), buf.data() + pos, kept);
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const VectorTable>> VectorTable::Parse(std::string_view text, const std::string& file,
                                                              int64_t max_vectors) {
  MR_RETURN_IF_ERROR(CheckMax(max_vectors));
  VectorTableBuilder b(file, max_vectors);
  for (size_t pos = 0; pos < text.size() && !b.full();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    MR_RETURN_IF_ERROR(b.Add(text.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return b.Finish();
}

const float* VectorTable::Find(std::string_view token) const {
  auto it = rows_.find(token);
  return it == rows_.end() ? nullptr : values_.data() + it->second * static_cast<size_t>(dim_);
}

Result<std::shared_ptr<const VectorTable>> LoadVectorTable(const std::string& path, VectorsKind kind,
                                                           int64_t max_vectors) {
  MR_RETURN_IF_ERROR(CheckName(path, kind));
  // Loads held elsewhere, by path and max_vectors; a load runs under the lock
  // so two ops built at once read the file once.
  static std::mutex mu;
  static std::map<std::tuple<std::string, int64_t>, std::weak_ptr<const VectorTable>> held;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(path, max_vectors);
  if (auto it = held.find(key); it != held.end()) {
    if (auto table = it->second.lock()) return table;
    held.erase(it);
  }
  MR_RETURN_IF_ERROR(CheckMax(max_vectors));
  VectorTableBuilder builder(path, max_vectors);
  MR_RETURN_IF_ERROR(ReadLines(path, kind, builder));
  MR_ASSIGN_OR_RETURN(std::shared_ptr<const VectorTable> table, builder.Finish());
  for (auto it = held.begin(); it != held.end();) it = it->second.expired() ? held.erase(it) : std::next(it);
  held[key] = table;
  return table;
}

}  // namespace mindrecord::ops
