// Reading datasets over HTTP and S3 from real local servers (nginx, s3rver,
// the fault-injecting server): the same rows as a local read, ranged
// requests sized by the format, the shared bounded page cache, and errors
// and retries for a server that misbehaves. Servers that do not start fail
// the test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>

#include "readers/page_cache.h"
#include "readers/remote_file.h"
#include "readers/shard_reader.h"
#include "tests/util/small_dataset.h"
#include "tests/util/test_servers.h"

namespace mindrecord {
namespace {

using testing::ServerProcess;
using testing::TempDir;

// Every row of the reader, read one by one.
std::vector<Row> AllRows(const ShardReader& r) {
  std::vector<Row> rows;
  for (uint64_t i = 0; i < r.num_rows(); ++i) {
    auto row = r.ReadRow(i);
    EXPECT_TRUE(row.ok()) << i << ": " << row.status().ToString();
    rows.push_back(row.ok() ? *row : Row());
  }
  return rows;
}

class RemoteReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = data_.path();
    shards_ = testing::WriteIdNameImg(root_ + "/ds", testing::IdNameImgRows(1500), {.shards = 2});
    ASSERT_EQ(shards_.size(), 2u);
    options_.remote.cache_dir = cache_.path();
    options_.remote.backoff_ms = 10;
    options_.remote.timeout_s = 5;
  }
  // A fresh process's view: nothing in memory (the disk cache stays).
  void Cold() { DropRemoteMemory(); }

  TempDir data_, cache_;
  std::string root_;
  std::vector<std::string> shards_;
  ReaderOptions options_;
};

TEST_F(RemoteReadTest, HttpReadsTheRowsALocalReadReturnsWithClosedRangesInsideTheObject) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  auto local = ShardReader::Open(shards_[1]);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  // Opened through its second shard: the first is found from shard_addresses.
  auto remote = ShardReader::Open(nginx.base_url() + "/ds1", options_);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  EXPECT_EQ((*remote)->num_shards(), 2u);
  EXPECT_EQ((*remote)->shard_paths()[0], nginx.base_url() + "/ds0");
  EXPECT_EQ(AllRows(**remote), AllRows(**local));

  // Scans and shuffled lists too.
  std::vector<Row> scanned;
  ASSERT_TRUE((*remote)->Scan(0, (*remote)->num_rows(), nullptr, [&](uint64_t, Row&& r) {
    scanned.push_back(std::move(r));
    return Status::OK();
  }).ok());
  EXPECT_EQ(scanned, AllRows(**local));
  std::vector<uint64_t> ids((*remote)->num_rows());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937(7));
  size_t seen = 0;
  ASSERT_TRUE((*remote)->ReadRows(ids, nullptr, [&](size_t i, Result<Row>&& r) {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) EXPECT_EQ(*r, *(*local)->ReadRow(ids[i]));
    ++seen;
    return Status::OK();
  }).ok());
  EXPECT_EQ(seen, ids.size());

  // What was asked: closed ranges inside each object, never the .db.
  const std::regex line(R"re(^(GET|HEAD) (\S+) "([^"]*)" (\d+) (\d+)$)re");
  const std::regex range(R"(^bytes=(\d+)-(\d+)$)");
  size_t gets = 0;
  for (const std::string& l : nginx.LogLines()) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, line)) << l;
    EXPECT_EQ(m[2].str().find(".db"), std::string::npos) << "rows were read with the index: " << l;
    if (m[1] == "HEAD") continue;
    ++gets;
    const std::string rh = m[3].str();
    std::smatch rm;
    ASSERT_TRUE(std::regex_match(rh, rm, range)) << "not a closed range: " << l;
    const uint64_t last = std::stoull(rm[2].str());
    const uint64_t size = std::filesystem::file_size(root_ + m[2].str());
    EXPECT_LT(last, size) << "past the end of the object: " << l;
    EXPECT_EQ(m[4].str(), "206") << l;
  }
  EXPECT_GT(gets, 0u);
}

TEST_F(RemoteReadTest, TheHeaderIsOneRequestAndPagesComeWholeAndVerified) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  ReaderOptions o = options_;
  o.remote.read_ahead_bytes = 0;
  const RemoteCounters before = GetRemoteCounters();
  auto r = ShardReader::Open(nginx.base_url() + "/ds0", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Per shard: one HEAD and one GET of the header's first bytes.
  EXPECT_EQ(GetRemoteCounters().requests - before.requests, 4u);
  const uint64_t at_open = GetRemoteCounters().requests;
  auto row = (*r)->ReadRow(0);
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  // The row's raw and blob pages, each whole (they carry checksums).
  const uint64_t asked = GetRemoteCounters().requests - at_open;
  EXPECT_GE(asked, 1u);
  EXPECT_LE(asked, 2u);
}

