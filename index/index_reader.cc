#include "index/index_reader.h"

#include "index/index_db.h"

#include <sqlite3.h>

#include <cstring>
#include <map>

namespace mindrecord {

namespace {
struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { if (s) sqlite3_finalize(s); }
};

// What column `col` holds when it is not a value of field `f`'s type (it
// would be coerced into a wrong one); nullptr when it is.
const char* OtherType(sqlite3_stmt* st, int col, const Field& f) {
  const int want = f.type == DataType::kString ? SQLITE_TEXT : SQLITE_INTEGER;
  const int type = sqlite3_column_type(st, col);
  if (type == want || (want == SQLITE_INTEGER && type == SQLITE_FLOAT && !IsIntegerType(f.type))) return nullptr;
  static const char* const kNames[] = {"", "an integer", "a float", "text", "a blob", "NULL"};
  return kNames[type];
}

// A string field's value in column `col`; legacy (v2.0) indexes store it
// JSON-quoted.
std::string StringAt(sqlite3_stmt* st, int col, bool quoted) {
  const char* t = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
  std::string s(t ? t : "", static_cast<size_t>(sqlite3_column_bytes(st, col)));
  if (quoted && s.size() >= 2 && s.front() == '"' && s.back() == '"') {
    auto j = nlohmann::json::parse(s, nullptr, false);
    if (j.is_string()) s = j.get<std::string>();
  }
  return s;
}
}  // namespace

Result<std::unique_ptr<IndexReader>> IndexReader::Open(const std::string& db_path, const std::string& shard_name,
                                                       bool legacy_quoted_strings) {
  std::unique_ptr<IndexReader> r(new IndexReader());
  r->path_ = db_path;
  r->quoted_ = legacy_quoted_strings;
  MR_ASSIGN_OR_RETURN(r->db_, OpenIndexDb(db_path, IndexDbMode::kReadOnly));
  MR_RETURN_IF_ERROR(r->CheckShardName(shard_name));
  return r;
}

Result<std::unique_ptr<IndexReader>> IndexReader::OpenImage(const std::string& db_path, std::string_view image,
                                                            const std::string& shard_name,
                                                            bool legacy_quoted_strings) {
  std::unique_ptr<IndexReader> r(new IndexReader());
  r->path_ = db_path;
  r->quoted_ = legacy_quoted_strings;
  MR_ASSIGN_OR_RETURN(r->db_, OpenIndexDbImage(db_path, image));
  MR_RETURN_IF_ERROR(r->CheckShardName(shard_name));
  return r;
}

Status IndexReader::CheckShardName(const std::string& shard_name) const {
  const std::string& db_path = path_;
  Stmt st;
  if (sqlite3_prepare_v2(db_, "SELECT NAME FROM SHARD_NAME;", -1, &st.s, nullptr) != SQLITE_OK) {
    return Status::Corruption(db_path + ": not a MindRecord index (no SHARD_NAME table: " +
                              sqlite3_errmsg(db_) + ")");
  }
  if (sqlite3_step(st.s) != SQLITE_ROW) return Status::Corruption(db_path + ": SHARD_NAME table is empty");
  const char* name = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0));
  if (!name || shard_name != name) {
    return Status::Corruption(db_path + ": index belongs to shard '" + std::string(name ? name : "") +
                              "', expected '" + shard_name + "'");
  }
  return Status::OK();
}

IndexReader::~IndexReader() {
  if (db_) sqlite3_close(db_);
}

Result<std::vector<RowLocator>> IndexReader::LoadLocators(uint64_t num_rows) const {
  return LoadLocators(0, num_rows);
}

Result<std::vector<RowLocator>> IndexReader::LoadLocatorRange(uint64_t first_row, uint64_t num_rows) const {
  return LoadLocators(first_row, num_rows, " AND ROW_ID < " + std::to_string(first_row + num_rows));
}

Result<std::vector<RowLocator>> IndexReader::LoadLocators(uint64_t first_row, uint64_t num_rows) const {
  return LoadLocators(first_row, num_rows, "");
}

Result<std::vector<RowLocator>> IndexReader::LoadLocators(uint64_t first_row, uint64_t num_rows,
                                                          const std::string& and_where) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt st;
  const std::string sql =
      "SELECT ROW_ID,PAGE_ID_RAW,PAGE_OFFSET_RAW,PAGE_OFFSET_RAW_END,ROW_GROUP_ID,PAGE_ID_BLOB,PAGE_OFFSET_BLOB,"
      "PAGE_OFFSET_BLOB_END FROM INDEXES WHERE ROW_ID >= " + std::to_string(first_row) + and_where +
      " ORDER BY ROW_ID;";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) {
    return Status::Corruption(path_ + ": INDEXES table unreadable: " + sqlite3_errmsg(db_));
  }
  std::vector<RowLocator> out;
  out.reserve(num_rows);
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    RowLocator l;
    int64_t v[8];
    for (int i = 0; i < 8; ++i) {
      if (sqlite3_column_type(st.s, i) != SQLITE_INTEGER) {
        return Status::Corruption(path_ + ": non-integer locator in index row " + std::to_string(out.size()));
      }
      v[i] = sqlite3_column_int64(st.s, i);
      if (v[i] < 0) return Status::Corruption(path_ + ": negative locator in index row " + std::to_string(out.size()));
    }
    l.row_id = v[0], l.raw_page = v[1], l.raw_begin = v[2], l.raw_end = v[3], l.row_group = v[4];
    l.blob_page = v[5], l.blob_begin = v[6], l.blob_end = v[7];
    if (l.row_id != first_row + out.size()) {
      return Status::Corruption(path_ + ": index row ids are not " + std::to_string(first_row) + ".." +
                                std::to_string(first_row + num_rows) + " (found " + std::to_string(l.row_id) +
                                " at position " + std::to_string(out.size()) + ")");
    }
    out.push_back(l);
    if (out.size() > num_rows) break;
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    return Status::Corruption(path_ + ": reading INDEXES: " + sqlite3_errmsg(db_));
  }
  if (out.size() != num_rows) {
    return Status::Corruption(path_ + ": index holds " + (out.size() > num_rows ? "more than " : "") +
                              std::to_string(out.size()) + " rows, the shard header says " +
                              std::to_string(num_rows));
  }
  return out;
}

