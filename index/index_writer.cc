#include "index/index_writer.h"

#include "index/index_db.h"

#include <sqlite3.h>

#include <algorithm>

namespace mindrecord {

const char* IndexColumnType(DataType t) {
  switch (t) {
    case DataType::kInt32:
    case DataType::kInt64: return "INTEGER";
    case DataType::kFloat32:
    case DataType::kFloat64: return "NUMERIC";
    default: return "TEXT";
  }
}

Result<std::unique_ptr<IndexWriter>> IndexWriter::Create(const std::string& db_path, const std::string& shard_name,
                                                         const Schema& schema, const std::vector<std::string>& fields,
                                                         bool legacy_quoted_strings, bool without_rowid) {
  std::unique_ptr<IndexWriter> w(new IndexWriter());
  w->path_ = db_path;
  w->fields_ = fields;
  w->quoted_ = legacy_quoted_strings;
  MR_ASSIGN_OR_RETURN(w->db_, OpenIndexDb(db_path, IndexDbMode::kCreate));
  // The file is a temporary until the writer renames it, so SQLite's own
  // journaling is not needed; the writer fsyncs the finished file.
  MR_RETURN_IF_ERROR(w->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"));
  std::string ddl =
      "CREATE TABLE INDEXES("
      "  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL"
      ", PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL"
      ", ROW_GROUP_ID         INT  NOT NULL, PAGE_ID_BLOB         INT  NOT NULL"
      ", PAGE_OFFSET_BLOB     INT  NOT NULL, PAGE_OFFSET_BLOB_END INT  NOT NULL";
  for (size_t k = 0; k < fields.size(); ++k) {
    const Field* f = schema.Find(fields[k]);
    if (!f) return Status::InvalidArgument("index field '" + fields[k] + "' is not in the schema");
    w->types_.push_back(f->type);
    ddl += ",INC_" + std::to_string(k) + " INT, " + f->name + "_0 " + IndexColumnType(f->type);
  }
  ddl += ", PRIMARY KEY(ROW_ID";
  for (size_t k = 0; k < fields.size(); ++k) ddl += ",INC_" + std::to_string(k);
  ddl += without_rowid ? ")) WITHOUT ROWID;" : "));";
  MR_RETURN_IF_ERROR(w->Exec(ddl));
  MR_RETURN_IF_ERROR(w->Exec("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL);"));
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(w->db_, "INSERT INTO SHARD_NAME (NAME) VALUES (?);", -1, &st, nullptr) != SQLITE_OK) {
    return Status::IOError(db_path + ": " + sqlite3_errmsg(w->db_));
  }
  sqlite3_bind_text(st, 1, shard_name.data(), static_cast<int>(shard_name.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return Status::IOError(db_path + ": writing SHARD_NAME: " + sqlite3_errmsg(w->db_));
  MR_RETURN_IF_ERROR(w->Exec("BEGIN TRANSACTION;"));
  MR_ASSIGN_OR_RETURN(w->insert_one_, w->PrepareInsert(1));
  w->SetRowsPerInsert();
  MR_ASSIGN_OR_RETURN(w->insert_, w->PrepareInsert(w->rows_per_insert_));
  return w;
}

Result<std::unique_ptr<IndexWriter>> IndexWriter::OpenForAppend(const std::string& db_path, const Schema& schema,
                                                                const std::vector<std::string>& fields,
                                                                bool legacy_quoted_strings, uint64_t drop_from_row) {
  std::unique_ptr<IndexWriter> w(new IndexWriter());
  w->path_ = db_path;
  w->fields_ = fields;
  w->quoted_ = legacy_quoted_strings;
  // A copy of the dataset's index, as untrusted as the original: its
  // triggers must not fire on the DELETE below.
  MR_ASSIGN_OR_RETURN(w->db_, OpenIndexDb(db_path, IndexDbMode::kReadWrite));
  for (const auto& name : fields) {
    const Field* f = schema.Find(name);
    if (!f) return Status::InvalidArgument("index field '" + name + "' is not in the schema");
    w->types_.push_back(f->type);
  }
  // A private copy that the appender renames into place when it commits.
  MR_RETURN_IF_ERROR(w->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"));
  MR_RETURN_IF_ERROR(w->Exec("BEGIN TRANSACTION;"));
  MR_RETURN_IF_ERROR(w->Exec("DELETE FROM INDEXES WHERE ROW_ID >= " + std::to_string(drop_from_row) + ";"));
  MR_ASSIGN_OR_RETURN(w->insert_one_, w->PrepareInsert(1));
  w->SetRowsPerInsert();
  MR_ASSIGN_OR_RETURN(w->insert_, w->PrepareInsert(w->rows_per_insert_));
  return w;
}

Result<sqlite3_stmt*> IndexWriter::PrepareInsert(size_t rows) {
  std::string sql =
      "INSERT INTO INDEXES (ROW_ID,ROW_GROUP_ID,PAGE_ID_RAW,PAGE_OFFSET_RAW,PAGE_OFFSET_RAW_END,"
      "PAGE_ID_BLOB,PAGE_OFFSET_BLOB,PAGE_OFFSET_BLOB_END";
  for (size_t k = 0; k < fields_.size(); ++k) sql += ",INC_" + std::to_string(k) + "," + fields_[k] + "_0";
  sql += ") VALUES";
  std::string tuple = "(?,?,?,?,?,?,?,?";
  for (size_t k = 0; k < fields_.size(); ++k) tuple += ",?,?";
  tuple += ")";
  for (size_t r = 0; r < rows; ++r) sql += (r ? "," : "") + tuple;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    return Status::Internal(path_ + ": cannot prepare insert: " + sqlite3_errmsg(db_));
  }
  return st;
}

void IndexWriter::SetRowsPerInsert() {
  // Within SQLite's limit on a statement's parameters (wide schemas index
  // every scalar field).
  const size_t per_row = 8 + 2 * fields_.size();
  const size_t max_params = static_cast<size_t>(sqlite3_limit(db_, SQLITE_LIMIT_VARIABLE_NUMBER, -1));
  rows_per_insert_ = std::max<size_t>(1, std::min(kRowsPerInsert, max_params / per_row));
}

IndexWriter::~IndexWriter() {
  if (insert_) sqlite3_finalize(insert_);
  if (insert_one_) sqlite3_finalize(insert_one_);
  if (db_) sqlite3_close(db_);
}

Status IndexWriter::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Status::IOError(path_ + ": SQLite: " + msg);
  }
  return Status::OK();
}

Status IndexWriter::Add(const RowLocator& loc, const Row& values) {
  pending_.push_back(loc);
  const size_t base = cells_.size();
  cells_.resize(base + fields_.size());
  for (size_t k = 0; k < fields_.size(); ++k) {
    const Value& v = values.Get(fields_[k]);
    Cell& c = cells_[base + k];
    switch (types_[k]) {
      case DataType::kInt32:
      case DataType::kInt64: c.i = v.as_int(); break;
      case DataType::kFloat32:
      case DataType::kFloat64: c.f = v.as_float(); break;
      default:
        if (quoted_) {
          // replace: a string read from an untrusted dataset need not be valid
          // UTF-8 (dump() would throw); valid strings are quoted unchanged.
          c.text = nlohmann::json(v.bytes()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        } else {
          c.text.assign(v.bytes().data(), v.bytes().size());
        }
    }
  }
  return pending_.size() >= rows_per_insert_ ? Flush() : Status::OK();
}

Status IndexWriter::Flush() {
  size_t done = 0;
  while (done < pending_.size()) {
    const bool full = pending_.size() - done >= rows_per_insert_;
    sqlite3_stmt* s = full ? insert_ : insert_one_;
    const size_t n = full ? rows_per_insert_ : 1;
    sqlite3_reset(s);
    int i = 1;
    for (size_t r = done; r < done + n; ++r) {
      const RowLocator& loc = pending_[r];
      for (uint64_t v : {loc.row_id, loc.row_group, loc.raw_page, loc.raw_begin, loc.raw_end, loc.blob_page,
                         loc.blob_begin, loc.blob_end}) {
        sqlite3_bind_int64(s, i++, static_cast<sqlite3_int64>(v));
      }
      for (size_t k = 0; k < fields_.size(); ++k) {
        sqlite3_bind_int64(s, i++, 0);
        const Cell& c = cells_[r * fields_.size() + k];
        switch (types_[k]) {
          case DataType::kInt32:
          case DataType::kInt64: sqlite3_bind_int64(s, i++, c.i); break;
          case DataType::kFloat32:
          case DataType::kFloat64: sqlite3_bind_double(s, i++, c.f); break;
          // Bound without a copy: the cell outlives the step.
          default: sqlite3_bind_text(s, i++, c.text.data(), static_cast<int>(c.text.size()), SQLITE_STATIC);
        }
      }
    }
    if (sqlite3_step(s) != SQLITE_DONE) {
      const std::string rows = n == 1 ? "row " + std::to_string(pending_[done].row_id)
                                      : "rows " + std::to_string(pending_[done].row_id) + ".." +
                                            std::to_string(pending_[done + n - 1].row_id);
      Status st = Status::IOError(path_ + ": inserting index " + rows + ": " + sqlite3_errmsg(db_));
      sqlite3_reset(s);
      pending_.clear();
      cells_.clear();
      return st;
    }
    sqlite3_reset(s);  // releases the bound text before the cells change
    done += n;
  }
  pending_.clear();
  cells_.clear();
  return Status::OK();
}

Status IndexWriter::MoveRaw(uint64_t first_row, uint64_t end_row, uint64_t page, uint64_t shift) {
  MR_RETURN_IF_ERROR(Flush());
  sqlite3_stmt* st = nullptr;
  const char* sql =
      "UPDATE INDEXES SET PAGE_ID_RAW=?, PAGE_OFFSET_RAW=PAGE_OFFSET_RAW-?, PAGE_OFFSET_RAW_END=PAGE_OFFSET_RAW_END-? "
      "WHERE ROW_ID>=? AND ROW_ID<?";
  if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK) {
    return Status::Internal(path_ + ": cannot prepare update: " + sqlite3_errmsg(db_));
  }
  int i = 1;
  for (uint64_t v : {page, shift, shift, first_row, end_row}) sqlite3_bind_int64(st, i++, static_cast<sqlite3_int64>(v));
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    return Status::IOError(path_ + ": moving index rows " + std::to_string(first_row) + ".." +
                           std::to_string(end_row) + " to raw page " + std::to_string(page) + ": " + sqlite3_errmsg(db_));
  }
  return Status::OK();
}

Status IndexWriter::Finish() {
  MR_RETURN_IF_ERROR(Flush());
  for (sqlite3_stmt** st : {&insert_, &insert_one_}) {
    if (*st) sqlite3_finalize(*st);
    *st = nullptr;
  }
  MR_RETURN_IF_ERROR(Exec("COMMIT;"));
  int rc = sqlite3_close(db_);
  db_ = nullptr;
  if (rc != SQLITE_OK) return Status::IOError(path_ + ": closing index database failed");
  return Status::OK();
}

}  // namespace mindrecord
