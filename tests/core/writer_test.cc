// ShardWriter behaviour: naming, refusal of existing output, overwrite,
// errors for oversized rows and headers, and atomic commit under faults.
#include <gtest/gtest.h>

#include <filesystem>

#include "mindrecord/encryption.h"
#include "mindrecord/file.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

Schema WriterSchema() { return *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"b":{"type":"bytes"}})"); }

std::vector<Row> WriterRows(int n, size_t bytes = 100) {
  std::vector<Row> out;
  for (int i = 0; i < n; ++i) out.push_back(Row{{"id", Value::Int(i)}, {"b", Value::Bytes(std::string(bytes, 'x'))}});
  return out;
}

size_t CountFiles(const std::string& dir) {
  size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

WriterOptions Small() {
  WriterOptions o;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  return o;
}

// Gathered writes (pwritev) put every piece in place, also past IOV_MAX
// pieces and with empty ones; the default (joining) path writes the same.
TEST(WriterTest, GatheredWritesPutEveryPieceInPlace) {
  TempDir tmp;
  std::vector<std::string> owned;
  std::string want(100, 'h');
  for (int i = 0; i < 3000; ++i) {
    owned.push_back(std::string(static_cast<size_t>(i % 7 == 0 ? 0 : 1 + (i * 37) % 500), static_cast<char>('a' + i % 26)));
    want += owned.back();
  }
  std::vector<std::string_view> pieces(owned.begin(), owned.end());
  FaultInjectingFileSystem joining(FileSystem::Default());
  for (FileSystem* f : {FileSystem::Default(), static_cast<FileSystem*>(&joining)}) {
    const std::string path = tmp.Join(f == FileSystem::Default() ? "gathered" : "joined");
    auto file = f->OpenWrite(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE((*file)->WriteAt(0, std::string(100, 'h')).ok());
    ASSERT_TRUE((*file)->WriteAtV(100, pieces).ok());
    ASSERT_TRUE((*file)->Close().ok());
    EXPECT_TRUE(testing::ReadFile(path) == want) << path;
  }
}

TEST(WriterTest, ShardNamesArePaddedToTheWidthOfTheLastIndex) {
  EXPECT_EQ(ShardFileNames("d/x.mr", 1), (std::vector<std::string>{"d/x.mr"}));
  auto names = ShardFileNames("x", 11);
  EXPECT_EQ(names.front(), "x00");
  EXPECT_EQ(names.back(), "x10");
  EXPECT_EQ(ShardFileNames("x", 1000)[7], "x007");
}

TEST(WriterTest, RefusesExistingOutputUnlessOverwrite) {
  TempDir dir;
  auto o = Small();
  {
    auto w = *ShardWriter::Create(dir.Join("d"), WriterSchema(), o);
    ASSERT_TRUE(w->WriteRows(WriterRows(3)).ok());
    ASSERT_TRUE(w->Commit().ok());
  }
  auto again = ShardWriter::Create(dir.Join("d"), WriterSchema(), o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("/d: already exists"), std::string::npos) << again.status().message();
  o.overwrite = true;
  auto w = *ShardWriter::Create(dir.Join("d"), WriterSchema(), o);
  ASSERT_TRUE(w->WriteRows(WriterRows(5)).ok());
  // Until Commit the old dataset is what readers see.
  EXPECT_EQ((*ShardReader::Open(dir.Join("d")))->num_rows(), 3u);
  ASSERT_TRUE(w->Commit().ok());
  EXPECT_EQ((*ShardReader::Open(dir.Join("d")))->num_rows(), 5u);
  EXPECT_EQ(CountFiles(dir.path()), 2u);  // d and d.db, no temporaries left
}

TEST(WriterTest, AbandonAndDestructionLeaveNothing) {
  TempDir dir;
  {
    auto w = *ShardWriter::Create(dir.Join("a"), WriterSchema(), Small());
    ASSERT_TRUE(w->WriteRows(WriterRows(10)).ok());
    EXPECT_GT(CountFiles(dir.path()), 0u);  // temporaries while writing
  }
  EXPECT_EQ(CountFiles(dir.path()), 0u);
  auto o = Small();
  o.shard_count = 4;
  auto w = *ShardWriter::Create(dir.Join("b"), WriterSchema(), o);
  ASSERT_TRUE(w->WriteRows(WriterRows(10)).ok());
  w->Abandon();
  EXPECT_EQ(CountFiles(dir.path()), 0u);
  EXPECT_FALSE(w->Commit().ok());
}

CryptoConfig Protection() {
  CryptoConfig c;
  c.key = "0123456789012345";
  c.hash_mode = "sha256";
  return c;
}

// With a key and a hash mode, Commit() hashes and encrypts every data and
// index file before it renames them: what lies under the dataset's names is
// protected, no temporary is left, and the rows read back with the key.
TEST(WriterTest, ProtectedFilesTakeTheirNamesEncrypted) {
  TempDir dir;
  WriterOptions o = Small();
  o.shard_count = 2;
  o.protection = Protection();
  auto w = *ShardWriter::Create(dir.Join("p"), WriterSchema(), o);
  ASSERT_TRUE(w->WriteRows(WriterRows(50)).ok());
  ASSERT_TRUE(w->Commit().ok());
  size_t files = 0;
  for (auto& e : fs::directory_iterator(dir.path())) {
    ++files;
    EXPECT_NE(e.path().filename().string()[0], '.') << e.path();  // no temporary left
    auto f = *FileSystem::Default()->OpenRead(e.path().string());
    EXPECT_TRUE(*IsEncryptedFile(*f)) << e.path();
  }
  EXPECT_EQ(files, 4u);
  EXPECT_FALSE(ShardReader::Open(dir.Join("p0")).ok());  // no key
  SetCryptoConfig(Protection());
  auto r = ShardReader::Open(dir.Join("p0"));
  SetCryptoConfig(CryptoConfig());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_rows(), 50u);
  // Appending in place would break the cipher: refused.
  auto a = ShardWriter::OpenForAppend(dir.Join("p0"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(a.status().message().find("encrypted"), std::string::npos) << a.status().ToString();
}

// A commit that fails while it encrypts leaves no dataset and no plaintext.
TEST(WriterTest, AFailedEncryptionLeavesNoDataset) {
  TempDir dir;
  FaultInjectingFileSystem faulty(FileSystem::Default());
  WriterOptions o = Small();
  o.shard_count = 2;
  o.protection = Protection();
  o.file_system = &faulty;
  auto w = *ShardWriter::Create(dir.Join("f"), WriterSchema(), o);
  ASSERT_TRUE(w->WriteRows(WriterRows(500, 300)).ok());
  faulty.FailWritesAfterBytes(200000);  // past the shards' last pages and headers
  Status st = w->Commit();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("encrypting"), std::string::npos) << st.ToString();
  w.reset();
  EXPECT_EQ(CountFiles(dir.path()), 0u);
}

// Protection is refused where it cannot apply, and checked before any row.
TEST(WriterTest, ProtectionIsCheckedUpFront) {
  TempDir dir;
  WriterOptions o = Small();
  o.protection = Protection();
  o.protection.enc_mode = "SM4-CBC";
  o.protection.key = "0123456789abcdef01234567";
  auto w = ShardWriter::Create(dir.Join("x"), WriterSchema(), o);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("SM4-CBC takes a key of 16 bytes"), std::string::npos) << w.status().ToString();
  o.protection = Protection();
  o.protection.hash_mode = "md5";
  EXPECT_EQ(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).status().code(), StatusCode::kInvalidArgument);
  o.protection = Protection();
  o.shard_count = 2;
  o.only_shard = 1;
  EXPECT_EQ(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).status().code(), StatusCode::kInvalidArgument);
  o.only_shard.reset();
  o.protection = CryptoConfig();
  auto plain = *ShardWriter::Create(dir.Join("y"), WriterSchema(), o);
  CryptoConfig bad = Protection();
  bad.enc_mode = "DES";
  EXPECT_EQ(plain->SetProtection(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CountFiles(dir.path()) % 2, 0u);
}

