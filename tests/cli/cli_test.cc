// The `mindrecord` executable driven as a user drives it: inspect, cat, copy,
// exit codes and error messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "mindrecord/compression.h"
#include "mindrecord/version.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::CliPath;
using testing::CompatDir;
using testing::RunCommand;
using testing::TempDir;

std::string CliCommand(const std::string& args) { return CliPath() + " " + args; }

// `mindrecord --version` prints the version CMake's project() declares (the
// same string as the library's MINDRECORD_VERSION and Python's __version__).
TEST(CliTest, VersionPrintsTheProjectVersion) {
  std::string out;
  ASSERT_EQ(RunCommand(CliCommand("--version"), &out), 0) << out;
  EXPECT_EQ(out, std::string("mindrecord ") + MINDRECORD_VERSION + "\n");
  EXPECT_NE(std::string(MINDRECORD_VERSION).find('.'), std::string::npos);
}

TEST(CliTest, InspectJsonDescribesAMultiShardDataset) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  std::string out;
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + dir + "/mindrecord/imagenet/imagenet.mindrecord3"), &out), 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["version"], "2.0");
  EXPECT_EQ(j["num_rows"], 20);
  EXPECT_EQ(j["shards"].size(), 4u);
  EXPECT_EQ(j["blob_fields"], nlohmann::json({"data"}));
  EXPECT_EQ(j["index_fields"], nlohmann::json({"label", "file_name"}));
  EXPECT_EQ(j["header_size"], 16384);
  EXPECT_EQ(j["page_size"], 1048576);
  EXPECT_EQ(j["schema"]["label"]["type"], "int64");
  ASSERT_EQ(RunCommand(CliCommand("inspect --pages " + dir + "/mindrecord/graph/testdata"), &out), 0);
  EXPECT_NE(out.find("BLOB_DATA"), std::string::npos);
  EXPECT_NE(out.find("rows:         60"), std::string::npos);
}

TEST(CliTest, CatJsonlRowsColumnsAndBase64) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  std::string out;
  ASSERT_EQ(RunCommand(CliCommand("cat " + dir + "/mindrecord/graph/testdata --rows 1:3 --columns first_id,node_feature_1"), &out), 0);
  auto nl = out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  auto first = nlohmann::json::parse(out.substr(0, nl));
  EXPECT_EQ(first, nlohmann::json::parse(R"({"first_id":102,"node_feature_1":[1,0,0,0,1]})"));
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2);
  ASSERT_EQ(RunCommand(CliCommand("cat " + dir + "/mindrecord/imagenet/imagenet.mindrecord0 --rows 0 --columns data"), &out), 0);
  auto row = nlohmann::json::parse(out);
  EXPECT_EQ(row["data"].get<std::string>().substr(0, 4), "/9j/");  // base64 of FF D8 FF
  ASSERT_EQ(RunCommand(CliCommand("cat " + dir + "/mindrecord/twobytes/twobytes.mindrecord --format table"), &out), 0);
  EXPECT_NE(out.find("row_id\tfile_name\tid\timg_data"), std::string::npos);
}

TEST(CliTest, CatAndInspectReadMindSporeFilesWithoutTheirIndexAndWarn) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  TempDir tmp;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "imagenet.mindrecord" + std::to_string(i);
    std::filesystem::copy_file(dir + "/mindrecord/imagenet/" + name, tmp.Join(name));
  }
  std::string with, without;
  ASSERT_EQ(RunCommand(CliCommand("cat " + dir + "/mindrecord/imagenet/imagenet.mindrecord0"), &with), 0);
  ASSERT_EQ(RunCommand(CliCommand("cat " + tmp.Join("imagenet.mindrecord0") + " 2>" + tmp.Join("err")), &without), 0);
  EXPECT_EQ(without, with);
  const std::string err = testing::ReadFile(tmp.Join("err"));
  EXPECT_NE(err.find("mindrecord cat: warning: " + tmp.Join("imagenet.mindrecord0.db")), std::string::npos) << err;
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
  std::string out;
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + tmp.Join("imagenet.mindrecord3") + " 2>" + tmp.Join("err")), &out),
            0);
  EXPECT_EQ(nlohmann::json::parse(out)["warnings"].size(), 4u);
  EXPECT_NE(testing::ReadFile(tmp.Join("err")).find("mindrecord inspect: warning:"), std::string::npos);
}

