// Files written by MindSpore (../shared/compat/mindrecord) read field by field
// and checked against values obtained independently: the SQLite index read
// with plain SQL, blob bytes read straight from the file at the index's
// offsets, and values decoded by Python's msgpack when the files were studied.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstring>

#include "readers/shard_reader.h"
#include "tests/util/test_util.h"

namespace mindrecord {
namespace {

using testing::CompatDir;

struct DbRow {
  int64_t blob_page, blob_begin, blob_end;
  std::vector<std::string> text;  // index columns as text, in column order after the 8 locators
};

std::vector<DbRow> QueryIndex(const std::string& db_path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT * FROM INDEXES ORDER BY ROW_ID", -1, &st, nullptr), SQLITE_OK);
  std::vector<DbRow> out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    DbRow r;
    r.blob_page = sqlite3_column_int64(st, 5);
    r.blob_begin = sqlite3_column_int64(st, 6);
    r.blob_end = sqlite3_column_int64(st, 7);
    for (int c = 8; c < sqlite3_column_count(st); c += 2) {
      const char* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c + 1));
      r.text.push_back(t ? t : "");
    }
    out.push_back(r);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::string FileBytes(const std::string& path, uint64_t off, uint64_t n) {
  std::string all = testing::ReadFile(path);
  return all.substr(off, n);
}

TEST(CompatTest, ImageNetFourShardsV2) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  for (int open = 0; open < 4; ++open) {
    auto r = ShardReader::Open(dir + "/mindrecord/imagenet/imagenet.mindrecord" + std::to_string(open));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->num_shards(), 4u);
    EXPECT_EQ((*r)->num_rows(), 20u);
    EXPECT_EQ((*r)->version(), "2.0");
    EXPECT_EQ((*r)->index_fields(), (std::vector<std::string>{"label", "file_name"}));
  }
  auto r = *ShardReader::Open(dir + "/mindrecord/imagenet/imagenet.mindrecord0");
  uint64_t id = 0;
  for (int s = 0; s < 4; ++s) {
    const std::string shard = dir + "/mindrecord/imagenet/imagenet.mindrecord" + std::to_string(s);
    auto db = QueryIndex(shard + ".db");
    ASSERT_EQ(db.size(), 5u);
    for (const auto& d : db) {
      auto row = r->ReadRow(id++);
      ASSERT_TRUE(row.ok()) << row.status().ToString();
      // label_0 (INTEGER) and file_name_0 (v2.0: JSON-quoted TEXT).
      EXPECT_EQ(std::to_string(row->Get("label").as_int()), d.text[0]);
      EXPECT_EQ("\"" + row->Get("file_name").bytes() + "\"", d.text[1]);
      const uint64_t off = 16384 + d.blob_page * 1048576 + d.blob_begin + 8;
      const std::string jpeg = FileBytes(shard, off, d.blob_end - d.blob_begin - 8);
      EXPECT_EQ(row->Get("data").bytes(), jpeg);
      EXPECT_EQ(static_cast<unsigned char>(jpeg[0]), 0xFF);
      EXPECT_EQ(static_cast<unsigned char>(jpeg[1]), 0xD8);
    }
  }
  // From the dump made with Python's msgpack: shard 0 row 0.
  auto row0 = *r->ReadRow(0);
  EXPECT_EQ(row0.Get("file_name").bytes(), "../data/mindrecord/testImageNetDataWhole/images/n00000005/5_5.jpg");
  EXPECT_EQ(row0.Get("data").bytes().size(), 70440u);
}

