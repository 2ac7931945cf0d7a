// Writes a shard's SQLite index (<shard>.db) with MindSpore's exact DDL:
// INDEXES(ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END,
// ROW_GROUP_ID, PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END,
// INC_k, <field>_0 ...) and SHARD_NAME(NAME). All rows go in one transaction.
// Datasets MindSpore cannot read anyway (compressed ones) get the same table
// WITHOUT ROWID: stored in primary-key order, with no second B-tree for the
// key, about 25% smaller; queries are unchanged.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"

struct sqlite3;
struct sqlite3_stmt;

namespace mindrecord {

// Where a row's parts live: page ids and [offset, end) within the page, the
// offsets pointing at the 8-byte length prefix.
struct RowLocator {
  uint64_t row_id = 0;
  uint64_t raw_page = 0, raw_begin = 0, raw_end = 0;
  uint64_t row_group = 0;
  uint64_t blob_page = 0, blob_begin = 0, blob_end = 0;

  // Same place on disk (row ids aside).
  bool SamePlace(const RowLocator& o) const {
    return raw_page == o.raw_page && raw_begin == o.raw_begin && raw_end == o.raw_end && row_group == o.row_group &&
           blob_page == o.blob_page && blob_begin == o.blob_begin && blob_end == o.blob_end;
  }
};

// SQLite column type MindSpore uses for an index field: TEXT, INTEGER, NUMERIC.
const char* IndexColumnType(DataType t);

// Thread safety: not thread-safe; one thread at a time drives a writer (its
// SQLite connection is opened without its own mutex). It may be handed from
// one thread to another (writers/index_queue.h).
class IndexWriter {
 public:
  // Creates `db_path` (which must not exist) and begins the transaction.
  // `legacy_quoted_strings`: v2.0 files stored string values JSON-quoted.
  // `without_rowid`: the compact table (only for datasets MindSpore refuses).
  static Result<std::unique_ptr<IndexWriter>> Create(const std::string& db_path, const std::string& shard_name,
                                                     const Schema& schema, const std::vector<std::string>& fields,
                                                     bool legacy_quoted_strings, bool without_rowid = false);
  // Opens an existing index (a private copy being appended to), deletes its
  // rows with ROW_ID >= `drop_from_row` (the appender re-adds them) and begins
  // the transaction.
  static Result<std::unique_ptr<IndexWriter>> OpenForAppend(const std::string& db_path, const Schema& schema,
                                                            const std::vector<std::string>& fields,
                                                            bool legacy_quoted_strings, uint64_t drop_from_row);
  ~IndexWriter();
  // `values` holds the index field values (by name). Rows are inserted
  // kRowsPerInsert at a time (one multi-row INSERT: SQLite's per-statement
  // work once per batch, not per row); MoveRaw and Finish insert what is
  // pending first. An insert error names the batch's rows.
  Status Add(const RowLocator& loc, const Row& values);
  static constexpr size_t kRowsPerInsert = 64;
  // Rows [first_row, end_row) moved whole to raw page `page`, `shift` bytes
  // nearer its start (a raw row group moved to a new page after its rows
  // were added).
  Status MoveRaw(uint64_t first_row, uint64_t end_row, uint64_t page, uint64_t shift);
  // Commits and closes; the file is complete only after this returns OK.
  Status Finish();
  const std::string& path() const { return path_; }

 private:
  IndexWriter() = default;
  Status Exec(const std::string& sql);
  // The INSERT statement for `rows` rows.
  Result<sqlite3_stmt*> PrepareInsert(size_t rows);
  // Inserts the pending rows.
  Status Flush();
  // rows_per_insert_ for this database's parameter limit.
  void SetRowsPerInsert();
  // An index field value of a pending row.
  struct Cell {
    int64_t i = 0;
    double f = 0;
    std::string text;
  };
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;       // kRowsPerInsert rows (or fewer, see rows_per_insert_)
  sqlite3_stmt* insert_one_ = nullptr;   // one row: the batch's remainder
  size_t rows_per_insert_ = kRowsPerInsert;
  std::vector<RowLocator> pending_;
  std::vector<Cell> cells_;  // pending_.size() x fields_.size()
  std::vector<std::string> fields_;
  std::vector<DataType> types_;
  bool quoted_ = false;
};

}  // namespace mindrecord
