#include "pipeline/nodes/csv_source.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"

namespace mindrecord {

namespace {


enum class CsvType : uint8_t { kInt32, kFloat32, kString };

// MindSpore's CSV grammar as a byte machine: both the scan for where
// records start and end and the split of a record into fields feed it.
class CsvMachine {
 public:
  explicit CsvMachine(char delimiter) : delim_(delimiter) {}

  // What one byte did.
  struct Step {
    bool record_start = false;  // the byte begins a record
    bool keep = false;          // the byte (a quote for "") belongs to the field's value
    bool field_end = false;     // the byte ends a field (a delimiter or the record's line end)
    bool record_end = false;    // the byte is the record's line end
  };

  // false on a grammar error (why() says which).
  bool Feed(char c, Step* step) {
    *step = Step();
    const bool eol = c == '\r' || c == '\n';
    const bool quote = c == '"';
    const bool delim = c == delim_;
    if (state_ == State::kBetween) {
      if (eol) return true;  // empty lines are skipped
      step->record_start = true;
      state_ = State::kFieldStart;
    }
    switch (state_) {
      case State::kFieldStart:
        if (quote) {
          state_ = State::kQuote;
        } else if (!delim && !eol) {
          step->keep = true;
          state_ = State::kUnquote;
        }
        break;
      case State::kUnquote:
        if (quote) return Fail("a quote inside an unquoted field");
        step->keep = !delim && !eol;
        break;
      case State::kQuote:
        if (quote) {
          state_ = State::kSecondQuote;
        } else {
          step->keep = true;
        }
        return true;
      case State::kSecondQuote:
        if (quote) {  // "" is a quote
          step->keep = true;
          state_ = State::kQuote;
          return true;
        }
        if (!delim && !eol) return Fail("text after a closing quote");
        break;
      case State::kBetween:
        break;
    }
    if (delim) {
      step->field_end = true;
      state_ = State::kFieldStart;
    } else if (eol) {
      step->field_end = step->record_end = true;
      state_ = State::kBetween;
    }
    return true;
  }
  // The end of the input: true with *record_end when a record was open
  // (its last field ends there).
  bool End(bool* record_end) {
    *record_end = state_ != State::kBetween;
    if (state_ == State::kQuote) return Fail("the file ends inside a quoted field");
    state_ = State::kBetween;
    return true;
  }
  const std::string& why() const { return why_; }

 private:
  enum class State : uint8_t { kBetween, kFieldStart, kUnquote, kQuote, kSecondQuote };
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
  fields->emplace_back();
  CsvMachine m(delim);
  CsvMachine::Step step;
  for (char c : rec) {
    if (!m.Feed(c, &step)) {
      *why = m.why();
      return false;
    }
    if (step.keep) fields->back().push_back(c);
    if (step.field_end) fields->emplace_back();
  }
  bool open = false;
  if (!m.End(&open)) {
    *why = m.why();
    return false;
  }
  return true;
}

// Scans `file` from after its header line (when `header`), calling
// add(start, length) for each record: the bytes between the line ends
// around it.
Status ScanRecords(const RandomAccessFile& file, char delim, bool header, const FileRowsSource::AddRow& add) {
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
  const auto end_record = [&](uint64_t end) { return add(rec_start, end - rec_start); };
  while (at < size) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - at));
    MR_RETURN_IF_ERROR(file.ReadAt(at, n, buf.data()));
    CsvMachine::Step step;
    for (size_t i = 0; i < n; ++i) {
      if (!m.Feed(buf[i], &step)) {
        return Status::Corruption(file.path() + ": byte " + std::to_string(at + i) + ": " + m.why() +
                                  " (CSV: a field is unquoted text without quotes or \"quoted\" with \"\" for a quote)");
      }
      if (step.record_start) rec_start = at + i;
      if (step.record_end) MR_RETURN_IF_ERROR(end_record(at + i));
    }
    at += n;
  }
  bool open = false;
  if (!m.End(&open)) return Status::Corruption(file.path() + ": byte " + std::to_string(size) + ": " + m.why());
  if (open) return end_record(size);
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

// The records of a file by the CSV grammar, for ScanRows (row_scan_cache.h).
std::string CsvScanKey(char delim, bool header) { return std::string("csv:") + delim + (header ? ":header" : ""); }
ScanFn CsvRecordScan(char delim, bool header) {
  return [delim, header](const RandomAccessFile& f, FileRows* rows) {
    return ScanRecords(f, delim, header, [rows, &f](uint64_t start, uint64_t n) {
      return rows->Add(start, n) ? Status::OK() : rows->Full(f.path(), "CSV records");
    });
  };
}

class CsvSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(std::vector<std::string> files, std::vector<std::string> names,
                                              std::vector<CsvType> types, char delim, bool header) {
    std::unique_ptr<CsvSource> s(new CsvSource(std::move(files), std::move(names)));
    s->types_ = std::move(types);
    s->delim_ = delim;
    MR_RETURN_IF_ERROR(s->Scan(CsvScanKey(delim, header), CsvRecordScan(delim, header)));
    return std::unique_ptr<Source>(std::move(s));
  }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    std::vector<std::string> fields;
    return ReadEach(ids, fn, [&](uint64_t id, std::vector<Tensor>* cols) { return Row(id, &fields, cols); });
  }

 private:
  CsvSource(std::vector<std::string> files, std::vector<std::string> names)
      : FileRowsSource(std::move(files), "record", std::move(names)) {}

  Status Row(uint64_t id, std::vector<std::string>* fields, std::vector<Tensor>* cols) const {
    MR_ASSIGN_OR_RETURN(std::string rec, RowBytes(id));
    std::string why;
    if (!SplitRecord(rec, delim_, fields, &why)) return Status::Corruption(Where(id) + ": " + why);
    if (fields->size() != columns().size()) {
      return Status::InvalidArgument(Where(id) + ": " + std::to_string(fields->size()) + " field(s), the columns are " +
                                     std::to_string(columns().size()));
    }
    for (size_t c = 0; c < fields->size(); ++c) {
      auto t = FieldTensor(types_[c], std::move((*fields)[c]));
      if (!t.ok()) return Status(t.status().code(), Where(id) + ", column '" + columns()[c] + "': " + t.status().message());
      cols->push_back(std::move(t).value());
    }
    return Status::OK();
  }

  std::vector<CsvType> types_;
  char delim_ = ',';
};

}  // namespace

Result<std::vector<uint64_t>> CountCsvRecords(const std::vector<std::string>& files, char delimiter, bool header) {
  MR_ASSIGN_OR_RETURN(auto scans, ScanSourceFiles(files, CsvScanKey(delimiter, header), CsvRecordScan(delimiter, header)));
  std::vector<uint64_t> out;
  for (const auto& rows : scans) out.push_back(rows->start.size());
  return out;
}

Result<std::unique_ptr<Source>> OpenCsvSource(const nlohmann::json& node) {
  const auto args = node.value("args", nlohmann::json::object());
  const auto bad = [](const std::string& m) { return Status::InvalidArgument("a 'csv' source: " + m); };
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(args, "csv"));
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