TEST(CompatTest, GraphV3PackedIntegersAndMultiBlob) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  auto r = ShardReader::Open(dir + "/mindrecord/graph/testdata");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->num_rows(), 60u);
  EXPECT_EQ((*r)->version(), "3.0");
  EXPECT_EQ((*r)->schema().blob_fields().size(), 8u);
  auto db = QueryIndex(dir + "/mindrecord/graph/testdata.db");
  ASSERT_EQ(db.size(), 60u);
  for (uint64_t id = 0; id < 60; ++id) {
    auto row = (*r)->ReadRow(id);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    // Index columns: attribute, first_id, second_id, third_id, type, weight.
    EXPECT_EQ(row->Get("attribute").bytes(), db[id].text[0]);
    EXPECT_EQ(std::to_string(row->Get("first_id").as_int()), db[id].text[1]);
    EXPECT_EQ(std::to_string(row->Get("type").as_int()), db[id].text[4]);
    EXPECT_DOUBLE_EQ(row->Get("weight").as_float(), std::stod(db[id].text[5]));
    if (id < 10) EXPECT_EQ(row->Get("first_id").as_int(), 101 + static_cast<int64_t>(id));
  }
  // Rows 0 and 1 as Python's msgpack and numpy decoded them.
  auto row0 = *(*r)->ReadRow(0);
  EXPECT_EQ(row0.Get("node_feature_1").ArrayAs<int32_t>(), (std::vector<int32_t>{0, 1, 0, 0, 0}));
  EXPECT_EQ(row0.Get("node_feature_index").ArrayAs<int32_t>(), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(row0.Get("edge_feature_index").ArrayAs<int32_t>(), (std::vector<int32_t>{-1}));
  EXPECT_EQ(row0.Get("node_feature_2").ArrayAs<float>(), (std::vector<float>{0.1f}));
  EXPECT_EQ(row0.Get("weight").as_float(), 1.0);
  auto row1 = *(*r)->ReadRow(1);
  EXPECT_EQ(row1.Get("node_feature_1").ArrayAs<int32_t>(), (std::vector<int32_t>{1, 0, 0, 0, 1}));
  EXPECT_EQ(row1.Get("node_feature_2").ArrayAs<float>(), (std::vector<float>{0.2f}));
}

TEST(CompatTest, TwoBytesV2TwoBlobFields) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  const std::string path = dir + "/mindrecord/twobytes/twobytes.mindrecord";
  auto r = ShardReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->num_rows(), 5u);
  auto db = QueryIndex(path + ".db");
  for (uint64_t id = 0; id < 5; ++id) {
    auto row = *(*r)->ReadRow(id);
    EXPECT_EQ("\"" + row.Get("file_name").bytes() + "\"", db[id].text[0]);
    EXPECT_EQ(std::to_string(row.Get("id").as_int()), db[id].text[1]);
    EXPECT_EQ("\"" + row.Get("label_name").bytes() + "\"", db[id].text[2]);
    // Blob: BE length + img_data, BE length + label_data, straight from the file.
    const std::string blob = FileBytes(path, 16384 + db[id].blob_page * 1048576 + db[id].blob_begin + 8,
                                       db[id].blob_end - db[id].blob_begin - 8);
    uint64_t n1 = 0;
    for (int i = 0; i < 8; ++i) n1 = (n1 << 8) | static_cast<unsigned char>(blob[i]);
    EXPECT_EQ(row.Get("img_data").bytes(), blob.substr(8, n1));
    EXPECT_EQ(row.Get("label_data").bytes(), blob.substr(16 + n1));
    // JPEG start-of-image markers.
    EXPECT_EQ(row.Get("img_data").bytes().substr(0, 2), "\xFF\xD8");
    EXPECT_EQ(row.Get("label_data").bytes().substr(0, 2), "\xFF\xD8");
  }
}

TEST(CompatTest, HeadersReserializeByteForByte) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  for (const char* f : {"/mindrecord/graph/testdata", "/mindrecord/twobytes/twobytes.mindrecord",
                        "/mindrecord/imagenet/imagenet.mindrecord1"}) {
    std::string bytes = testing::ReadFile(dir + f);
    uint64_t len;
    std::memcpy(&len, bytes.data(), 8);
    std::string json = bytes.substr(8, len);
    auto h = ShardHeader::Parse(json, f);
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_EQ(h->Serialize(), json) << f;
  }
}

}  // namespace
}  // namespace mindrecord
