// Reads SHARD_NAME and the INDEXES row count from an index file directly, so
// a target can call the engine with the name and count the file claims
// (opened as the engine opens an index: nothing in the file runs).
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "index/index_db.h"

namespace mindrecord::fuzz {

struct IndexPeek {
  std::string shard_name = "fuzz.mindrecord";
  uint64_t rows = 0;
};

inline IndexPeek PeekIndex(const std::string& db_path) {
  IndexPeek out;
  auto opened = OpenIndexDb(db_path, IndexDbMode::kReadOnly);
  sqlite3* db = opened.ok() ? *opened : nullptr;
  if (db) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT NAME FROM SHARD_NAME LIMIT 1", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      if (!name.empty() && name.size() < 200 && name.find('/') == std::string::npos && name != "." && name != "..")
        out.shard_name = name;
    }
    sqlite3_finalize(st);
    st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM INDEXES", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      out.rows = static_cast<uint64_t>(std::max<sqlite3_int64>(0, sqlite3_column_int64(st, 0)));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

}  // namespace mindrecord::fuzz
