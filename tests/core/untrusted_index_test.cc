// A shard's SQLite index is as untrusted as the shard: hostile .db files
// (built here by editing one our writer made) are refused or reported, and
// nothing stored in them runs: no view, no trigger, no generated column,
// no file created beside them, no row that the shard does not have.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

std::vector<Row> IndexedRows(int n, int first = 0) {
  std::vector<Row> rows;
  for (int i = first; i < first + n; ++i) rows.push_back(Row{{"id", Value::Int(i)}, {"ix", Value::Int(i % 3)}});
  return rows;
}

// Six rows {id, ix = id % 3}, both fields indexed (ix_0 holds 0, 1, 2).
std::string WriteIndexedDataset(const std::string& path) {
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"},"ix":{"type":"int64"}})");
  EXPECT_TRUE(schema.ok());
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  auto w = ShardWriter::Create(path, *schema, o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE((*w)->WriteRows(IndexedRows(6)).ok());
  EXPECT_TRUE((*w)->Commit().ok());
  return path;
}

// Runs SQL on the dataset's index as a hostile folder's author would.
void Edit(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

std::set<std::string> Names(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// The index is opened by the first field query, not by Open (rows are read
// without it): what that query returns.
Status FirstQuery(const std::string& path) {
  auto r = ShardReader::Open(path);
  if (!r.ok()) return r.status();
  return (*r)->GroupByIndexField("ix").status();
}

void ExpectRefused(const Status& st, const std::string& words) {
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(words), std::string::npos) << st.ToString();
}

// An INDEXES view with a recursive query that never ends: MindPage and
// `verify --deep` ran it and never returned. Views are refused, not run.
TEST(UntrustedIndexTest, ViewsAreRefusedNotRun) {
  TempDir dir;
  const std::string d = WriteIndexedDataset(dir.Join("d"));
  Edit(d + ".db",
       "ALTER TABLE INDEXES RENAME TO OLD;"
       "CREATE VIEW INDEXES AS WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c) "
       "SELECT x AS ROW_ID, 0 AS PAGE_ID_RAW, 0 AS PAGE_OFFSET_RAW, 0 AS PAGE_OFFSET_RAW_END, 0 AS ROW_GROUP_ID, "
       "0 AS PAGE_ID_BLOB, 0 AS PAGE_OFFSET_BLOB, 0 AS PAGE_OFFSET_BLOB_END, 0 AS INC_0, x AS id_0, 0 AS INC_1, "
       "x % 3 AS ix_0 FROM c;");
  const auto start = std::chrono::steady_clock::now();
  ExpectRefused(FirstQuery(d), d + ".db: not a MindRecord index (INDEXES is a view, not a table)");
  VerifyReport v = Verify(d, {.deep = true});
  EXPECT_FALSE(v.ok());
  EXPECT_NE(v.ToJson().dump().find("INDEXES is a view"), std::string::npos) << v.ToJson().dump();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// A SHARD_NAME view making a 900 MB value from nothing (the process took
// 1 GB to open the dataset).
TEST(UntrustedIndexTest, ComputedValuesAreRefused) {
  TempDir dir;
  const std::string d = WriteIndexedDataset(dir.Join("d"));
  Edit(d + ".db", "DROP TABLE SHARD_NAME; CREATE VIEW SHARD_NAME AS SELECT 'd' || zeroblob(900000000) AS NAME;");
  ExpectRefused(FirstQuery(d), "SHARD_NAME is a view, not a table");
  // A generated column computes its values on every read, from no bytes.
  const std::string e = WriteIndexedDataset(dir.Join("e"));
  Edit(e + ".db", "ALTER TABLE INDEXES ADD COLUMN big GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL;");
  ExpectRefused(FirstQuery(e), "INDEXES column 'big' is generated, not stored");
}

// A trigger in the index ran during an append (one that inserted a
// gigabyte per appended row filled the disk). Triggers never fire.
TEST(UntrustedIndexTest, TriggersNeverFire) {
  TempDir dir;
  const std::string d = WriteIndexedDataset(dir.Join("d"));
  Edit(d + ".db",
       "CREATE TABLE fired(x); CREATE TRIGGER t AFTER INSERT ON INDEXES BEGIN INSERT INTO fired VALUES (1); END;"
       "CREATE TRIGGER u AFTER DELETE ON INDEXES BEGIN INSERT INTO fired VALUES (2); END;");
  auto w = ShardWriter::OpenForAppend(d);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows(IndexedRows(4, 6)).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((d + ".db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM fired;", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  auto r = ShardReader::Open(d);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_rows(), 10u);
  EXPECT_TRUE(Verify(d, {.deep = true}).ok());
}

// A WAL-mode index: opening it wrote `d.db-wal` and `d.db-shm` into the
// folder (and would follow a planted -wal). Readers create nothing there.
TEST(UntrustedIndexTest, ReadingCreatesNothingBesideTheIndex) {
  TempDir dir;
  const std::string d = WriteIndexedDataset(dir.Join("d"));
  Edit(d + ".db", "PRAGMA journal_mode=WAL;");
  const auto before = Names(dir.path());
  {
    auto r = ShardReader::Open(d);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto groups = (*r)->GroupByIndexField("ix");
    ASSERT_TRUE(groups.ok()) << groups.status().ToString();
    EXPECT_EQ(groups->size(), 3u);
    EXPECT_EQ(Names(dir.path()), before);
  }
  EXPECT_EQ(Names(dir.path()), before);
}

// Rows of a category must be rows of the shard, each once: MindPage and the
// PK sampler returned row 999 of a 6-row shard, or a row twice.
TEST(UntrustedIndexTest, CategoryRowsAreTheShardsRowsOnce) {
  struct Case {
    const char* sql;
    const char* words;
  } cases[] = {
      {"UPDATE INDEXES SET ROW_ID = 999 WHERE ROW_ID = 2;", "lists row 999, which the shard (6 rows) does not have"},
      {"UPDATE INDEXES SET ROW_ID = -1 WHERE ROW_ID = 2;", "lists row -1, which the shard (6 rows) does not have"},
      {"INSERT INTO INDEXES SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, ROW_GROUP_ID, "
       "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END, 7, id_0, 7, ix_0 FROM INDEXES WHERE ROW_ID = 4;",
       "lists row 4 twice"},
      {"DELETE FROM INDEXES WHERE ROW_ID = 5;", "lists 5 rows, the shard has 6"},
      {"UPDATE INDEXES SET ROW_ID = 'two' WHERE ROW_ID = 2;", "a ROW_ID is not an integer"},
      {"UPDATE INDEXES SET ix_0 = 'one' WHERE ROW_ID = 1;", "row 1 holds text, not a int64 value"},
      {"UPDATE INDEXES SET ix_0 = NULL WHERE ROW_ID = 1;", "row 1 holds NULL, not a int64 value"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string d = WriteIndexedDataset(dir.Join("d"));
    Edit(d + ".db", c.sql);
    auto r = ShardReader::Open(d);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectRefused((*r)->GroupByIndexField("ix").status(), d + ".db: index field 'ix': " + c.words);
    VerifyReport v = Verify(d, {.deep = true});
    EXPECT_FALSE(v.ok()) << c.sql;
  }
}

}  // namespace
}  // namespace mindrecord
