// Background flushes of files written through the page cache
// (mindrecord/background_sync.h): asked for once per kSyncBytes, errors kept
// for Finish, a bounded number of helpers, and the buffered shard writer
// using them.
#include "mindrecord/background_sync.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;

// Waits up to 30 s for `s` to have done `n` flushes.
bool WaitForFlushes(const BackgroundSync& s, uint64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (s.flushes() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(BackgroundSyncTest, FlushesOncePerSyncBytes) {
  TempDir dir;
  const std::string path = dir.Join("f");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const std::string mib(1 << 20, 'x');
  auto s = BackgroundSync::Start(fd, path);
  ASSERT_NE(s, nullptr);
  for (int i = 0; i < 31; ++i) {
    ASSERT_EQ(::pwrite(fd, mib.data(), mib.size(), off_t{i} << 20), static_cast<ssize_t>(mib.size()));
    s->Note(mib.size());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(s->flushes(), 0u) << "31 MiB: below kSyncBytes";
  s->Note(mib.size());  // 32 MiB
  EXPECT_TRUE(WaitForFlushes(*s, 1));
  EXPECT_TRUE(s->Finish().ok());
  EXPECT_EQ(s->flushes(), 1u);
  ::close(fd);
}

TEST(BackgroundSyncTest, AFailedFlushIsReportedByFinish) {
  // fdatasync fails on a pipe (EINVAL): the failure must not be lost.
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  auto s = BackgroundSync::Start(p[1], "/data/the-shard");
  ASSERT_NE(s, nullptr);
  s->Note(BackgroundSync::kSyncBytes);
  ASSERT_TRUE(WaitForFlushes(*s, 1));
  const Status st = s->Finish();
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("/data/the-shard: background fsync"), std::string::npos) << st.ToString();
  ::close(p[0]);
  ::close(p[1]);
}

TEST(BackgroundSyncTest, HelpersAreCapped) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  std::vector<std::unique_ptr<BackgroundSync>> helpers;
  for (int i = 0; i < BackgroundSync::kMaxFiles; ++i) {
    helpers.push_back(BackgroundSync::Start(p[1], "f"));
    ASSERT_NE(helpers.back(), nullptr) << i;
  }
  EXPECT_EQ(BackgroundSync::Start(p[1], "f"), nullptr);
  EXPECT_TRUE(helpers.back()->Finish().ok());  // finished: its place is free again
  helpers.back() = BackgroundSync::Start(p[1], "f");
  EXPECT_NE(helpers.back(), nullptr);
  helpers.clear();
  ::close(p[0]);
  ::close(p[1]);
}

TEST(BackgroundSyncTest, TheBufferedShardWriterFlushesInTheBackground) {
  // 96 MiB of rows written buffered (the default): flushed while writing.
  TempDir dir;
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"},"data":{"type":"bytes"}})");
  ASSERT_TRUE(schema.ok());
  WriterOptions o;
  ASSERT_FALSE(o.direct_writes);
  auto w = ShardWriter::Create(dir.Join("x.mindrecord"), *schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint64_t before = BackgroundSync::total_flushes();
  for (int b = 0; b < 96; ++b) {
    std::vector<Row> rows;
    for (int i = 0; i < 16; ++i) {
      Row r;
      r.Set("id", Value::Int(b * 16 + i));
      r.Set("data", Value::Bytes(std::string(64 << 10, static_cast<char>(i))));
      rows.push_back(std::move(r));
    }
    ASSERT_TRUE((*w)->WriteRows(std::move(rows)).ok());
  }
  ASSERT_TRUE((*w)->Commit().ok());
  EXPECT_GE(BackgroundSync::total_flushes() - before, 1u);
}

}  // namespace
}  // namespace mindrecord
