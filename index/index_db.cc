#include "index/index_db.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "mindrecord/limits.h"
#include "mindrecord/own_file.h"

namespace mindrecord {
namespace {

// "file:" URI for `path`: SQLite reads '?' and '#' as the end of the path
// and decodes %HH, so those three are escaped.
std::string FileUri(const std::string& path) {
  std::string uri = path.compare(0, 1, "/") == 0 ? "file://" : "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  return uri;
}

Status ConfigureConnection(sqlite3* db, const std::string& path, IndexDbMode mode) {
  std::vector<std::pair<int, int>> settings = {{SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
                                               {SQLITE_DBCONFIG_ENABLE_VIEW, 0},
                                               {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
                                               {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0}};
  // Defensive mode also ignores `PRAGMA journal_mode=OFF`, which the writers
  // set on their private files (the file is renamed into place only once
  // complete); they run only their own SQL, so readers alone need it.
  if (mode == IndexDbMode::kReadOnly) settings.emplace_back(SQLITE_DBCONFIG_DEFENSIVE, 1);
  for (const auto& [op, on] : settings) {
    int now = -1;
    if (sqlite3_db_config(db, op, on, &now) != SQLITE_OK || now != on) {
      return Status::Internal(path + ": SQLite refused a safety setting (" + std::to_string(op) + ")");
    }
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, static_cast<int>(kMaxIndexValueBytes));
  return Status::OK();
}

// INDEXES and SHARD_NAME, where present, must be ordinary tables whose
// columns are all stored: anything else computes what it returns. A missing
// table is left to the caller's query, which names it.
Status CheckTables(sqlite3* db, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": not a MindRecord index (" + why + ")");
  };
  for (const char* table : {"INDEXES", "SHARD_NAME"}) {
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string("SELECT type, sql FROM sqlite_schema WHERE type IN ('table', 'view') AND "
                                        "name = '") + table + "' COLLATE NOCASE;";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      return bad(std::string("its schema does not read: ") + sqlite3_errmsg(db));
    }
    int rc = sqlite3_step(st);
    std::string type;
    if (rc == SQLITE_ROW) {
      const char* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      const char* s = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
      type = t ? t : "";
      if (type == "table" && s && sqlite3_strnicmp(s, "CREATE VIRTUAL", 14) == 0) type = "virtual table";
    }
    const std::string error = rc == SQLITE_ROW || rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(st);
    if (!error.empty()) return bad("its schema does not read: " + error);
    if (!type.empty() && type != "table") return bad(std::string(table) + " is a " + type + ", not a table");
    if (type.empty()) continue;
    const std::string pragma = std::string("SELECT name FROM pragma_table_xinfo('") + table + "') WHERE hidden != 0;";
    if (sqlite3_prepare_v2(db, pragma.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      return bad(std::string("its schema does not read: ") + sqlite3_errmsg(db));
    }
    rc = sqlite3_step(st);
    const char* c = rc == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : nullptr;
    const std::string column = c ? c : "";
    const std::string pragma_error = rc == SQLITE_ROW || rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(st);
    if (!pragma_error.empty()) return bad("its schema does not read: " + pragma_error);
    if (rc == SQLITE_ROW) return bad(std::string(table) + " column '" + column + "' is generated, not stored");
  }
  return Status::OK();
}

}  // namespace

Result<sqlite3*> OpenIndexDb(const std::string& path, IndexDbMode mode) {
  // A FIFO or device in the index's place would block SQLite's open or read.
  if (mode != IndexDbMode::kCreate) MR_RETURN_IF_ERROR(CheckNotSpecialFile(path));
  int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  std::string uri = FileUri(path);
  switch (mode) {
    case IndexDbMode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      uri += "?immutable=1";
      break;
    case IndexDbMode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case IndexDbMode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(uri.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    if (mode == IndexDbMode::kCreate) return Status::IOError(path + ": cannot create index database: " + why);
    return Status::NotFound(path + ": cannot open index database: " + why);
  }
  Status st = ConfigureConnection(db, path, mode);
  if (st.ok() && mode != IndexDbMode::kCreate) st = CheckTables(db, path);
  if (!st.ok()) {
    sqlite3_close(db);
    return st;
  }
  return db;
}

Result<sqlite3*> OpenIndexDbImage(const std::string& path, std::string_view image) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return Status::Internal(path + ": cannot open an in-memory database");
  }
  Status st = ConfigureConnection(db, path, IndexDbMode::kReadOnly);
  if (st.ok()) {
    // SQLite takes over a buffer from its own allocator (freed on close).
    auto* buf = static_cast<unsigned char*>(sqlite3_malloc64(image.size()));
    if (buf == nullptr && !image.empty()) {
      st = Status::Internal(path + ": out of memory for the index image");
    } else {
      if (!image.empty()) std::memcpy(buf, image.data(), image.size());
      if (sqlite3_deserialize(db, "main", buf, static_cast<sqlite3_int64>(image.size()),
                              static_cast<sqlite3_int64>(image.size()),
                              SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
        st = Status::Corruption(path + ": not an SQLite database (" + sqlite3_errmsg(db) + ")");
      }
    }
  }
  if (st.ok()) st = CheckTables(db, path);
  if (!st.ok()) {
    sqlite3_close(db);
    return st;
  }
  return db;
}

}  // namespace mindrecord