TEST_F(RemoteReadTest, TheDiskCacheServesTheNextReaderAndADamagedEntryIsFetchedAgain) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  const std::string url = nginx.base_url() + "/ds0";
  std::vector<Row> first;
  {
    auto r = ShardReader::Open(url, options_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    first = AllRows(**r);
  }
  Cold();
  const RemoteCounters before = GetRemoteCounters();
  {
    auto r = ShardReader::Open(url, options_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(AllRows(**r), first);
  }
  const RemoteCounters warm = GetRemoteCounters();
  // Only the two HEADs (the object's version names the cache entries).
  EXPECT_EQ(warm.requests - before.requests, 2u);
  EXPECT_GT(warm.disk_hits, before.disk_hits);

  // Damage every entry: each is detected, removed and fetched again.
  size_t damaged = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache_.path())) {
    if (e.path().extension() != ".mrc") continue;
    std::string bytes = testing::ReadFile(e.path().string());
    bytes[bytes.size() - 1] ^= 1;
    testing::WriteFile(e.path().string(), bytes);
    ++damaged;
  }
  ASSERT_GT(damaged, 0u);
  Cold();
  {
    auto r = ShardReader::Open(url, options_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(AllRows(**r), first);
  }
  EXPECT_GE(GetRemoteCounters().disk_damaged - warm.disk_damaged, damaged);
  EXPECT_GT(GetRemoteCounters().requests - warm.requests, 2u);
}

TEST_F(RemoteReadTest, TheDiskCacheStaysWithinItsBound) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  ReaderOptions o = options_;
  o.remote.cache_bytes = 100 << 10;  // about three of this dataset's pages
  auto r = ShardReader::Open(nginx.base_url() + "/ds0", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto local = ShardReader::Open(shards_[0]);
  EXPECT_EQ(AllRows(**r), AllRows(**local));
  auto cache = DiskPageCache::Open(cache_.path(), o.remote.cache_bytes);
  ASSERT_TRUE(cache.ok());
  EXPECT_LE((*cache)->UsedBytes(), o.remote.cache_bytes);
  EXPECT_GT((*cache)->UsedBytes(), 0u);
}

TEST_F(RemoteReadTest, FieldQueriesFetchTheIndexAndRowReadsNeverDo) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  auto r = ShardReader::Open(nginx.base_url() + "/ds0", options_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE((*r)->ReadRow(3).ok());
  for (const std::string& l : nginx.LogLines()) EXPECT_EQ(l.find(".db"), std::string::npos) << l;
  auto local = ShardReader::Open(shards_[0]);
  auto groups = (*r)->GroupByIndexField("id");
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  EXPECT_EQ(*groups, *(*local)->GroupByIndexField("id"));
  size_t db = 0;
  for (const std::string& l : nginx.LogLines()) db += l.find(".db") != std::string::npos;
  EXPECT_GT(db, 0u);
}

TEST_F(RemoteReadTest, MissingObjectsAndRefusedOptionsAreClearErrors) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  auto missing = ShardReader::Open(nginx.base_url() + "/nothing", options_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(nginx.base_url() + "/nothing: not found (HTTP 404"), std::string::npos)
      << missing.status().ToString();
  ReaderOptions mmap = options_;
  mmap.io_mode = IoMode::kMmap;
  auto refused = ShardReader::Open(nginx.base_url() + "/ds0", mmap);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("io_mode mmap does not apply to a remote dataset"), std::string::npos);
  auto query = ShardReader::Open(nginx.base_url() + "/ds0?x=1", options_);
  ASSERT_FALSE(query.ok());
  EXPECT_NE(query.status().message().find("query"), std::string::npos);
}