// Index rows of closed row groups are inserted on the writer's index thread:
// abandoning with inserts still queued leaves nothing, and a commit after
// many closed groups (and several shards sharing that thread) indexes every
// row where it is.
TEST(WriterTest, IndexInsertsOffTheWritersThreadAreCompleteOrGone) {
  TempDir dir;
  auto o = Small();
  o.shard_count = 3;
  {
    auto w = *ShardWriter::Create(dir.Join("a"), WriterSchema(), o);
    for (int b = 0; b < 20; ++b) ASSERT_TRUE(w->WriteRows(WriterRows(500, 300)).ok());
    w->Abandon();
  }
  EXPECT_EQ(CountFiles(dir.path()), 0u);
  auto w = *ShardWriter::Create(dir.Join("c"), WriterSchema(), o);
  for (int b = 0; b < 20; ++b) ASSERT_TRUE(w->WriteRows(WriterRows(500, 300)).ok());
  ASSERT_TRUE(w->Commit().ok());
  auto r = ShardReader::Open(dir.Join("c0"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->num_rows(), 10000u);
  uint64_t pages = 0;
  for (uint32_t s = 0; s < (*r)->num_shards(); ++s) pages += (*r)->header(s).pages.size();
  EXPECT_GT(pages, 100u);  // many row groups closed while writing
  int64_t id_sum = 0;
  for (uint64_t id = 0; id < 10000; ++id) {
    auto row = (*r)->ReadRow(id);
    ASSERT_TRUE(row.ok()) << id << ": " << row.status().ToString();
    EXPECT_EQ(row->Get("b").bytes().size(), 300u);
    id_sum += row->Get("id").as_int();
  }
  EXPECT_EQ(id_sum, 20 * (499 * 500 / 2));  // each batch's ids 0..499, every row once
}

TEST(WriterTest, RowTooLargeForAPageAndHeaderTooLargeAreClearErrors) {
  TempDir dir;
  auto w = *ShardWriter::Create(dir.Join("big"), WriterSchema(), Small());
  Status st = w->WriteRows(WriterRows(1, kMinPageSize));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("page size too small"), std::string::npos) << st.message();
  EXPECT_FALSE(w->Commit().ok());  // the error sticks
  w.reset();
  EXPECT_EQ(CountFiles(dir.path()), 0u);

  // Thousands of tiny pages overflow a 16 KiB header.
  auto w2 = *ShardWriter::Create(dir.Join("hdr"), WriterSchema(), Small());
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(w2->WriteRows(WriterRows(1, kMinPageSize - 40)).ok());
  st = w2->Commit();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("raise header_size"), std::string::npos) << st.message();
  EXPECT_EQ(CountFiles(dir.path()), 0u);
}

