// Hostile dataset folders driven through the `mindrecord` executable: special
// files, absurd headers and bad arguments end in a clear error and the right
// exit code (2: the data, 1: the arguments), never a crash or a hang.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "mindrecord/schema.h"
#include "tests/util/small_dataset.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::Cli;
using testing::CliPath;
using testing::ReadFile;
using testing::RunCommand;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::vector<Row> UntrustedRows(int n, int first = 0) { return testing::IdNameImgRows(n, first); }

std::string WriteDataset(const std::string& path, uint64_t header_size = kMinHeaderSize, int rows = 20,
                         uint32_t shards = 1) {
  auto paths = testing::WriteIdNameImg(path, UntrustedRows(rows),
                                       {.shards = shards, .header_size = header_size, .checksums = false});
  return paths.empty() ? path : paths[0];
}

void AppendRows(const std::string& path, int n) {
  auto w = ShardWriter::OpenForAppend(path);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows(UntrustedRows(n, 1000)).ok());
  ASSERT_TRUE((*w)->Commit().ok());
}

int OutputLines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Replaces the header JSON of a shard (length prefix updated, padding kept).
void RewriteHeaderJson(const std::string& path, const std::function<std::string(std::string)>& edit) {
  std::string bytes = ReadFile(path);
  uint64_t len = 0;
  memcpy(&len, bytes.data(), 8);
  std::string json = edit(bytes.substr(8, len));
  ASSERT_LE(json.size() + 8, bytes.size());
  const uint64_t n = json.size();
  std::string header(8, '\0');
  memcpy(header.data(), &n, 8);
  header += json;
  // Zero the old header's tail, then put the new one in place.
  std::fill(bytes.begin(), bytes.begin() + 8 + std::max<uint64_t>(len, n), '\0');
  bytes.replace(0, header.size(), header);
  WriteFile(path, bytes);
}

TEST(UntrustedCliTest, DeeplyNestedHeaderJsonIsRefusedNotACrash) {
  TempDir dir;
  const std::string d = WriteDataset(dir.Join("d"), 1 * kMiB);
  RewriteHeaderJson(d, [](std::string j) {
    j.pop_back();  // the closing brace
    return j + ",\"zz_unknown\":" + std::string(300000, '[') + std::string(300000, ']') + "}";
  });
  for (const char* verb : {"inspect", "cat", "verify"}) {
    std::string out;
    EXPECT_EQ(Cli(std::string(verb) + " " + d, &out), 2) << verb << ": " << out;
    EXPECT_NE(out.find("nests deeper than 64 levels"), std::string::npos) << out;
  }
}

// inspect reports a compressed dataset's byte counts from its header:
// numbers of another kind are corruption naming the field. A
// float beyond uint64 was cast (undefined behaviour) and a string threw out
// of the command as a bare JSON type error.
TEST(UntrustedCliTest, InspectRefusesCompressionNumbersOfOtherKinds) {
  for (const char* edit : {"\"raw_bytes\":1e300", "\"raw_bytes\":\"many\"", "\"stored_bytes\":-3"}) {
    SCOPED_TRACE(edit);
    TempDir dir;
    const std::string d = testing::WriteIdNameImg(dir.Join("d"), UntrustedRows(20),
                                                  {.header_size = 1 * kMiB, .checksums = false, .compression = "zstd:3"})[0];
    std::string out;
    ASSERT_EQ(Cli("inspect " + d, &out), 0) << out;
    const std::string key = std::string(edit).substr(1, std::string(edit).find('"', 1) - 1);
    RewriteHeaderJson(d, [&](std::string j) {
      const size_t at = j.find("\"mr_compression\":{");
      EXPECT_NE(at, std::string::npos) << j;
      const size_t old = j.find("\"" + key + "\":", at);  // its value, if the writer wrote one
      if (old != std::string::npos && old < j.find('}', at)) {
        const size_t end = j.find_first_of(",}", old);
        if (j[end] == ',') j.erase(old, end + 1 - old);
        else j.erase(old - 1, end - old + 1);  // the last member: its leading comma goes
      }
      return j.insert(at + 18, std::string(edit) + ",");
    });
    for (const char* flags : {"", "--json "}) {
      EXPECT_EQ(Cli(std::string("inspect ") + flags + d, &out), 2) << out;
      EXPECT_NE(out.find("\"mr_compression\"." + key + " is "), std::string::npos) << out;
      EXPECT_NE(out.find(d), std::string::npos) << out;
    }
  }
}

