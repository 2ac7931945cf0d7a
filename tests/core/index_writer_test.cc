// IndexWriter inserts rows kRowsPerInsert at a time: every row added is in
// the finished index with its values, whatever the count; MoveRaw and Finish
// insert what is pending first; wide schemas stay within SQLite's parameter
// limit; an insert error names the rows.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "index/index_writer.h"
#include "mindrecord/schema.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using testing::TempDir;

struct IndexRow {
  int64_t row_id, raw_page, raw_begin, raw_end;
  std::vector<std::string> values;  // the index fields' columns as text
};

std::vector<IndexRow> ReadIndex(const std::string& path, size_t fields) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string sql = "SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END";
  for (size_t k = 0; k < fields; ++k) sql += ", INC_" + std::to_string(k) + ", f" + std::to_string(k) + "_0";
  sql += " FROM INDEXES ORDER BY ROW_ID";
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<IndexRow> out;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    IndexRow r{sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
            sqlite3_column_int64(st, 3), {}};
    for (size_t k = 0; k < fields; ++k) {
      EXPECT_EQ(sqlite3_column_int64(st, static_cast<int>(4 + 2 * k)), 0);
      const auto* t = sqlite3_column_text(st, static_cast<int>(5 + 2 * k));
      r.values.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
    }
    out.push_back(std::move(r));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

Schema ThreeFields() {
  return *Schema::Make({{"f0", DataType::kInt64}, {"f1", DataType::kFloat64}, {"f2", DataType::kString}});
}

Row Values(uint64_t i) {
  Row r;
  r.Set("f0", Value::Int(static_cast<int64_t>(i) * 7 - 100));
  r.Set("f1", Value::Float(static_cast<double>(i) / 4));
  r.Set("f2", Value::String(i % 5 ? "s" + std::to_string(i) : ""));
  return r;
}

RowLocator At(uint64_t i) {
  RowLocator l;
  l.row_id = i;
  l.raw_page = i / 50;
  l.raw_begin = i * 16;
  l.raw_end = i * 16 + 16;
  return l;
}

TEST(IndexWriterTest, EveryRowAddedIsInTheIndexWhateverTheCount) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, IndexWriter::kRowsPerInsert - 1, IndexWriter::kRowsPerInsert,
                     2 * IndexWriter::kRowsPerInsert + 3}) {
    TempDir dir;
    const std::string db = dir.Join("s.db");
    auto w = *IndexWriter::Create(db, "s", ThreeFields(), {"f0", "f1", "f2"}, false);
    for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(w->Add(At(i), Values(i)).ok());
    ASSERT_TRUE(w->Finish().ok());
    const auto rows = ReadIndex(db, 3);
    ASSERT_EQ(rows.size(), n);
    for (uint64_t i = 0; i < n; ++i) {
      EXPECT_EQ(rows[i].row_id, static_cast<int64_t>(i));
      EXPECT_EQ(rows[i].raw_begin, static_cast<int64_t>(i * 16));
      EXPECT_EQ(rows[i].values[0], std::to_string(static_cast<int64_t>(i) * 7 - 100));
      EXPECT_EQ(std::stod(rows[i].values[1]), static_cast<double>(i) / 4);
      EXPECT_EQ(rows[i].values[2], i % 5 ? "s" + std::to_string(i) : "");
    }
  }
}

TEST(IndexWriterTest, MoveRawSeesRowsStillPending) {
  TempDir dir;
  const std::string db = dir.Join("s.db");
  auto w = *IndexWriter::Create(db, "s", ThreeFields(), {"f0", "f1", "f2"}, false);
  for (uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(w->Add(At(i), Values(i)).ok());
  ASSERT_TRUE(w->MoveRaw(4, 10, 9, 64).ok());  // rows 4..9 to raw page 9, 64 bytes nearer its start
  ASSERT_TRUE(w->Finish().ok());
  const auto rows = ReadIndex(db, 3);
  ASSERT_EQ(rows.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(rows[i].raw_page, i < 4 ? 0 : 9) << i;
    EXPECT_EQ(rows[i].raw_begin, static_cast<int64_t>(i < 4 ? i * 16 : i * 16 - 64)) << i;
  }
}

TEST(IndexWriterTest, WideSchemasStayWithinTheParameterLimit) {
  // 990 index fields (the table's 1,988 columns are near SQLite's 2,000):
  // 1,988 parameters a row, so 16 rows fit one statement, not 64.
  std::vector<Field> fields;
  std::vector<std::string> names;
  for (int k = 0; k < 990; ++k) {
    names.push_back("f" + std::to_string(k));
    fields.push_back({names.back(), DataType::kInt32});
  }
  TempDir dir;
  const std::string db = dir.Join("w.db");
  auto w = IndexWriter::Create(db, "w", *Schema::Make(fields), names, false);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (uint64_t i = 0; i < 40; ++i) {
    Row r;
    for (int k = 0; k < 990; ++k) r.Set(names[k], Value::Int(static_cast<int64_t>(i) + k));
    ASSERT_TRUE((*w)->Add(At(i), r).ok());
  }
  ASSERT_TRUE((*w)->Finish().ok());
  const auto rows = ReadIndex(db, 990);
  ASSERT_EQ(rows.size(), 40u);
  EXPECT_EQ(rows[39].values[989], std::to_string(39 + 989));
}

TEST(IndexWriterTest, AnInsertErrorNamesTheRows) {
  TempDir dir;
  auto w = *IndexWriter::Create(dir.Join("d.db"), "d", ThreeFields(), {"f0", "f1", "f2"}, false);
  Status st;
  for (uint64_t i = 0; i < IndexWriter::kRowsPerInsert && st.ok(); ++i)
    st = w->Add(At(i == 5 ? 4 : i), Values(i));  // row id 4 twice: the primary key refuses it
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("d.db: inserting index rows 0.."), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace mindrecord
