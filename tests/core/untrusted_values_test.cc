// Stored values are what the schema says, or an error: rows of hostile files
// (built here by patching files our writer made) are reported, never wrapped
// or misread, and the msgpack parser never sees unbounded nesting.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <ctime>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "mindrecord/compression.h"
#include "mindrecord/file.h"
#include "mindrecord/limits.h"
#include "mindrecord/row_codec.h"
#include "readers/header_io.h"
#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// Writes rows {id, ix} (int64 both) without checksums, so tests can patch.
std::string WriteIds(const std::string& path, const std::vector<std::pair<int64_t, int64_t>>& rows) {
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"},"ix":{"type":"int64"}})");
  EXPECT_TRUE(schema.ok());
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.checksums = false;
  auto w = ShardWriter::Create(path, *schema, o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::vector<Row> batch;
  for (auto [a, b] : rows) batch.push_back(Row{{"id", Value::Int(a)}, {"ix", Value::Int(b)}});
  EXPECT_TRUE((*w)->WriteRows(batch).ok());
  EXPECT_TRUE((*w)->Commit().ok());
  return path;
}

// Replaces every occurrence of `from` by `to` (same length) in a file.
void Patch(const std::string& path, const std::string& from, const std::string& to, int expect_count = -1) {
  ASSERT_EQ(from.size(), to.size());
  std::string bytes = ReadFile(path);
  int n = 0;
  for (size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + 1), ++n) {
    bytes.replace(at, to.size(), to);
  }
  if (expect_count >= 0) ASSERT_EQ(n, expect_count);
  ASSERT_GT(n, 0);
  WriteFile(path, bytes);
}

Status ReadEveryValue(const std::string& path) {
  MR_ASSIGN_OR_RETURN(auto r, ShardReader::Open(path));
  for (uint64_t i = 0; i < r->num_rows(); ++i) MR_RETURN_IF_ERROR(r->ReadRow(i).status());
  return Status::OK();
}

// An int32 field holding 2^40 (it read as 1099511627776, and as 0 once cast).
TEST(UntrustedValuesTest, IntegerOutsideItsFieldTypeIsReported) {
  TempDir dir;
  const std::string d = WriteIds(dir.Join("d"), {{1, 1}, {int64_t{1} << 40, 2}});
  Patch(d, R"("id":{"type":"int64"})", R"("id":{"type":"int32"})", 1);
  Status st = ReadEveryValue(d);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("field 'id' holds 1099511627776, outside the range of int32"), std::string::npos)
      << st.ToString();
  EXPECT_NE(st.message().find("row 1"), std::string::npos) << st.ToString();
  VerifyReport v = Verify(d, {.deep = true});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.ToJson().dump().find("outside the range of int32"), std::string::npos) << v.ToJson().dump();
}

// A uint64 2^64-1 in an int64 field read as -1 and verified clean.
TEST(UntrustedValuesTest, UnsignedAboveInt64IsReported) {
  TempDir dir;
  const std::string d = WriteIds(dir.Join("d"), {{INT64_MAX, 7}});
  Patch(d, std::string("\xcf\x7f\xff\xff\xff\xff\xff\xff\xff", 9), std::string("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", 9),
        1);
  Status st = ReadEveryValue(d);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("field 'id' holds 18446744073709551615, outside the range of int64"),
            std::string::npos)
      << st.ToString();
  EXPECT_FALSE(Verify(d, {.deep = true}).ok());
}

// A raw row naming one field twice: a clear message (it said "lacks
// 18446744073709551615 of its fields").
TEST(UntrustedValuesTest, DuplicateMsgpackKeyIsNamed) {
  TempDir dir;
  const std::string d = WriteIds(dir.Join("d"), {{3, 4}});
  Patch(d, "\xa2ix", "\xa2id", 1);
  Status st = ReadEveryValue(d);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("raw row holds field 'id' twice"), std::string::npos) << st.ToString();
}

// Deeply nested msgpack reaching the general parser: bounded, not a stack
// overflow; containers claiming more elements than bytes are refused too.
// A raw row with fewer entries than the schema's raw fields is refused before
// any work per schema field: a header of 200,000 fields over a million empty
// rows made `verify --deep` spend 65 us of CPU a row (an hour for a page of
// empty rows), since each row cost O(fields) however few bytes it held.
TEST(UntrustedValuesTest, ShortRowsOfAWideSchemaCostTheirBytes) {
  nlohmann::json fields = nlohmann::json::object();
  for (int i = 0; i < 100000; ++i) fields["f" + std::to_string(i)] = {{"type", "int32"}};
  auto schema = Schema::FromUserJson(fields);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  RowCodec codec(&*schema, kVersion3);
  const std::string raw = "\x81\xa2" "f0\x01";  // {"f0": 1}
  const std::clock_t start = std::clock();
  for (int i = 0; i < 20000; ++i) {
    Row row;
    Status st = codec.DecodeRaw(raw, {}, &row);
    ASSERT_EQ(st.code(), StatusCode::kCorruption);
    if (i == 0) EXPECT_EQ(st.message(), "raw row holds 1 fields, the schema has 100000");
  }
  const double cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_LT(cpu, 0.2) << "20,000 short rows took " << cpu << " s of CPU";  // O(fields) a row: seconds
}

