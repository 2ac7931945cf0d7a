// Damaged datasets give errors that name the file and the problem; never a
// crash. Byte flips, truncation, missing or mismatched index files.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstring>
#include <filesystem>

#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

std::string MakeDataset(const TempDir& dir, const std::string& name, uint32_t shards = 1, int rows = 40) {
  const Schema schema = testing::IdNameImgSchema();
  WriterOptions o;
  o.shard_count = shards;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.checksums = false;  // these tests pin the structural checks (checksums: integrity_test.cc)
  const std::string path = dir.Join(name);
  auto w = *ShardWriter::Create(path, schema, o);
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) {
    batch.push_back(Row{{"id", Value::Int(i)},
                        {"name", Value::String("row" + std::to_string(i))},
                        {"img", Value::Bytes(std::string(1500 + i * 13, static_cast<char>(i)))},
                        {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, -i, 1000 * i})}});
  }
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

// Opens and reads every row; returns the first error (OK if all read).
Status ReadAndScanAll(const std::string& path) {
  auto r = ShardReader::Open(path);
  if (!r.ok()) return r.status();
  for (uint64_t i = 0; i < (*r)->num_rows(); ++i) {
    auto row = (*r)->ReadRow(i);
    if (!row.ok()) return row.status();
  }
  return (*r)->Scan(0, (*r)->num_rows(), nullptr, [](uint64_t, Row&&) { return Status::OK(); });
}

TEST(CorruptionTest, TruncationAtEveryPageBoundaryAndInTheHeaderIsAnError) {
  TempDir dir;
  const std::string path = MakeDataset(dir, "t.mindrecord");
  const std::string bytes = ReadFile(path);
  auto r = *ShardReader::Open(path);
  std::vector<uint64_t> cuts = {0, 4, 8, 100, r->header_size() - 1, r->header_size()};
  for (const auto& p : r->header(0).pages) {
    const uint64_t off = r->header(0).PageOffset(p.page_id);
    cuts.push_back(off);
    cuts.push_back(off + p.used_bytes / 2);
    cuts.push_back(off + p.used_bytes - 1);
  }
  for (uint64_t cut : cuts) {
    if (cut >= bytes.size()) continue;
    WriteFile(path, bytes.substr(0, cut));
    Status st = ReadAndScanAll(path);
    ASSERT_FALSE(st.ok()) << "truncated at " << cut;
    EXPECT_NE(st.message().find("t.mindrecord"), std::string::npos) << st.message();
  }
}

TEST(CorruptionTest, EveryByteFlipInHeaderAndLengthsIsHandled) {
  TempDir dir;
  const std::string path = MakeDataset(dir, "f.mindrecord", 1, 12);
  const std::string good = ReadFile(path);
  uint64_t json_len;
  std::memcpy(&json_len, good.data(), 8);
  int errors = 0;
  // Every byte of the length and the header JSON: an error or a readable
  // dataset, never a crash.
  for (uint64_t i = 0; i < 8 + json_len; ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    WriteFile(path, bad);
    errors += !ReadAndScanAll(path).ok();
  }
  EXPECT_GT(errors, static_cast<int>(json_len / 2));
  // Every byte of the data pages: may go unnoticed without checksums (those
  // come with the integrity extension) but must never crash.
  auto r = *ShardReader::Open((WriteFile(path, good), path));
  for (const auto& p : r->header(0).pages) {
    const uint64_t off = r->header(0).PageOffset(p.page_id);
    for (uint64_t i = off; i < off + p.used_bytes; i += 89) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ 0xff);
      WriteFile(path, bad);
      (void)ReadAndScanAll(path);
    }
  }
  // Flipping a row's length prefix is detected.
  std::string bad = good;
  bad[r->header(0).PageOffset(0) + 2] ^= 0x01;
  WriteFile(path, bad);
  EXPECT_FALSE(ReadAndScanAll(path).ok());
}

