#include "pipeline/nodes/csv_source.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>

#include "mindrecord/file.h"
#include "mindrecord/limits.h"
#include "mindrecord/utf8.h"

namespace mindrecord {

namespace {

constexpr size_t kScanChunk = size_t{1} << 20;

enum class CsvType : uint8_t { kInt32, kFloat32, kString };

// MindSpore's CSV grammar as a byte machine, for finding where records
// start and end. Feed() returns false on a grammar error (why() says which).
class CsvMachine {
 public:
  explicit CsvMachine(char delimiter) : delim_(delimiter) {}
  enum class Event : uint8_t { kNone, kRecordStart, kRecordEnd, kFieldEnd };

  // One byte; *a and *b get what it started or completed, in order.
  bool Feed(char c, Event* a, Event* b) {
    *a = *b = Event::kNone;
    const bool eol = c == '\r' || c == '\n';
    const bool quote = c == '"';
    const bool delim = c == delim_;
    switch (state_) {
      case State::kBetween:
        if (eol) return true;
        *a = Event::kRecordStart;
        if (delim) {
          *b = Event::kFieldEnd;
          state_ = State::kDelim;
        } else {
          state_ = quote ? State::kQuote : State::kUnquote;
        }
        return true;
      case State::kUnquote:
        if (quote) return Fail("a quote inside an unquoted field");
        if (delim) {
          *a = Event::kFieldEnd;
          state_ = State::kDelim;
        } else if (eol) {
          *a = Event::kFieldEnd;
          *b = Event::kRecordEnd;
          state_ = State::kBetween;
        }
        return true;
      case State::kDelim:
        if (delim) {
          *a = Event::kFieldEnd;
        } else if (eol) {
          *a = Event::kFieldEnd;
          *b = Event::kRecordEnd;
          state_ = State::kBetween;
        } else {
          state_ = quote ? State::kQuote : State::kUnquote;
        }
        return true;
      case State::kQuote:
        if (quote) state_ = State::kSecondQuote;
        return true;
      case State::kSecondQuote:
        if (quote) {
          state_ = State::kQuote;  // "" is a quote
        } else if (delim) {
          *a = Event::kFieldEnd;
          state_ = State::kDelim;
        } else if (eol) {
          *a = Event::kFieldEnd;
          *b = Event::kRecordEnd;
          state_ = State::kBetween;
        } else {
          return Fail("text after a closing quote");
        }
        return true;
    }
    return true;
  }
  // The end of the input: true with *record_end when a record was open.
  bool End(bool* record_end) {
    *record_end = state_ != State::kBetween;
    if (state_ == State::kQuote) return Fail("the file ends inside a quoted field");
    state_ = State::kBetween;
    return true;
  }
  const std::string& why() const { return why_; }

 private:
  enum class State : uint8_t { kBetween, kUnquote, kDelim, kQuote, kSecondQuote };
  bool Fail(const char* why) {
    why_ = why;
    return false;
  }
  char delim_;
  State state_ = State::kBetween;
  std::string why_;
};

// The fields of one record (its bytes, without the line end).
bool SplitRecord(std::string_view rec, char delim, std::vector<std::string>* fields, std::string* why) {
  fields->clear();
  std::string cur;
  enum { kStart, kUnquote, kQuote, kSecondQuote } st = kStart;
  for (char c : rec) {
    const bool quote = c == '"';
    const bool dl = c == delim;
    switch (st) {
      case kStart:
        if (dl) {
          fields->push_back(std::move(cur));
          cur.clear();
        } else if (quote) {
          st = kQuote;
        } else {
          cur.push_back(c);
          st = kUnquote;
        }
        break;
      case kUnquote:
        if (quote) {
          *why = "a quote inside an unquoted field";
          return false;
        }
        if (dl) {
          fields->push_back(std::move(cur));
          cur.clear();
          st = kStart;
        } else {
          cur.push_back(c);
        }
        break;
      case kQuote:
        if (quote) {
          st = kSecondQuote;
        } else {
          cur.push_back(c);
        }
        break;
      case kSecondQuote:
        if (quote) {
          cur.push_back('"');
          st = kQuote;
        } else if (dl) {
          fields->push_back(std::move(cur));
          cur.clear();
          st = kStart;
        } else {
          *why = "text after a closing quote";
          return false;
        }
        break;
    }
  }
  if (st == kQuote) {
    *why = "a quoted field is not closed";
    return false;
  }
  fields->push_back(std::move(cur));
  return true;
}

// Where a file's records start and how long they are (the bytes between
// the line ends around them).
struct Records {
  std::vector<uint64_t> start;
  std::vector<uint32_t> length;
};

// Scans `file` from after its header line (when `header`).
Status ScanRecords(const RandomAccessFile& file, char delim, bool header, Records* out, uint64_t* count) {
  const uint64_t size = file.size();
  std::string buf(kScanChunk, '\0');
  uint64_t at = 0;
  if (header) {
    // The first line, up to '\n' (std::getline), is the header.
    bool found = false;
    while (at < size && !found) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - at));
      MR_RETURN_IF_ERROR(file.ReadAt(at, n, buf.data()));
      const char* nl = static_cast<const char*>(std::memchr(buf.data(), '\n', n));
      if (nl != nullptr) {
        at += static_cast<uint64_t>(nl - buf.data()) + 1;
        found = true;
      } else {
        at += n;
      }
    }
  }
  CsvMachine m(delim);
  uint64_t rec_start = 0;
  const auto end_record = [&](uint64_t end) {
    ++*count;
    if (out != nullptr) {
      out->start.push_back(rec_start);
      out->length.push_back(static_cast<uint32_t>(std::min<uint64_t>(end - rec_start, UINT32_MAX)));
    }
  };
  while (at < size) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - at));
    MR_RETURN_IF_ERROR(file.ReadAt(at, n, buf.data()));
    for (size_t i = 0; i < n; ++i) {
      CsvMachine::Event a, b;
      if (!m.Feed(buf[i], &a, &b)) {
        return Status::Corruption(file.path() + ": byte " + std::to_string(at + i) + ": " + m.why() +
                                  " (CSV: a field is unquoted text without quotes or \"quoted\" with \"\" for a quote)");
      }
      if (a == CsvMachine::Event::kRecordStart) rec_start = at + i;
      if (b == CsvMachine::Event::kRecordEnd) end_record(at + i);
    }
    at += n;
  }
  bool open = false;
  if (!m.End(&open)) return Status::Corruption(file.path() + ": byte " + std::to_string(size) + ": " + m.why());
  if (open) end_record(size);
  return Status::OK();
}