// A compressed dataset's codec and dictionary id of another type: the header
// is corruption naming the file. A codec that is not a string threw a bare
// JSON type error out of every opener (cat, inspect, Python's readers).
TEST(UntrustedCliTest, CompressionSettingsOfOtherTypesAreCorruption) {
  struct Case {
    const char* key;
    const char* value;
    const char* words;
  } cases[] = {{"codec", "5", "\"mr_compression\" names codec 5"},
               {"codec", "null", "\"mr_compression\" names codec null"},
               {"dict_id", "4294967296", "dict_id missing or not a dictionary id"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    TempDir dir;
    const std::string d = testing::WriteIdNameImg(dir.Join("d"), UntrustedRows(20),
                                                  {.header_size = 1 * kMiB, .checksums = false, .compression = "zstd:3"})[0];
    RewriteHeaderJson(d, [&](std::string j) {
      const size_t at = j.find("\"mr_compression\":{");
      EXPECT_NE(at, std::string::npos) << j;
      const size_t old = j.find("\"" + std::string(c.key) + "\":", at);
      if (old != std::string::npos && old < j.find('}', at)) {
        const size_t end = j.find_first_of(",}", old);
        if (j[end] == ',') j.erase(old, end + 1 - old);
        else j.erase(old - 1, end - old + 1);
      }
      return j.insert(at + 18, "\"" + std::string(c.key) + "\":" + c.value + ",");
    });
    for (const char* verb : {"cat", "inspect"}) {
      std::string out;
      EXPECT_EQ(Cli(std::string(verb) + " " + d, &out), 2) << out;
      EXPECT_NE(out.find(d + ": compressed dataset: "), std::string::npos) << out;
      EXPECT_NE(out.find(c.words), std::string::npos) << out;
    }
  }
}

TEST(UntrustedCliTest, SchemaDimensionsBeyondInt64AreCorruption) {
  // 2^64-1 read as int64 is -1, a variable dimension: the file would open with another schema.
  TempDir dir;
  const std::string d = WriteDataset(dir.Join("d"), 1 * kMiB);
  RewriteHeaderJson(d, [](std::string j) {
    const std::string id = "\"id\":{\"type\":\"int64\"}";
    const size_t at = j.find(id);
    EXPECT_NE(at, std::string::npos) << j;
    return j.replace(at, id.size(), "\"id\":{\"shape\":[18446744073709551615],\"type\":\"int64\"}");
  });
  for (const char* verb : {"cat", "inspect"}) {
    std::string out;
    EXPECT_EQ(Cli(std::string(verb) + " " + d, &out), 2) << out;
    EXPECT_NE(out.find(d), std::string::npos) << out;
    EXPECT_NE(out.find("shape dims must be integers > 0 or -1, not 18446744073709551615"), std::string::npos) << out;
  }
}

TEST(UntrustedCliTest, ClassNamesWhoseLabelsDoNotFitAreNotShown) {
  // class_to_label 2^64-1 read as int64 is -1: rows labelled -1 were shown under its name.
  TempDir dir;
  auto schema = Schema::FromUserJsonString(R"({"label":{"type":"int64"}})",
                                           R"({"class_to_label":{"huge":18446744073709551615,"neg":-2}})");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto w = ShardWriter::Create(dir.Join("d.mindrecord"), *schema, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows({Row{{"label", Value::Int(-1)}}, Row{{"label", Value::Int(-2)}}}).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  std::string out;
  ASSERT_EQ(Cli("inspect " + dir.Join("d.mindrecord") + " --histogram label", &out), 0) << out;
  EXPECT_NE(out.find("-2 (neg)"), std::string::npos) << out;
  EXPECT_EQ(out.find("(huge)"), std::string::npos) << out;
}

TEST(UntrustedCliTest, PageShardIdsBeyond32BitsAreCorruption) {
  TempDir dir;
  const std::string d = WriteDataset(dir.Join("d"), 1 * kMiB);
  RewriteHeaderJson(d, [](std::string j) {
    const size_t at = j.find("\"shard_id\":0");  // page 0's: "page" sorts before the top-level key
    EXPECT_LT(at, j.find("\"shard_addresses\"")) << j;
    return j.replace(at, 12, "\"shard_id\":4294967296");
  });
  std::string out;
  EXPECT_EQ(Cli("cat " + d, &out), 2) << out;
  EXPECT_NE(out.find(d + ": invalid header: page entry 0 has shard_id 4294967296, beyond 32 bits"), std::string::npos)
      << out;
}

TEST(UntrustedCliTest, PageChecksumsOfOtherTypesAreCorruption) {
  // A sealed header whose page checksum is a number: readers took it for "no checksum" and read the page unverified.
  for (const char* value : {"5", "\"abc\"", "null"}) {
    SCOPED_TRACE(value);
    TempDir dir;
    const std::string d =
        testing::WriteIdNameImg(dir.Join("d"), UntrustedRows(20), {.header_size = 1 * kMiB, .checksums = true})[0];
    RewriteHeaderJson(d, [&](std::string j) {
      const std::string key = "\"" + std::string(kPageChecksumKey) + "\":";
      const size_t at = j.find(key);
      EXPECT_NE(at, std::string::npos) << j;
      j.replace(at + key.size(), 18, value);  // the quoted 16 hex digits
      SealHeaderChecksum(&j);
      return j;
    });
    for (const char* verb : {"cat", "verify"}) {
      std::string out;
      EXPECT_EQ(Cli(std::string(verb) + " " + d, &out), 2) << out;
      EXPECT_NE(out.find(d + ": invalid header: page entry 0 has checksum " + value), std::string::npos) << out;
    }
  }
}

TEST(UntrustedCliTest, HeaderWithTooManyJsonElementsIsRefused) {
  TempDir dir;
  const std::string d = WriteDataset(dir.Join("d"), 16 * kMiB);
  RewriteHeaderJson(d, [](std::string j) {
    j.pop_back();
    std::string many = "[";
    for (int i = 0; i < 2100000; ++i) many += "[],";
    many += "[]]";
    return j + ",\"zz_unknown\":" + many + "}";
  });
  std::string out;
  EXPECT_EQ(Cli("inspect " + d, &out), 2) << out;
  EXPECT_NE(out.find("JSON holds more than 2000000 elements"), std::string::npos) << out;
}

// A FIFO, a directory or a device where a shard or its index should be: a
// data error at once, never a blocked open or read.
TEST(UntrustedCliTest, SpecialFilesAsShardOrIndexAreDataErrors) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.Join("fifo.mindrecord").c_str(), 0644), 0);
  fs::create_directory(dir.Join("folder.mindrecord"));
  for (const std::string& p : {dir.Join("fifo.mindrecord"), dir.Join("folder.mindrecord"), std::string("/dev/zero")}) {
    for (const char* verb : {"inspect", "cat", "verify"}) {
      std::string out;
      EXPECT_EQ(Cli(std::string(verb) + " " + p, &out), 2) << verb << " " << p << ": " << out;
      EXPECT_NE(out.find("not a regular file"), std::string::npos) << out;
    }
  }
  // The index: a FIFO in place of d.db.
  const std::string d = WriteDataset(dir.Join("d"));
  fs::remove(d + ".db");
  ASSERT_EQ(mkfifo((d + ".db").c_str(), 0644), 0);
  // Rows are read without the index (cat never opens it); verify reads it.
  {
    std::string out;
    EXPECT_EQ(Cli("cat " + d, &out), 0) << out;
    EXPECT_EQ(Cli("verify --deep " + d, &out), 2) << out;
    EXPECT_NE(out.find(d + ".db: is a FIFO"), std::string::npos) << out;
  }
  // A FIFO where an append journal or a commit record would be: read by
  // every opener before the shards, so refused before its open too.
  const std::string e = WriteDataset(dir.Join("e"));
  for (const std::string& record : {e + ".mr-journal", e + ".mr-commit"}) {
    ASSERT_EQ(mkfifo(record.c_str(), 0644), 0);
    for (const char* verb : {"inspect", "cat", "recover"}) {
      std::string out;
      EXPECT_EQ(Cli(std::string(verb) + " " + e, &out), 2) << verb << ": " << out;
      EXPECT_NE(out.find(record + ": is a FIFO, not a regular file"), std::string::npos) << out;
    }
    fs::remove(record);
  }
}