TEST(UntrustedValuesTest, NestedOrOversizedMsgpackIsRefusedBeforeParsing) {
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"}})");
  ASSERT_TRUE(schema.ok());
  RowCodec codec(&*schema, "3.0");
  Row row;
  std::string deep = "\x81\xa2id" + std::string(500000, '\x91') + '\x00';
  Status st = codec.DecodeRaw(deep, {}, &row);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nests deeper than 64 levels"), std::string::npos) << st.ToString();
  std::string huge = std::string("\x81\xa2id\xdd\xff\xff\xff\xff", 9) + "\x01";
  st = codec.DecodeRaw(huge, {}, &row);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("claims 4294967295 elements but only 1 bytes follow"), std::string::npos)
      << st.ToString();
  // A plain row still decodes.
  ASSERT_TRUE(codec.DecodeRaw(std::string("\x81\xa2id\x05", 5), {}, &row).ok());
  EXPECT_EQ(row.Get("id").as_int(), 5);
}

// Decompression is bounded per row, not only per value: two blob fields of
// 150 MiB of zeros each (a few KB stored) exceed the row's 256 MiB.
TEST(UntrustedValuesTest, DecompressedBytesAreBoundedPerRow) {
  TempDir dir;
  auto schema = Schema::FromUserJsonString(R"({"a":{"type":"bytes"},"b":{"type":"bytes"}})");
  ASSERT_TRUE(schema.ok());
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.compression.codec = Codec::kZstd;
  auto w = ShardWriter::Create(dir.Join("z"), *schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows({Row{{"a", Value::Bytes("x")}, {"b", Value::Bytes("y")}}}).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  auto f = FileSystem::Default()->OpenRead(dir.Join("z"));
  ASSERT_TRUE(f.ok());
  auto h = ReadShardHeader(**f, true);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  auto dec = BlobDecompressor::FromHeader(*h, "z");
  ASSERT_TRUE(dec.ok() && *dec) << dec.status().ToString();
  auto comp = BlobCompressor::Create(o.compression, "");
  ASSERT_TRUE(comp.ok());
  RowCodec codec(&h->schema, h->version);
  std::string bomb;
  {
    const std::string zeros(150 * kMiB, '\0');
    (*comp)->CompressRaw(zeros, &bomb);
    ASSERT_LT(bomb.size(), 64 * kKiB);
    // Writers refuse such a row.
    std::string joined, out;
    codec.JoinBlob({zeros, zeros}, &joined);
    Status st = (*comp)->CompressBlob(codec, joined, &out);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("a compressed dataset's row holds at most 268435456"), std::string::npos)
        << st.ToString();
  }
  std::string stored, plain;
  codec.JoinBlob({bomb, bomb}, &stored);
  Status st = (*dec)->DecompressBlob(codec, stored, &plain);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("blob field 1: zstd value claims 157286400 decompressed bytes, more than the "
                              "111149056 left of the row's limit"),
            std::string::npos)
      << st.ToString();
  // One such field alone is within the row's limit.
  std::string tiny;
  (*comp)->CompressRaw("tiny", &tiny);
  codec.JoinBlob({bomb, tiny}, &stored);
  st = (*dec)->DecompressBlob(codec, stored, &plain);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

// Writers refuse a float the field cannot hold (1e300 became inf in float32)
// and an integer it cannot hold exactly (2^40+1 became 2^40), naming the row
// and field, as they refuse a float for an integer field.
TEST(UntrustedValuesTest, WritersRefuseLossyFloatNarrowing) {
  TempDir dir;
  auto schema = Schema::FromUserJsonString(R"({"f":{"type":"float32"},"d":{"type":"float64"}})");
  ASSERT_TRUE(schema.ok());
  auto w = ShardWriter::Create(dir.Join("f"), *schema, {});
  ASSERT_TRUE(w.ok());
  auto row = [](Value f, Value d) { return Row{{"f", std::move(f)}, {"d", std::move(d)}}; };
  Status st = (*w)->WriteRows({row(Value::Float(0.1), Value::Float(1e300)), row(Value::Float(1e300), Value::Float(1))});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("row 1"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("field 'f' (float32): beyond float32's range"), std::string::npos) << st.ToString();
  auto w2 = ShardWriter::Create(dir.Join("g"), *schema, {});
  ASSERT_TRUE(w2.ok());
  st = (*w2)->WriteRows({row(Value::Int((int64_t{1} << 40) + 1), Value::Float(0))});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("field 'f' (float32): the integer does not fit float32 exactly"), std::string::npos)
      << st.ToString();
  st = (*w2)->WriteRows({row(Value::Int(1 << 20), Value::Int((int64_t{1} << 40) + 1)), row(Value::Float(0.1), Value::Float(-2.5))});
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE((*w2)->Commit().ok());
}

// `verify --deep` checks the .db's index values against the rows (a wrong
// value made MindPage return wrong rows while verify said clean).
TEST(UntrustedValuesTest, DeepVerifyChecksIndexValuesAgainstRows) {
  TempDir dir;
  const std::string d = WriteIds(dir.Join("d"), {{0, 10}, {1, 11}, {2, 12}, {3, 13}});
  ASSERT_TRUE(Verify(d, {.deep = true}).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((d + ".db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE INDEXES SET ix_0 = 999 WHERE ROW_ID = 2;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_TRUE(Verify(d, {.deep = false}).ok());  // locators still agree
  VerifyReport v = Verify(d, {.deep = true});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.ToJson().dump().find("index field 'ix' of row 2 is 999, the row holds 12"), std::string::npos)
      << v.ToJson().dump();
}

}  // namespace
}  // namespace mindrecord
