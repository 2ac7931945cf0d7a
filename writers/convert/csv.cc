// CSV (RFC 4180: quoted fields, "" escapes, CRLF or LF) with a header row ->
// one field per column. Types are inferred from all rows as MindSpore's
// CsvToMR infers them with pandas (int32 1 / 0 when every cell is True or
// False, int64 when every cell is an integer, float64 when every cell is a
// number, else string), for every column or those of `csv_columns`, or
// given with --fields "column:type,..." (listed columns only).
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace {

struct CsvRow {
  size_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> cells;
};

// Splits the whole text into records. Corruption for an unterminated quote.
Result<std::vector<CsvRow>> ParseCsv(const std::string& text, char delim) {
  std::vector<CsvRow> rows;
  CsvRow cur;
  std::string cell;
  size_t line = 1;
  cur.line = 1;
  bool in_quotes = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && cell.empty()) {
      in_quotes = any = true;
    } else if (c == delim) {
      cur.cells.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cell.empty()) {
        cur.cells.push_back(std::move(cell));
        rows.push_back(std::move(cur));
      }
      cell.clear();
      cur = CsvRow{};
      any = false;
      cur.line = ++line;
    } else {
      cell += c;
      any = true;
    }
  }
  if (in_quotes) return Status::Corruption("unterminated quoted field starting on line " + std::to_string(cur.line));
  if (any || !cell.empty()) {
    cur.cells.push_back(std::move(cell));
    rows.push_back(std::move(cur));
  }
  return rows;
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

struct CsvData {
  std::string path;
  std::vector<CsvRow> rows;  // without the header
  std::vector<size_t> columns;  // source column of each spec
  std::vector<FieldSpec> specs;
  std::vector<bool> boolean;  // per spec: True / False text stored as int32 1 / 0
  size_t width = 0;
};

}  // namespace

PlanResult PlanCsv(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  auto text = ReadWholeFile(input);
  if (!text.ok()) return text.status().WithContext(input);
  auto parsed = ParseCsv(*text, o.csv_delimiter);
  if (!parsed.ok()) return parsed.status().WithContext(input);
  if (parsed->empty()) return Status::Corruption(input + ": empty CSV (no header row)");
  auto d = std::make_shared<CsvData>();
  d->path = input;
  std::vector<std::string> header = parsed->front().cells;
  for (auto& h : header) h = Trim(h);
  d->width = header.size();
  for (size_t i = 1; i < parsed->size(); ++i) {
    CsvRow& r = (*parsed)[i];
    if (r.cells.size() != d->width) {
      MR_RETURN_IF_ERROR(ctx.BadInput(input + " line " + std::to_string(r.line),
                                      Status::Corruption("has " + std::to_string(r.cells.size()) + " columns, the header has " +
                                                         std::to_string(d->width))));
      continue;
    }
    d->rows.push_back(std::move(r));
  }
  if (!o.fields.empty()) {
    MR_ASSIGN_OR_RETURN(d->specs, ParseFieldSpecs(o.fields));
    for (const auto& s : d->specs) {
      if (s.field.has_shape || s.byte_list) return Status::InvalidArgument("--fields '" + s.source_name + "': csv columns have no shape");
      auto it = std::find(header.begin(), header.end(), s.source_name);
      if (it == header.end()) return Status::InvalidArgument("--fields '" + s.source_name + "': no such column in " + input);
      d->columns.push_back(static_cast<size_t>(it - header.begin()));
    }
  } else {
    // The columns to infer: all, or those of --columns in that order.
    std::vector<size_t> wanted;
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
    std::string note;
    for (size_t c : wanted) {
      bool is_int = !d->rows.empty(), is_float = !d->rows.empty(), is_bool = !d->rows.empty();
      for (const auto& r : d->rows) {
        int64_t iv;
        double fv;
        if (is_bool && !ParseBool(r.cells[c], &iv)) is_bool = false;
        if (is_int && !ParseInt(r.cells[c], &iv)) is_int = false;
        if (!is_int && is_float && !ParseFloat(r.cells[c], &fv)) is_float = false;
        if (!is_int && !is_float && !is_bool) break;
      }
      FieldSpec s;
      s.source_name = header[c];
      s.field.name = SanitizeFieldName(header[c]);
      s.field.type = is_bool  ? DataType::kInt32
                     : is_int ? DataType::kInt64
                     : is_float ? DataType::kFloat64
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
  plan.num_items = d->rows.size();
  plan.item_name = [d](size_t i) { return d->path + " line " + std::to_string(d->rows[i].line); };
  plan.make_row = [d](size_t i) -> Result<Row> {
    Row row;
    for (size_t k = 0; k < d->specs.size(); ++k) {
      auto v = CellValue(d->rows[i].cells[d->columns[k]], d->specs[k].field.type, d->boolean[k]);
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