// `cp train.mindrecord backup.mindrecord` (+ .db): every verb given the
// backup reads the backup, and appending to it leaves train alone (both read
// and modified train.mindrecord, through shard_addresses).
TEST(UntrustedCliTest, ACopiedDatasetIsReadAndAppendedAsItself) {
  TempDir dir;
  const std::string train = WriteDataset(dir.Join("train.mindrecord"));
  const std::string backup = dir.Join("backup.mindrecord");
  fs::copy_file(train, backup);
  fs::copy_file(train + ".db", backup + ".db");
  AppendRows(train, 5);  // train: 25 rows; backup: 20
  std::string out;
  ASSERT_EQ(Cli("inspect --json " + backup, &out), 0) << out;
  EXPECT_NE(out.find("\"num_rows\": 20,"), std::string::npos) << out;
  ASSERT_EQ(Cli("cat " + backup, &out), 0) << out;
  EXPECT_EQ(OutputLines(out), 20);
  EXPECT_EQ(Cli("verify --deep " + backup, &out), 0) << out;
  const std::string train_bytes = ReadFile(train), train_db = ReadFile(train + ".db");
  ASSERT_EQ(Cli("append " + backup + " " + train, &out), 0) << out;  // 20 + 25
  EXPECT_EQ(ReadFile(train), train_bytes);
  EXPECT_EQ(ReadFile(train + ".db"), train_db);
  ASSERT_EQ(Cli("cat " + backup, &out), 0) << out;
  EXPECT_EQ(OutputLines(out), 45);
  ASSERT_EQ(Cli("cat " + train, &out), 0) << out;
  EXPECT_EQ(OutputLines(out), 25);
}

