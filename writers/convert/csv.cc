// CSV (RFC 4180: quoted fields, "" escapes, CRLF or LF) with a header row ->
// one field per column. Types are inferred from all rows as MindSpore's
// CsvToMR infers them with pandas (int32 1 / 0 when every cell is True or
// False, int64 when every cell is an integer, float64 when every cell is a
// number, else string), for every column or those of `csv_columns`, or
// given with --fields "column:type,..." (listed columns only). The file is
// read in pieces, never whole: memory holds 24 bytes per record.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <memory>

#include "mindrecord/file.h"
#include "mindrecord/limits.h"

#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace {

// The converter's CSV grammar (RFC 4180), fed in pieces: a quote opens a
// quoted field only at the start of a field, "" inside quotes is a quote, a
// record ends at \n, \r or \r\n outside quotes, and a line with no content
// is no record. Reports each record's byte range (up to its line end), the
// line it starts on and its fields, of which it keeps the first `keep`
// (bounded by kMaxRowElements: a line of commas is millions of fields).
// Thread safety: one thread at a time.
class CsvTokenizer {
 public:
  struct Record {
    uint64_t start = 0, end = 0, line = 0;
    size_t fields = 0;
  };
  // done(record, kept fields) -> Status for each record; an error stops Feed.
  using Done = std::function<Status(const Record&, const std::vector<std::string>&)>;

  CsvTokenizer(char delim, size_t keep, Done done) : delim_(delim), keep_(keep), done_(std::move(done)) {}

  Status Feed(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i, ++off_) {
      const char c = p[i];
      if (cr_pending_) {  // \r\n is one line end
        cr_pending_ = false;
        if (c == '\n') {
          rec_.start = off_ + 1;
          continue;
        }
      }
      if (quote_pending_) {  // a quote inside quotes: "" or the closing one
        quote_pending_ = false;
        if (c == '"') {
          Append(c);
          continue;
        }
        in_quotes_ = false;
      }
      if (in_quotes_) {
        if (c == '"') {
          quote_pending_ = true;
        } else {
          if (c == '\n') ++line_;
          Append(c);
        }
        continue;
      }
      if (c == '"' && cell_empty_) {
        in_quotes_ = any_ = true;
      } else if (c == delim_) {
        MR_RETURN_IF_ERROR(EndField());
        any_ = true;
      } else if (c == '\n' || c == '\r') {
        if (any_ || !cell_empty_) {
          MR_RETURN_IF_ERROR(EndField());
          rec_.end = off_;
          MR_RETURN_IF_ERROR(done_(rec_, fields_));
        }
        NewRecord(off_ + 1, ++line_);
        cr_pending_ = c == '\r';
      } else {
        Append(c);
        any_ = true;
      }
    }
    return Status::OK();
  }

  // The end of the stream: Corruption for an open quote.
  Status Finish() {
    if (quote_pending_) in_quotes_ = quote_pending_ = false;
    if (in_quotes_) return Status::Corruption("unterminated quoted field starting on line " + std::to_string(rec_.line));
    if (any_ || !cell_empty_) {
      MR_RETURN_IF_ERROR(EndField());
      rec_.end = off_;
      MR_RETURN_IF_ERROR(done_(rec_, fields_));
    }
    NewRecord(off_, line_);
    return Status::OK();
  }

 private:
  void Append(char c) {
    cell_empty_ = false;
    if (rec_.fields < keep_) cell_ += c;
  }
  Status EndField() {
    if (rec_.fields < keep_) fields_.push_back(std::move(cell_));
    cell_.clear();
    cell_empty_ = true;
    if (++rec_.fields > kMaxRowElements) {
      return Status::Corruption("the record starting on line " + std::to_string(rec_.line) + " has more than " +
                                std::to_string(kMaxRowElements) + " fields");
    }
    return Status::OK();
  }
  void NewRecord(uint64_t start, uint64_t line) {
    rec_ = Record{start, start, line, 0};
    fields_.clear();
    any_ = false;
  }

  char delim_;
  size_t keep_;
  Done done_;
  Record rec_{0, 0, 1, 0};
  std::vector<std::string> fields_;
  std::string cell_;
  uint64_t off_ = 0, line_ = 1;
  bool in_quotes_ = false, quote_pending_ = false, cr_pending_ = false, any_ = false, cell_empty_ = true;
};