TEST(CorruptionTest, MissingOrForeignIndexAndMissingShard) {
  TempDir dir;
  const std::string a = MakeDataset(dir, "a.mindrecord");
  const std::string b = MakeDataset(dir, "b.mindrecord");
  std::filesystem::rename(a + ".db", a + ".db.bak");
  // Rows are located from the pages: a missing index is a warning, and only
  // field queries fail (naming the .db).
  Status st = ReadAndScanAll(a);
  ASSERT_TRUE(st.ok()) << st.message();
  {
    auto r = *ShardReader::Open(a);
    ASSERT_EQ(r->warnings().size(), 1u);
    EXPECT_NE(r->warnings()[0].find("a.mindrecord.db"), std::string::npos) << r->warnings()[0];
    EXPECT_NE(r->warnings()[0].find("missing"), std::string::npos) << r->warnings()[0];
    EXPECT_FALSE(r->has_index(0));
    auto g = r->GroupByIndexField("id");
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.status().message().find("a.mindrecord.db"), std::string::npos) << g.status().message();
  }
  // Another shard's index: rows do not use it; the first field query (which
  // opens it) refuses it.
  std::filesystem::copy_file(b + ".db", a + ".db");
  st = ReadAndScanAll(a);
  ASSERT_TRUE(st.ok()) << st.message();
  {
    auto g = (*ShardReader::Open(a))->GroupByIndexField("id");
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.status().message().find("index belongs to shard 'b.mindrecord'"), std::string::npos)
        << g.status().message();
  }
  std::filesystem::remove(a + ".db");
  std::filesystem::rename(a + ".db.bak", a + ".db");
  // An index with a row pointing outside its page: rows are not read through
  // the index's locators (they still read right); verify reports the index.
  sqlite3* db;
  ASSERT_EQ(sqlite3_open((a + ".db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE INDEXES SET PAGE_OFFSET_BLOB_END=99999999 WHERE ROW_ID=3", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  st = ReadAndScanAll(a);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ((*ShardReader::Open(a))->ReadRow(3)->Get("id").as_int(), 3);
  VerifyReport rep = Verify(a);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.problems[0].find("row 3"), std::string::npos) << rep.problems[0];

  const std::string s0 = MakeDataset(dir, "multi", 3);
  std::filesystem::remove(dir.Join("multi2"));
  st = ReadAndScanAll(dir.Join("multi1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("multi2"), std::string::npos) << st.message();
}

TEST(CorruptionTest, ShardsThatDisagreeAndUnsupportedVersions) {
  TempDir dir;
  MakeDataset(dir, "x", 2);
  // Replace shard 1 with a shard from another dataset written with other sizes.
  TempDir other;
  auto schema = *Schema::FromUserJsonString(R"({"id":{"type":"int64"}})");
  WriterOptions o;
  o.shard_count = 2;
  o.header_size = kMinHeaderSize * 2;
  o.page_size = kMinPageSize;
  auto w = *ShardWriter::Create(other.Join("x"), schema, o);
  ASSERT_TRUE(w->WriteRows({Row{{"id", Value::Int(1)}}, Row{{"id", Value::Int(2)}}}).ok());
  ASSERT_TRUE(w->Commit().ok());
  std::filesystem::copy_file(other.Join("x1"), dir.Join("x1"), std::filesystem::copy_options::overwrite_existing);
  Status st = ReadAndScanAll(dir.Join("x0"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("differs"), std::string::npos) << st.message();

  const std::string v = MakeDataset(dir, "v.mindrecord");
  std::string bytes = ReadFile(v);
  auto pos = bytes.find("\"version\":\"3.0\"");
  ASSERT_NE(pos, std::string::npos);
  bytes.replace(pos, 15, "\"version\":\"9.0\"");
  WriteFile(v, bytes);
  st = ReadAndScanAll(v);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kNotSupported);
  EXPECT_NE(st.message().find("unsupported MindRecord version '9.0'"), std::string::npos) << st.message();

  WriteFile(dir.Join("junk"), "not a mindrecord file at all, just text........");
  st = ReadAndScanAll(dir.Join("junk"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("junk"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