TEST(CliTest, CopyReproducesMindSporeFilesByteForByte) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  TempDir tmp;
  // Every page write mode (direct where the file system takes it, buffered,
  // and auto: copy's default, buffered).
  for (const char* mode : {"auto", "direct", "buffered"})
  for (const char* f : {"graph/testdata", "twobytes/twobytes.mindrecord"}) {
    const std::string src = dir + "/mindrecord/" + f;
    std::filesystem::create_directories(tmp.Join(mode));
    const std::string dst = tmp.Join(mode + ("/" + std::filesystem::path(f).filename().string()));
    ASSERT_EQ(RunCommand(CliCommand("copy --no-checksums --write-mode " + std::string(mode) + " " + src + " " + dst)), 0) << f;
    EXPECT_EQ(testing::ReadFile(dst), testing::ReadFile(src)) << f << " differs";
    std::string a, b;
    const char* q = "\"SELECT * FROM INDEXES ORDER BY ROW_ID; SELECT * FROM SHARD_NAME;\"";
    ASSERT_EQ(RunCommand("sqlite3 " + dst + ".db " + q, &a), 0);
    ASSERT_EQ(RunCommand("sqlite3 " + src + ".db " + q, &b), 0);
    EXPECT_EQ(a, b) << f;
  }
}

TEST(CliTest, CopyReshardsAndRepages) {
  const std::string dir = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(dir);
  TempDir tmp;
  ASSERT_EQ(RunCommand(CliCommand("copy " + dir + "/mindrecord/imagenet/imagenet.mindrecord0 " + tmp.Join("one") +
                           " --shards 1 --page-size 131072 --header-size 32768")), 0);
  std::string a, b;
  ASSERT_EQ(RunCommand(CliCommand("cat " + tmp.Join("one")), &a), 0);
  ASSERT_EQ(RunCommand(CliCommand("cat " + dir + "/mindrecord/imagenet/imagenet.mindrecord0"), &b), 0);
  EXPECT_EQ(a, b);
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + tmp.Join("one")), &a), 0);
  EXPECT_EQ(nlohmann::json::parse(a)["page_size"], 131072);
  // Existing output is refused (exit 2) unless --overwrite.
  EXPECT_EQ(RunCommand(CliCommand("copy " + tmp.Join("one") + " " + tmp.Join("one")) + " 2>/dev/null"), 2);
}