// A renamed multi-shard dataset (d0, d1 -> e0, e1) is read whole through
// any of its shards, never mixed with the original's files.
TEST(UntrustedCliTest, ARenamedMultiShardDatasetReadsItsOwnShards) {
  TempDir dir;
  const std::string d0 = WriteDataset(dir.Join("d"), kMinHeaderSize, 20, 2);
  for (const char* s : {"0", "1"}) {
    fs::copy_file(dir.Join(std::string("d") + s), dir.Join(std::string("e") + s));
    fs::copy_file(dir.Join(std::string("d") + s + ".db"), dir.Join(std::string("e") + s + ".db"));
  }
  AppendRows(d0, 6);  // the original: 26 rows
  for (const char* s : {"e0", "e1"}) {
    std::string out;
    ASSERT_EQ(Cli(std::string("cat ") + dir.Join(s), &out), 0) << out;
    EXPECT_EQ(OutputLines(out), 20) << s;
    EXPECT_EQ(Cli(std::string("verify --deep ") + dir.Join(s), &out), 0) << out;
  }
  // Renamed without the shard suffix: the siblings cannot be derived.
  fs::rename(dir.Join("e1"), dir.Join("other"));
  std::string out;
  EXPECT_EQ(Cli("cat " + dir.Join("other"), &out), 2) << out;
  EXPECT_NE(out.find("sibling shards cannot be found"), std::string::npos) << out;
}

// Appending rows that must be re-encoded (a 3.0 zstd source into a 2.0
// dataset) moved 4,096 decoded rows at a time whatever they held: 256 rows
// that store a few bytes each and inflate to 1 MiB took 315 MB of memory
// (1 TB for rows of 256 MiB). Batches are bounded by decoded bytes too.
TEST(UntrustedCliTest, ReencodedRowsMoveInBatchesBoundedInBytes) {
  TempDir dir;
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"},"data":{"type":"bytes"}})");
  ASSERT_TRUE(schema.ok());
  auto write = [&](const std::string& path, bool old_format, int rows, int row_bytes) {
    WriterOptions o;
    if (old_format) o.format_version = kVersion2;
    if (!old_format) o.compression.codec = Codec::kZstd;
    auto w = ShardWriter::Create(path, *schema, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (int i = 0; i < rows; ++i) {
      ASSERT_TRUE((*w)->WriteRows({Row{{"id", Value::Int(i)}, {"data", Value::Bytes(std::string(row_bytes, 'a' + i % 26))}}})
                      .ok());
    }
    ASSERT_TRUE((*w)->Commit().ok());
  };
  write(dir.Join("d.mindrecord"), true, 1, 10);
  write(dir.Join("src.mindrecord"), false, 256, 1 << 20);
  std::string out;
  ASSERT_EQ(RunCommand("/usr/bin/time -f 'maxrss=%M' timeout 300 " + CliPath() + " append " + dir.Join("d.mindrecord") +
                           " " + dir.Join("src.mindrecord"),
                       &out, true),
            0)
      << out;
  const size_t at = out.find("maxrss=");
  ASSERT_NE(at, std::string::npos) << out;
  const long kb = std::stol(out.substr(at + 7));
#if !defined(__SANITIZE_ADDRESS__)  // ASan's shadow and quarantine triple the RSS
  EXPECT_LT(kb, 200 * 1024) << out;  // 64 MiB of rows per batch, plus their encoding
#endif
  ASSERT_EQ(Cli("cat --rows 256 --columns id " + dir.Join("d.mindrecord"), &out), 0) << out;
  EXPECT_EQ(out, "{\"id\":255}\n");
}

// Bad arguments: exit 1 with words, never a raw library message or junk files.
TEST(UntrustedCliTest, BadArgumentsAreNamedAndExitOne) {
  TempDir dir;
  const std::string d = WriteDataset(dir.Join("d"));
  std::string out;
  EXPECT_EQ(Cli("cat " + d + " --rows 99999999999999999999", &out), 1) << out;
  EXPECT_NE(out.find("row numbers go up to 18446744073709551615"), std::string::npos) << out;
  EXPECT_EQ(out.find("stoull"), std::string::npos) << out;
  EXPECT_EQ(Cli("cat " + d + " --rows 1:99999999999999999999", &out), 1) << out;
  const auto before = std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator());
  EXPECT_EQ(RunCommand("cd " + dir.path() + " && timeout 30 " + CliPath() + " copy d \"\"", &out, true), 1) << out;
  EXPECT_NE(out.find("output path '' names no file"), std::string::npos) << out;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), before);
}

}  // namespace
}  // namespace mindrecord