Result<Tensor> FieldTensor(CsvType type, std::string&& s) {
  if (type == CsvType::kString) {
    if (!IsUtf8(s)) return Status::Corruption("the field is not UTF-8 text");
    return Tensor::FromString(TensorType::kString, std::move(s));
  }
  const char* p = s.c_str();
  char* end = nullptr;
  errno = 0;
  if (type == CsvType::kInt32) {
    const long v = std::strtol(p, &end, 10);
    if (end == p) return Status::InvalidArgument("'" + s + "' is not an int32 (type does not match)");
    if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
      return Status::InvalidArgument("'" + s + "' is out of int32's range");
    }
    Tensor t = Tensor::Make(TensorType::kInt32, {});
    *t.mutable_data_as<int32_t>() = static_cast<int32_t>(v);
    return t;
  }
  const float v = std::strtof(p, &end);
  if (end == p) return Status::InvalidArgument("'" + s + "' is not a float32 (type does not match)");
  if (errno == ERANGE) return Status::InvalidArgument("'" + s + "' is out of float32's range");
  Tensor t = Tensor::Make(TensorType::kFloat32, {});
  *t.mutable_data_as<float>() = v;
  return t;
}

class CsvSource : public Source {
 public:
  static Result<std::unique_ptr<Source>> Open(std::vector<std::string> files, std::vector<std::string> names,
                                              std::vector<CsvType> types, char delim, bool header) {
    std::unique_ptr<CsvSource> s(new CsvSource());
    s->files_ = std::move(files);
    s->names_ = std::move(names);
    s->types_ = std::move(types);
    s->delim_ = delim;
    s->first_.push_back(0);
    for (const auto& path : s->files_) {
      MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(path));
      uint64_t n = 0;
      MR_RETURN_IF_ERROR(ScanRecords(*f, delim, header, &s->records_, &n));
      s->first_.push_back(s->records_.start.size());
    }
    return std::unique_ptr<Source>(std::move(s));
  }

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return records_.start.size(); }
  DatasetLayout Layout() const override {
    DatasetLayout l;
    for (size_t f = 0; f < files_.size(); ++f) l.shard_rows.push_back(first_[f + 1] - first_[f]);
    return l;
  }
  std::string Where(uint64_t id) const override {
    return "record at byte " + std::to_string(records_.start[id]) + " of '" + files_[FileOf(id)] + "' (row " +
           std::to_string(id) + ")";
  }
  std::vector<std::string> files() const override { return files_; }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    std::vector<std::string> fields;
    for (size_t i = 0; i < ids.size(); ++i) {
      const uint64_t id = ids[i];
      if (id >= num_rows()) return Status::Internal("CsvSource: row " + std::to_string(id) + " out of range");
      std::vector<Tensor> cols;
      const uint64_t len = records_.length[id];
      Status st = Row(id, len, &fields, &cols);
      if (!st.ok()) cols.clear();
      MR_RETURN_IF_ERROR(fn(i, st, std::move(cols), len));
    }
    return Status::OK();
  }

 private:
  CsvSource() = default;

  Status Row(uint64_t id, uint64_t len, std::vector<std::string>* fields, std::vector<Tensor>* cols) const {
    if (len > kMaxDecompressedRowBytes) {
      return Status::InvalidArgument(Where(id) + ": a record of " + std::to_string(len) +
                                     " bytes or more, longer than a row may be");
    }
    MR_ASSIGN_OR_RETURN(auto file, FileFor(FileOf(id)));
    std::string rec(len, '\0');
    MR_RETURN_IF_ERROR(file->ReadAt(records_.start[id], len, rec.data()));
    std::string why;
    if (!SplitRecord(rec, delim_, fields, &why)) return Status::Corruption(Where(id) + ": " + why);
    if (fields->size() != names_.size()) {
      return Status::InvalidArgument(Where(id) + ": " + std::to_string(fields->size()) + " field(s), the columns are " +
                                     std::to_string(names_.size()));
    }
    for (size_t c = 0; c < fields->size(); ++c) {
      auto t = FieldTensor(types_[c], std::move((*fields)[c]));
      if (!t.ok()) return Status(t.status().code(), Where(id) + ", column '" + names_[c] + "': " + t.status().message());
      cols->push_back(std::move(t).value());
    }
    return Status::OK();
  }
  size_t FileOf(uint64_t id) const {
    return static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), id) - first_.begin()) - 1;
  }
  Result<std::shared_ptr<RandomAccessFile>> FileFor(size_t f) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if (it->first == f) {
        open_.splice(open_.begin(), open_, it);
        return open_.front().second;
      }
    }
    MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(files_[f]));
    open_.emplace_front(f, std::shared_ptr<RandomAccessFile>(std::move(file)));
    if (open_.size() > kOpenFiles) open_.pop_back();
    return open_.front().second;
  }

  static constexpr size_t kOpenFiles = 16;
  std::vector<std::string> files_, names_;
  std::vector<CsvType> types_;
  char delim_ = ',';
  std::vector<uint64_t> first_;  // first row of each file, then the total
  Records records_;
  mutable std::mutex mu_;
  mutable std::list<std::pair<size_t, std::shared_ptr<RandomAccessFile>>> open_;  // most recent first
};

}  // namespace