TEST(CliTest, CopyCompressesAndRestoresPlainOutput) {
  TempDir tmp;
  std::vector<Field> f(3);
  f[0] = {.name = "id", .type = DataType::kInt64};
  f[1] = {.name = "text", .type = DataType::kBytes};
  f[2] = {.name = "tokens", .type = DataType::kInt32, .has_shape = true, .shape = {-1}};
  const Schema schema = *Schema::Make(f, "cli compression");
  std::vector<Row> rows;
  for (int i = 0; i < 500; ++i) {
    Row r;
    r.Set("id", Value::Int(i));
    std::string text;
    for (int k = 0; k < 30; ++k) text += "token" + std::to_string((i * 7 + k) % 50) + " ";
    r.Set("text", Value::Bytes(text));
    r.Set("tokens", Value::ArrayOf(DataType::kInt32, std::vector<int32_t>(i % 40, i), {i % 40}));
    rows.push_back(r);
  }
  auto write = [&](const std::string& path, const char* spec) {
    WriterOptions o;
    o.compression = *ParseCompression(spec);
    o.header_size = 256 * 1024;
    o.page_size = 256 * 1024;
    auto w = ShardWriter::Create(path, schema, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->WriteRows(rows).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  };
  // Same file names in two folders: the header holds the shard's own name.
  std::filesystem::create_directory(tmp.Join("p"));
  std::filesystem::create_directory(tmp.Join("b"));
  const std::string plain = tmp.Join("p/data"), back = tmp.Join("b/data");
  write(plain, "none");
  write(tmp.Join("zstd"), "zstd:3+dict");
  std::string out;
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + tmp.Join("zstd")), &out), 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["version"], "3.0+mr-zstd");
  EXPECT_EQ(j["compression"]["codec"], "zstd:3+dict");
  EXPECT_GT(j["compression"]["ratio"].get<double>(), 2.0);
  ASSERT_EQ(RunCommand(CliCommand("inspect " + tmp.Join("zstd")), &out), 0);
  EXPECT_NE(out.find("compression:  zstd:3+dict, dictionary"), std::string::npos) << out;

  // Back to plain MindSpore output, byte for byte as written uncompressed.
  ASSERT_EQ(RunCommand(CliCommand("copy --compress none " + tmp.Join("zstd") + " " + back)), 0);
  EXPECT_TRUE(testing::ReadFile(back) == testing::ReadFile(plain)) << "copy --compress none differs";
  std::string a, b;
  const char* q = "\"SELECT * FROM INDEXES ORDER BY ROW_ID;\"";
  ASSERT_EQ(RunCommand("sqlite3 " + back + ".db " + q, &a), 0);
  ASSERT_EQ(RunCommand("sqlite3 " + plain + ".db " + q, &b), 0);
  EXPECT_TRUE(a == b);

  // Plain -> lz4 (3 shards) -> zstd:5 keeps every row; a copy without
  // --compress keeps the source's codec.
  ASSERT_EQ(RunCommand(CliCommand("copy --compress lz4 --shards 3 " + plain + " " + tmp.Join("lz"))), 0);
  ASSERT_EQ(RunCommand(CliCommand("copy --shards 3 " + plain + " " + tmp.Join("p3"))), 0);
  ASSERT_EQ(RunCommand(CliCommand("copy " + tmp.Join("lz0") + " " + tmp.Join("lzcopy"))), 0);
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + tmp.Join("lzcopy0")), &out), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["version"], "3.0+mr-lz4");
  ASSERT_EQ(RunCommand(CliCommand("copy --compress zstd:5 " + tmp.Join("lz0") + " " + tmp.Join("z5"))), 0);
  // (copying a sharded dataset deals its rows out again: compare as sets)
  ASSERT_EQ(RunCommand(CliCommand("cat " + tmp.Join("z50")) + " | sort", &a), 0);
  ASSERT_EQ(RunCommand(CliCommand("cat " + tmp.Join("p30")) + " | sort", &b), 0);
  EXPECT_TRUE(a == b) << "rows differ after lz4 -> zstd:5";
  EXPECT_NE(RunCommand(CliCommand("copy --compress brotli " + plain + " " + tmp.Join("x")) + " 2>/dev/null"), 0);

  // +raw compresses the raw parts too; back to plain, byte for byte.
  ASSERT_EQ(RunCommand(CliCommand("copy --compress zstd:3+dict+raw " + plain + " " + tmp.Join("zr"))), 0);
  ASSERT_EQ(RunCommand(CliCommand("inspect --json " + tmp.Join("zr")), &out), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["compression"]["codec"], "zstd:3+dict+raw");
  ASSERT_EQ(RunCommand(CliCommand("inspect " + tmp.Join("zr")), &out), 0);
  EXPECT_NE(out.find("compression:  zstd:3+dict+raw, dictionary"), std::string::npos) << out;
  EXPECT_NE(out.find("; row bytes "), std::string::npos) << out;
  EXPECT_EQ(RunCommand(CliCommand("verify --deep " + tmp.Join("zr"))), 0);
  std::filesystem::remove(back);
  std::filesystem::remove(back + ".db");
  ASSERT_EQ(RunCommand(CliCommand("copy --compress none " + tmp.Join("zr") + " " + back)), 0);
  EXPECT_TRUE(testing::ReadFile(back) == testing::ReadFile(plain)) << "copy --compress none from +raw differs";

  // A 2.0 source is re-encoded as 3.0 to be compressed; `verify --deep` decodes it.
  const std::string dir = CompatDir();
  if (dir.empty()) return;
  const std::string v2 = dir + "/mindrecord/twobytes/twobytes.mindrecord";
  ASSERT_EQ(RunCommand(CliCommand("copy --compress zstd:3+dict " + v2 + " " + tmp.Join("v2z"))), 0);
  ASSERT_EQ(RunCommand(CliCommand("cat " + tmp.Join("v2z")), &a), 0);
  ASSERT_EQ(RunCommand(CliCommand("cat " + v2), &b), 0);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(RunCommand(CliCommand("verify --deep " + tmp.Join("v2z"))), 0);
}