TEST_F(RemoteReadTest, CliVerbsReadUrlsAndProcessesShareTheCache) {
  ServerProcess nginx;
  ServerProcess::StartNginx(root_, &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  const std::string url = nginx.base_url() + "/ds1";
  const std::string cache = " --cache-dir " + cache_.path() + " --cache-size 64M";
  std::string local_out, remote_out, warm_out;
  ASSERT_EQ(testing::Cli("cat " + shards_[0], &local_out, false), 0);
  ASSERT_EQ(testing::Cli("cat " + url + cache, &remote_out, false), 0) << remote_out;
  EXPECT_EQ(remote_out, local_out);
  const size_t cold = nginx.LogLines().size();
  // Another process: every piece from the disk cache the first one filled.
  ASSERT_EQ(testing::Cli("cat " + url + cache, &warm_out, false), 0);
  EXPECT_EQ(warm_out, local_out);
  const std::vector<std::string> lines = nginx.LogLines();
  for (size_t i = cold; i < lines.size(); ++i) EXPECT_EQ(lines[i].rfind("HEAD ", 0), 0u) << lines[i];
  std::string out;
  EXPECT_EQ(testing::Cli("verify " + url + cache, &out), 0) << out;
  EXPECT_NE(out.find("clean"), std::string::npos) << out;
  EXPECT_EQ(testing::Cli("inspect --json " + url + cache, &out, false), 0) << out;
  EXPECT_NE(out.find("\"num_rows\": 1500"), std::string::npos) << out;
  TempDir copy;
  EXPECT_EQ(testing::Cli("copy " + url + " " + copy.Join("c") + cache, &out), 0) << out;
  EXPECT_EQ(testing::Cli("cat " + nginx.base_url() + "/nothing" + cache, &out), 2);
  EXPECT_NE(out.find("/nothing: not found (HTTP 404"), std::string::npos) << out;
  EXPECT_EQ(testing::Cli("cat " + url + " --cache-size 12Q", &out), 1) << out;
}

// ---- A server that misbehaves ---------------------------------------------

class FaultTest : public RemoteReadTest {
 protected:
  void SetUp() override {
    RemoteReadTest::SetUp();
    ServerProcess::StartFaultServer(root_, &server_);
    ASSERT_FALSE(server_.base_url().empty()) << server_.error();
    local_ = std::move(ShardReader::Open(shards_[0])).value();
  }
  // Reads every row of ds0 through MODE/COUNT/; the error, if any.
  Status ReadAllThrough(const std::string& mode, int count, const ReaderOptions& o, std::vector<Row>* rows) {
    const std::string url = server_.base_url() + "/" + mode + "/" + std::to_string(count) + "/ds0";
    ReaderOptions one = o;
    one.shard_paths = {url};  // this shard alone (its sibling is not under the prefix)
    auto r = ShardReader::Open(url, one);
    if (!r.ok()) return r.status();
    for (uint64_t i = 0; i < (*r)->num_rows(); ++i) {
      auto row = (*r)->ReadRow(i);
      if (!row.ok()) return row.status();
      rows->push_back(*row);
    }
    return Status::OK();
  }
  std::vector<Row> Expected() {
    std::vector<Row> rows;
    for (uint64_t i = 0; i < local_->shard_num_rows(0); ++i) rows.push_back(*local_->ReadRow(i));
    return rows;
  }
  ServerProcess server_;
  std::unique_ptr<ShardReader> local_;
};

TEST_F(FaultTest, DroppedResetTruncatedWrongAndFailingResponsesAreRetried) {
  for (const char* mode : {"drop", "reset", "e500", "e503", "truncate", "wrong"}) {
    SCOPED_TRACE(mode);
    Cold();
    TempDir cache;
    ReaderOptions o = options_;
    o.remote.cache_dir = cache.path();
    const RemoteCounters before = GetRemoteCounters();
    std::vector<Row> rows;
    Status st = ReadAllThrough(mode, 2, o, &rows);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(rows, Expected());
    // curl itself may repeat a request once on a reused connection that died
    // before answering; every other failure is a retry of ours.
    EXPECT_GE(GetRemoteCounters().retries - before.retries, 1u);
  }
}

TEST_F(FaultTest, AStalledTransferTimesOutAndIsRetried) {
  ReaderOptions o = options_;
  o.remote.timeout_s = 1;
  std::vector<Row> rows;
  Status st = ReadAllThrough("slow", 1, o, &rows);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(rows, Expected());
}

TEST_F(FaultTest, RetriesRunOutWithAnErrorNamingTheUrlAndRangeAndNoRow) {
  ReaderOptions o = options_;
  o.remote.retries = 2;
  std::vector<Row> rows;
  Status st = ReadAllThrough("truncate", 1000, o, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(rows.empty());
  const std::string url = server_.base_url() + "/truncate/1000/ds0";
  EXPECT_NE(st.message().find(url + ": bytes ["), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("truncated"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("after 3 attempts"), std::string::npos) << st.ToString();

  rows.clear();
  st = ReadAllThrough("e500", 1000, o, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("HTTP 500, InternalError"), std::string::npos) << st.ToString();
}

TEST_F(FaultTest, ForbiddenAndNotFoundAreNotRetriedAndNameTheObject) {
  std::vector<Row> rows;
  const RemoteCounters before = GetRemoteCounters();
  Status st = ReadAllThrough("e403", 1000, options_, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(server_.base_url() + "/e403/1000/ds0: access denied (HTTP 403, AccessDenied: Access "
                              "Denied)"),
            std::string::npos)
      << st.ToString();
  EXPECT_EQ(GetRemoteCounters().retries, before.retries);
  st = ReadAllThrough("e404", 1000, options_, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find("not found (HTTP 404, NoSuchKey"), std::string::npos) << st.ToString();
}

TEST_F(FaultTest, AServerThatIgnoresRangesIsRefused) {
  std::vector<Row> rows;
  Status st = ReadAllThrough("norange", 1000, options_, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ignores Range requests"), std::string::npos) << st.ToString();
}

// ---- S3 ----------------------------------------------------------------

class S3Test : public RemoteReadTest {
 protected:
  void SetUp() override {
    RemoteReadTest::SetUp();
    setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    unsetenv("AWS_ENDPOINT_URL");
  }
};

TEST_F(S3Test, S3rverServesTheSameRowsAndIndexQueries) {
  ServerProcess s3;
  ServerProcess::StartS3rver("bkt", &s3);
  ASSERT_FALSE(s3.base_url().empty()) << s3.error();
  std::string why;
  for (const std::string& f : {"ds0", "ds1", "ds0.db", "ds1.db"}) {
    ASSERT_TRUE(s3.PutObject("bkt", "sets/" + f, root_ + "/" + f, &why)) << why;
  }
  ReaderOptions o = options_;
  o.remote.endpoint = s3.base_url();
  auto r = ShardReader::Open("s3://bkt/sets/ds0", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto local = ShardReader::Open(shards_[0]);
  EXPECT_EQ(AllRows(**r), AllRows(**local));
  auto groups = (*r)->GroupByIndexField("id");
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  EXPECT_EQ(*groups, *(*local)->GroupByIndexField("id"));

  // The endpoint from AWS_ENDPOINT_URL works the same.
  setenv("AWS_ENDPOINT_URL", s3.base_url().c_str(), 1);
  auto from_env = ShardReader::Open("s3://bkt/sets/ds1", options_);
  ASSERT_TRUE(from_env.ok()) << from_env.status().ToString();
  EXPECT_EQ((*from_env)->num_rows(), (*local)->num_rows());

  auto missing = ShardReader::Open("s3://bkt/sets/nothing", o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("s3://bkt/sets/nothing: not found"), std::string::npos)
      << missing.status().ToString();
  // An access key the server does not know: 403, named.
  setenv("AWS_ACCESS_KEY_ID", "NOBODY", 1);
  auto denied = ShardReader::Open("s3://bkt/sets/ds0", o);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("s3://bkt/sets/ds0: access denied (HTTP 403"), std::string::npos)
      << denied.status().ToString();
}

TEST_F(S3Test, SignaturesAreTheOnesBotocoreComputes) {
  // The fault server checks every request's SigV4 signature with botocore,
  // AWS's own implementation (s3rver parses SigV4 but does not check it).
  TempDir bucket_root;
  std::filesystem::create_directories(bucket_root.path() + "/bkt");
  for (const std::string& f : {"ds0", "ds1"}) {
    std::filesystem::copy_file(root_ + "/" + f, bucket_root.path() + "/bkt/" + f);
  }
  ServerProcess server;
  ServerProcess::StartFaultServer(bucket_root.path(), &server, "AKIDTEST:secret/with+chars");
  ASSERT_FALSE(server.base_url().empty()) << server.error();
  setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret/with+chars", 1);
  ReaderOptions o = options_;
  o.remote.endpoint = server.base_url();
  auto r = ShardReader::Open("s3://bkt/ds0", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto local = ShardReader::Open(shards_[0]);
  EXPECT_EQ(AllRows(**r), AllRows(**local));
  setenv("AWS_SECRET_ACCESS_KEY", "wrong", 1);
  Cold();
  TempDir other_cache;
  o.remote.cache_dir = other_cache.path();
  auto denied = ShardReader::Open("s3://bkt/ds0", o);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("access denied (HTTP 403"), std::string::npos)
      << denied.status().ToString();
}

// ---- MindSpore's own files -------------------------------------------------

TEST(RemoteCompatTest, MindSporeFilesReadOverHttpAsTheyReadLocally) {
  const std::string compat = testing::CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  ServerProcess nginx;
  ServerProcess::StartNginx(compat + "/mindrecord", &nginx);
  ASSERT_FALSE(nginx.base_url().empty()) << nginx.error();
  TempDir cache;
  ReaderOptions o;
  o.remote.cache_dir = cache.path();
  for (const std::string& f : {"imagenet/imagenet.mindrecord2", "graph/testdata", "twobytes/twobytes.mindrecord"}) {
    SCOPED_TRACE(f);
    auto local = ShardReader::Open(compat + "/mindrecord/" + f);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    auto remote = ShardReader::Open(nginx.base_url() + "/" + f, o);
    ASSERT_TRUE(remote.ok()) << remote.status().ToString();
    EXPECT_EQ((*remote)->num_shards(), (*local)->num_shards());
    EXPECT_EQ(AllRows(**remote), AllRows(**local));
    for (const std::string& field : (*local)->index_fields()) {
      auto a = (*remote)->GroupByIndexField(field);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      EXPECT_EQ(*a, *(*local)->GroupByIndexField(field));
    }
  }
}

}  // namespace
}  // namespace mindrecord