TEST(WriterTest, BadRowsNameTheRowAndFieldAndWriteNothing) {
  TempDir dir;
  auto w = *ShardWriter::Create(dir.Join("r"), WriterSchema(), Small());
  auto rows = WriterRows(3);
  rows[2].Set("id", Value::String("three"));
  Status st = w->WriteRows(rows);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("row 2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("field 'id'"), std::string::npos) << st.message();
  ASSERT_TRUE(w->WriteRows(WriterRows(2)).ok());
  ASSERT_TRUE(w->Commit().ok());
  EXPECT_EQ((*ShardReader::Open(dir.Join("r")))->num_rows(), 2u);
}

// WriteRows(std::vector<Row>&&) takes the blob bytes instead of copying
// them: same files as the copying overload; a batch with a bad row is
// refused before any row is consumed.
TEST(WriterTest, ConsumingWriteRowsWritesTheSameBytes) {
  TempDir dir;
  auto rows = [] {
    std::vector<Row> out = WriterRows(50, 900);
    for (int i = 0; i < 50; ++i) out[i].Set("b", Value::Bytes(std::string(300 + 37 * i, static_cast<char>('a' + i % 26))));
    return out;
  };
  for (bool consume : {false, true}) {
    WriterOptions o = Small();
    fs::create_directories(dir.Join(consume ? "moved" : "copied"));
    auto w = *ShardWriter::Create(dir.Join(consume ? "moved/d" : "copied/d"), WriterSchema(), o);
    std::vector<Row> batch = rows();
    if (consume) {
      std::vector<Row> bad = rows();
      bad.back().Set("b", Value::Int(1));
      ASSERT_FALSE(w->WriteRows(std::move(bad)).ok());
      EXPECT_EQ(bad.front().Get("b").bytes(), rows().front().Get("b").bytes()) << "consumed before validation";
      ASSERT_TRUE(w->WriteRows(std::move(batch)).ok());
      EXPECT_TRUE(batch[1].Get("b").bytes().empty()) << "bytes were copied, not moved";
    } else {
      ASSERT_TRUE(w->WriteRows(batch).ok());
      EXPECT_EQ(batch[1].Get("b").bytes(), rows()[1].Get("b").bytes());
    }
    ASSERT_TRUE(w->Commit().ok());
  }
  EXPECT_TRUE(testing::ReadFile(dir.Join("moved/d")) == testing::ReadFile(dir.Join("copied/d")));
  auto r = *ShardReader::Open(dir.Join("moved/d"));
  ASSERT_EQ(r->num_rows(), 50u);
  EXPECT_EQ(r->ReadRow(7)->Get("b").bytes(), rows()[7].Get("b").bytes());
}

TEST(WriterTest, OptionsAreValidated) {
  TempDir dir;
  WriterOptions o = Small();
  o.shard_count = 0;
  EXPECT_FALSE(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).ok());
  o = Small();
  o.shard_count = 1001;
  EXPECT_FALSE(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).ok());
  o = Small();
  o.page_size = 1000;
  EXPECT_FALSE(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).ok());
  o = Small();
  o.header_size = kMinHeaderSize + 2;
  EXPECT_FALSE(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).ok());
  o = Small();
  o.index_fields = std::vector<std::string>{"b"};
  EXPECT_FALSE(ShardWriter::Create(dir.Join("x"), WriterSchema(), o).ok());
  EXPECT_FALSE(ShardWriter::Create(dir.Join("no/such/dir/x"), WriterSchema(), Small()).ok());
}