// Feeds `file` to `tok` from its start in pieces, then Finish; the first
// error stops it.
Status TokenizeFile(const RandomAccessFile& file, CsvTokenizer& tok) {
  constexpr uint64_t kChunk = 1 << 20;
  std::string buf;
  for (uint64_t at = 0; at < file.size(); at += buf.size()) {
    buf.resize(static_cast<size_t>(std::min(kChunk, file.size() - at)));
    MR_RETURN_IF_ERROR(file.ReadAt(at, buf.size(), buf.data()));
    MR_RETURN_IF_ERROR(tok.Feed(buf.data(), buf.size()));
  }
  return tok.Finish();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool ParseInt(const std::string& s, int64_t* out) {
  std::string t = Trim(s);
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseFloat(const std::string& s, double* out) {
  std::string t = Trim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

// pandas' boolean spellings (read_csv's true/false values), which MindSpore's
// CsvToMR stores as int32 1 / 0.
bool ParseBool(const std::string& s, int64_t* out) {
  const std::string t = Trim(s);
  if (t == "True" || t == "TRUE" || t == "true") return *out = 1, true;
  if (t == "False" || t == "FALSE" || t == "false") return *out = 0, true;
  return false;
}

Result<Value> CellValue(const std::string& cell, DataType t, bool boolean) {
  if (boolean) {
    int64_t v;
    if (!ParseBool(cell, &v)) return Status::Corruption("'" + cell + "' is not True or False");
    return Value::Int(v);
  }
  switch (t) {
    case DataType::kInt32:
    case DataType::kInt64: {
      int64_t v;
      if (!ParseInt(cell, &v) || (t == DataType::kInt32 && (v < INT32_MIN || v > INT32_MAX)))
        return Status::Corruption(std::string("'") + cell + "' is not an " + DataTypeName(t));
      return Value::Int(v);
    }
    case DataType::kFloat32:
    case DataType::kFloat64: {
      double v;
      if (!ParseFloat(cell, &v)) return Status::Corruption("'" + cell + "' is not a number");
      return Value::Float(v);
    }
    case DataType::kString: return Value::String(cell);
    case DataType::kBytes: return Value::Bytes(cell);
  }
  return Status::Internal("unknown type");
}

// Where a record lies (its fields are parsed again when it is converted).
struct CsvRecordRef {
  uint64_t start = 0;
  uint64_t line = 0;
  uint32_t length = 0;
};

struct CsvData {
  uint64_t id = 0;  // unique in the process (keys the workers' read windows)
  std::string path;
  std::shared_ptr<const RandomAccessFile> file;
  std::vector<CsvRecordRef> records;  // without the header
  std::vector<size_t> columns;  // source column of each spec
  std::vector<FieldSpec> specs;
  std::vector<bool> boolean;  // per spec: True / False text stored as int32 1 / 0
  char delim = ',';
  size_t width = 0;
};

// The fields of record `r`, read again from the file: Corruption when they
// are no longer one record of `d.width` fields. Each thread reads the file
// 64 KiB at a time: the records a worker converts follow each other.
Result<std::vector<std::string>> RecordFields(const CsvData& d, const CsvRecordRef& r) {
  constexpr uint64_t kWindow = 64 << 10;
  struct Window {
    uint64_t data = 0, at = 0;  // whose file, from where
    std::string bytes;
  };
  thread_local Window w;
  if (w.data != d.id || r.start < w.at || r.start - w.at + r.length > w.bytes.size()) {
    w.data = 0;
    const uint64_t left = d.file->size() - std::min(r.start, d.file->size());
    const uint64_t n = std::min(std::max<uint64_t>(kWindow, r.length), left);
    if (n < r.length) return Status::Corruption("the file changed since it was scanned");
    if (w.bytes.capacity() > 2 * kWindow && n <= kWindow) std::string().swap(w.bytes);  // after a long record
    w.bytes.resize(static_cast<size_t>(n));
    MR_RETURN_IF_ERROR(d.file->ReadAt(r.start, w.bytes.size(), w.bytes.data()));
    w.data = d.id;
    w.at = r.start;
  }
  const char* bytes = w.bytes.data() + (r.start - w.at);
  std::vector<std::string> fields;
  int records = 0;
  CsvTokenizer tok(d.delim, d.width, [&](const CsvTokenizer::Record& rec, const std::vector<std::string>& f) {
    if (++records == 1 && rec.fields == d.width) fields = f;
    return Status::OK();
  });
  MR_RETURN_IF_ERROR(tok.Feed(bytes, r.length));
  MR_RETURN_IF_ERROR(tok.Finish());
  if (records != 1 || fields.size() != d.width) return Status::Corruption("the file changed since it was scanned");
  return fields;
}

// Type inference for one column, as pandas reads it (see the file comment).
struct Inferred {
  bool is_int = true, is_float = true, is_bool = true, any = false;
  void See(const std::string& cell) {
    any = true;
    int64_t iv;
    double fv;
    if (is_bool && !ParseBool(cell, &iv)) is_bool = false;
    if (is_int && !ParseInt(cell, &iv)) is_int = false;
    if (!is_int && is_float && !ParseFloat(cell, &fv)) is_float = false;
  }
  bool open() const { return is_int || is_float || is_bool; }
};

}  // namespace

// One pass reads the header, a second finds the records (checking each one's
// field count, and inferring the columns' types unless --fields gives them)
// and keeps where each lies: 24 bytes a record, at most MaxIndexedRows() of
// them, whatever the file holds. Each record is read and parsed again when
// it is converted.
PlanResult PlanCsv(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  MR_ASSIGN_OR_RETURN(const uint64_t limit, MaxIndexedRows());
  static std::atomic<uint64_t> planned{0};
  auto d = std::make_shared<CsvData>();
  d->id = ++planned;
  d->path = input;
  d->delim = o.csv_delimiter;
  {
    auto file = FileSystem::Default()->OpenRead(input);
    if (!file.ok()) return file.status().WithContext(input);
    d->file = std::move(file).value();
  }
  // The header: the first record (the rest of the file is not read for it).
  std::vector<std::string> header;
  bool have_header = false;
  {
    CsvTokenizer tok(d->delim, kMaxRowElements, [&](const CsvTokenizer::Record&, const std::vector<std::string>& f) {
      header = f;
      have_header = true;
      return Status::Cancelled("header read");
    });
    const Status st = TokenizeFile(*d->file, tok);
    if (!st.ok() && !have_header) return st.WithContext(input);
  }
  if (!have_header) return Status::Corruption(input + ": empty CSV (no header row)");
  for (auto& h : header) h = Trim(h);
  d->width = header.size();
  std::vector<size_t> wanted;  // the columns to infer: all, or those of --columns in that order
  if (!o.fields.empty()) {
    MR_ASSIGN_OR_RETURN(d->specs, ParseFieldSpecs(o.fields));
    for (const auto& s : d->specs) {
      if (s.field.has_shape || s.byte_list) return Status::InvalidArgument("--fields '" + s.source_name + "': csv columns have no shape");
      auto it = std::find(header.begin(), header.end(), s.source_name);
      if (it == header.end()) return Status::InvalidArgument("--fields '" + s.source_name + "': no such column in " + input);
      d->columns.push_back(static_cast<size_t>(it - header.begin()));
    }
  } else {
    for (const auto& name : o.csv_columns) {
      auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end()) {
        return Status::InvalidArgument(input + ": The parameter columns_list is illegal, column " + name +
                                       " does not exist.");
      }
      wanted.push_back(static_cast<size_t>(it - header.begin()));
    }
    if (o.csv_columns.empty()) {
      for (size_t c = 0; c < d->width; ++c) wanted.push_back(c);
    }
  }
  // The records: each one's field count checked, its place kept, its fields
  // seen by the type inference.
  std::vector<Inferred> inferred(wanted.size());
  size_t open = wanted.size();  // columns whose type may still narrow
  bool first = true;
  Status full, reported;  // past the limit; a bad record reported (failing unless skipped)
  CsvTokenizer tok(d->delim, d->width,
                   [&](const CsvTokenizer::Record& r, const std::vector<std::string>& f) -> Status {
                     if (first) {  // the header
                       first = false;
                       return Status::OK();
                     }
                     if (r.fields != d->width) {
                       return reported = ctx.BadInput(input + " line " + std::to_string(r.line),
                                           Status::Corruption("has " + std::to_string(r.fields) +
                                                              " columns, the header has " + std::to_string(d->width)));
                     }
                     if (r.end - r.start > kMaxDecompressedRowBytes) {
                       return reported = ctx.BadInput(input + " line " + std::to_string(r.line),
                                           Status::Corruption("a record of " + std::to_string(r.end - r.start) +
                                                              " bytes, longer than a row may be"));
                     }
                     if (d->records.size() >= limit) return full = TooManyIndexedRows(input, limit, "records");
                     d->records.push_back({r.start, r.line, static_cast<uint32_t>(r.end - r.start)});
                     for (size_t k = 0; open > 0 && k < wanted.size(); ++k) {
                       if (!inferred[k].open()) continue;
                       inferred[k].See(f[wanted[k]]);
                       if (!inferred[k].open()) --open;
                     }
                     return Status::OK();
                   });
  const Status st = TokenizeFile(*d->file, tok);
  if (!full.ok()) return full;
  if (!reported.ok()) return reported;
  if (!st.ok()) return st.WithContext(input);
  if (o.fields.empty()) {
    std::string note;
    for (size_t k = 0; k < wanted.size(); ++k) {
      const Inferred& t = inferred[k];
      const size_t c = wanted[k];
      const bool is_bool = t.any && t.is_bool;
      FieldSpec s;
      s.source_name = header[c];
      s.field.name = SanitizeFieldName(header[c]);
      s.field.type = is_bool                ? DataType::kInt32
                     : t.any && t.is_int    ? DataType::kInt64
                     : t.any && t.is_float  ? DataType::kFloat64
                                            : DataType::kString;
      note += (note.empty() ? "" : ",") + s.source_name + ":" + DataTypeName(s.field.type) +
              (is_bool ? " (True/False as 1/0)" : "");
      d->specs.push_back(std::move(s));
      d->boolean.push_back(is_bool);
      d->columns.push_back(c);
    }
    ctx.Note("csv columns (inferred): --fields '" + note + "'");
  }
  d->boolean.resize(d->specs.size(), false);
  std::vector<Field> fields;
  for (const auto& s : d->specs) fields.push_back(s.field);
  SplitPlan plan;
  auto schema = Schema::Make(fields, "csv");
  if (!schema.ok()) return schema.status().WithContext(input + ": header");
  plan.schema = std::move(schema).value();
  plan.num_items = d->records.size();
  plan.item_name = [d](size_t i) { return d->path + " line " + std::to_string(d->records[i].line); };
  plan.make_row = [d](size_t i) -> Result<Row> {
    MR_ASSIGN_OR_RETURN(const std::vector<std::string> cells, RecordFields(*d, d->records[i]));
    Row row;
    for (size_t k = 0; k < d->specs.size(); ++k) {
      auto v = CellValue(cells[d->columns[k]], d->specs[k].field.type, d->boolean[k]);
      if (!v.ok()) return v.status().WithContext("column '" + d->specs[k].source_name + "'");
      row.Set(d->specs[k].field.name, std::move(v).value());
    }
    return row;
  };
  std::vector<SplitPlan> plans;
  plans.push_back(std::move(plan));
  return plans;
}

}  // namespace mindrecord::convert