TEST(CliTest, ExitCodesAndErrorsNameTheFile) {
  TempDir tmp;
  std::string out;
  EXPECT_EQ(RunCommand(CliCommand("inspect"), &out, true), 1);
  EXPECT_EQ(RunCommand(CliCommand("frobnicate x"), &out, true), 1);
  EXPECT_EQ(RunCommand(CliCommand("inspect " + tmp.Join("nope")), &out, true), 2);
  EXPECT_NE(out.find(tmp.Join("nope")), std::string::npos) << out;
  testing::WriteFile(tmp.Join("garbage"), std::string(100, 'g'));
  EXPECT_EQ(RunCommand(CliCommand("cat " + tmp.Join("garbage")), &out, true), 2);
  EXPECT_NE(out.find("garbage"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(CliCommand("cat " + tmp.Join("garbage") + " --format xml"), &out, true), 1);
}

}  // namespace
}  // namespace mindrecord

namespace mindrecord {
namespace {

TEST(CliAppendTest, AppendsDatasetsAndRefusesOtherSchemas) {
  const std::string compat = CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  TempDir dir;
  std::string out;
  // A 4-shard v2.0 MindSpore dataset copied as 2 shards, LZ4-compressed (so
  // 3.0), then the v2.0 original appended to it (decoded and re-encoded) and
  // the copy to itself (rows moved encoded).
  const std::string src = compat + "/mindrecord/imagenet/imagenet.mindrecord0";
  const std::string dst = dir.Join("im");
  ASSERT_EQ(RunCommand(CliCommand("copy " + src + " " + dst + " --shards 2 --compress lz4"), &out, true), 0) << out;
  ASSERT_EQ(RunCommand(CliCommand("append " + dst + "0 " + src + " " + dst + "1"), &out, true), 0) << out;
  EXPECT_NE(out.find("appended 40 rows"), std::string::npos) << out;
  EXPECT_NE(out.find("(60 rows now)"), std::string::npos) << out;
  ASSERT_EQ(RunCommand(CliCommand("verify --deep " + dst + "0"), &out, true), 0) << out;
  auto r = *ShardReader::Open(dst + "1");
  EXPECT_EQ(r->version(), kVersion3Lz4);
  auto s = *ShardReader::Open(src);
  ASSERT_EQ(r->num_rows(), 60u);
  std::multiset<std::string> want, got;
  for (uint64_t i = 0; i < 20; ++i) {
    auto row = *s->ReadRow(i);
    for (int k = 0; k < 3; ++k) want.insert(row.Get("file_name").bytes() + std::to_string(row.Get("label").as_int()));
  }
  for (uint64_t i = 0; i < 60; ++i) {
    auto row = *r->ReadRow(i);
    got.insert(row.Get("file_name").bytes() + std::to_string(row.Get("label").as_int()));
  }
  EXPECT_EQ(got, want);
  // Wrong schema: usage error naming the source; the dataset is unchanged.
  const std::string other = compat + "/mindrecord/twobytes/twobytes.mindrecord";
  EXPECT_EQ(RunCommand(CliCommand("append " + dst + "0 " + other), &out, true), 1);
  EXPECT_NE(out.find(other + ": schema"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(CliCommand("append " + dir.Join("missing") + " " + src), &out, true), 2);
  EXPECT_NE(out.find("missing"), std::string::npos) << out;
  EXPECT_EQ((*ShardReader::Open(dst + "0"))->num_rows(), 60u);
}

}  // namespace
}  // namespace mindrecord