TEST(WriterTest, DiskFullAndFsyncFailuresLeaveNoDataset) {
  for (int fault = 0; fault < 3; ++fault) {
    TempDir dir;
    FaultInjectingFileSystem faulty(FileSystem::Default());
    WriterOptions o = Small();
    o.shard_count = 2;
    o.file_system = &faulty;
    auto w = *ShardWriter::Create(dir.Join("f"), WriterSchema(), o);
    if (fault == 0) faulty.FailWritesAfterBytes(50000);
    if (fault == 1) faulty.FailSync(true);
    if (fault == 2) faulty.FailRename(true);
    Status st = w->WriteRows(WriterRows(500, 300));
    if (st.ok()) st = w->Commit();
    ASSERT_FALSE(st.ok()) << "fault " << fault;
    EXPECT_EQ(st.code(), StatusCode::kIOError);
    EXPECT_NE(st.message().find("injected"), std::string::npos) << st.message();
    w.reset();
    EXPECT_FALSE(ShardReader::Open(dir.Join("f0")).ok());
    EXPECT_FALSE(fs::exists(dir.Join("f0")));
    EXPECT_FALSE(fs::exists(dir.Join("f1")));
  }
}

TEST(WriterTest, Version2OutputHasSortedHeaderAndQuotedIndexStrings) {
  TempDir dir;
  auto schema = *Schema::FromUserJsonString(R"({"name":{"type":"string"},"v":{"type":"int32","shape":[-1]}})");
  WriterOptions o = Small();
  o.format_version = kVersion2;
  auto w = *ShardWriter::Create(dir.Join("v2"), schema, o);
  ASSERT_TRUE(w->WriteRows({Row{{"name", Value::String("a")}, {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {1, 2})}}}).ok());
  ASSERT_TRUE(w->Commit().ok());
  auto r = *ShardReader::Open(dir.Join("v2"));
  EXPECT_EQ(r->version(), "2.0");
  auto row = *r->ReadRow(0);
  EXPECT_EQ(row.Get("v").ArrayAs<int32_t>(), (std::vector<int32_t>{1, 2}));
  auto groups = *r->GroupByIndexField("name");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].first.bytes(), "a");
  std::string head = testing::ReadFile(dir.Join("v2")).substr(8, 200);
  EXPECT_EQ(head.find("compression_size"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