Result<std::vector<uint64_t>> CountCsvRecords(const std::vector<std::string>& files, char delimiter, bool header) {
  std::vector<uint64_t> out;
  for (const auto& path : files) {
    MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(path));
    uint64_t n = 0;
    MR_RETURN_IF_ERROR(ScanRecords(*f, delimiter, header, nullptr, &n));
    out.push_back(n);
  }
  return out;
}

Result<std::unique_ptr<Source>> OpenCsvSource(const nlohmann::json& node) {
  const auto args = node.value("args", nlohmann::json::object());
  const auto bad = [](const std::string& m) { return Status::InvalidArgument("a 'csv' source: " + m); };
  if (!args.contains("files") || !args["files"].is_array() || args["files"].empty()) {
    return bad("args.files must be a non-empty list of file paths");
  }
  std::vector<std::string> files;
  for (const auto& f : args["files"]) {
    if (!f.is_string() || f.get<std::string>().empty()) return bad("args.files must hold file paths");
    files.push_back(f.get<std::string>());
  }
  const std::string delim = args.value("delimiter", std::string(","));
  if (delim.size() != 1 || delim[0] == '"' || delim[0] == '\r' || delim[0] == '\n') {
    return bad("args.delimiter must be one character other than a quote or a line end");
  }
  auto names = node.at("columns").get<std::vector<std::string>>();
  if (!args.contains("types") || !args["types"].is_array() || args["types"].size() != names.size()) {
    return bad("args.types must name one type per column");
  }
  std::vector<CsvType> types;
  for (const auto& t : args["types"]) {
    const std::string s = t.is_string() ? t.get<std::string>() : std::string();
    if (s == "int32") {
      types.push_back(CsvType::kInt32);
    } else if (s == "float32") {
      types.push_back(CsvType::kFloat32);
    } else if (s == "string") {
      types.push_back(CsvType::kString);
    } else {
      return bad("args.types holds int32, float32 or string, got " + t.dump());
    }
  }
  const bool header = args.value("header", false);
  MR_ASSIGN_OR_RETURN(auto src, CsvSource::Open(std::move(files), std::move(names), std::move(types), delim[0], header));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the CSV files hold " + std::to_string(src->num_rows()) + " records now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