Result<std::vector<std::pair<Value, uint64_t>>> IndexReader::CountBy(const std::string& field, const Schema& schema,
                                                                     size_t max_values) const {
  const Field* f = schema.Find(field);
  if (!f || !f->is_scalar() || f->type == DataType::kBytes) {
    return Status::InvalidArgument("'" + field + "' is not a scalar field that can be indexed");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Stmt st;
  const std::string sql = "SELECT " + field + "_0, COUNT(*) FROM INDEXES GROUP BY " + field + "_0 ORDER BY " + field +
                          "_0 LIMIT " + std::to_string(max_values + 1) + ";";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) {
    return Status::InvalidArgument(path_ + ": field '" + field + "' is not an index field (" + sqlite3_errmsg(db_) +
                                   ")");
  }
  std::vector<std::pair<Value, uint64_t>> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    if (out.size() == max_values) {
      return Status::InvalidArgument(path_ + ": field '" + field + "' has more than " + std::to_string(max_values) +
                                     " distinct values");
    }
    const uint64_t n = static_cast<uint64_t>(sqlite3_column_int64(st.s, 1));
    if (const char* other = OtherType(st.s, 0, *f)) {
      return Status::Corruption(path_ + ": index field '" + field + "': " + std::to_string(n) + " rows hold " +
                                other + ", not a " + DataTypeName(f->type) + " value");
    }
    if (f->type == DataType::kString) {
      out.emplace_back(Value::String(StringAt(st.s, 0, quoted_)), n);
    } else if (IsIntegerType(f->type)) {
      out.emplace_back(Value::Int(sqlite3_column_int64(st.s, 0)), n);
    } else {
      out.emplace_back(Value::Float(sqlite3_column_double(st.s, 0)), n);
    }
  }
  if (rc != SQLITE_DONE) return Status::IOError(path_ + ": counting '" + field + "': " + sqlite3_errmsg(db_));
  return out;
}

Result<std::vector<std::pair<Value, std::vector<uint64_t>>>> IndexReader::GroupBy(const std::string& field,
                                                                                const Schema& schema,
                                                                                uint64_t num_rows) const {
  const Field* f = schema.Find(field);
  if (!f || !f->is_scalar() || f->type == DataType::kBytes) {
    return Status::InvalidArgument("'" + field + "' is not a scalar field that can be indexed");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Stmt st;
  std::string sql = "SELECT " + field + "_0, ROW_ID FROM INDEXES ORDER BY ROW_ID;";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) {
    return Status::InvalidArgument(path_ + ": field '" + field + "' is not an index field (" +
                                   sqlite3_errmsg(db_) + ")");
  }
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path_ + ": index field '" + field + "': " + why);
  };
  // Every row of the shard once, no other: the groups' memory is bounded by
  // the shard's rows, and a page of a category holds only rows that exist.
  std::vector<bool> seen(num_rows);
  uint64_t count = 0;
  std::map<std::string, std::pair<Value, std::vector<uint64_t>>> text_groups;
  std::map<double, std::pair<Value, std::vector<uint64_t>>> num_groups;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    if (sqlite3_column_type(st.s, 1) != SQLITE_INTEGER) {
      return bad("a ROW_ID is not an integer (index row " + std::to_string(count) + ")");
    }
    const int64_t id = sqlite3_column_int64(st.s, 1);
    if (id < 0 || static_cast<uint64_t>(id) >= num_rows) {
      return bad("lists row " + std::to_string(id) + ", which the shard (" + std::to_string(num_rows) +
                 " rows) does not have");
    }
    const uint64_t row = static_cast<uint64_t>(id);
    if (seen[row]) return bad("lists row " + std::to_string(row) + " twice");
    seen[row] = true;
    ++count;
    if (const char* other = OtherType(st.s, 0, *f)) {
      return bad("row " + std::to_string(row) + " holds " + other + ", not a " + DataTypeName(f->type) + " value");
    }
    if (f->type == DataType::kString) {
      std::string s = StringAt(st.s, 0, quoted_);
      auto& g = text_groups[s];
      if (g.second.empty()) g.first = Value::String(s);
      g.second.push_back(row);
    } else {
      double d = sqlite3_column_double(st.s, 0);
      auto& g = num_groups[d];
      if (g.second.empty()) {
        g.first = IsIntegerType(f->type) ? Value::Int(sqlite3_column_int64(st.s, 0)) : Value::Float(d);
      }
      g.second.push_back(row);
    }
  }
  if (rc != SQLITE_DONE) return bad(std::string("reading INDEXES: ") + sqlite3_errmsg(db_));
  if (count != num_rows) {
    return bad("lists " + std::to_string(count) + " rows, the shard has " + std::to_string(num_rows));
  }
  std::vector<std::pair<Value, std::vector<uint64_t>>> out;
  for (auto& [k, g] : text_groups) out.push_back(std::move(g));
  for (auto& [k, g] : num_groups) out.push_back(std::move(g));
  return out;
}

}  // namespace mindrecord
