// ScanRows (pipeline/nodes/row_scan_cache.h): a text or CSV file's rows are
// scanned once per process while the file does not change.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "pipeline/nodes/row_scan_cache.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

// Rows are lines ending in '\n'; counts its calls.
struct LineScan {
  int* scans;
  Status operator()(const RandomAccessFile& f, FileRows* rows) const {
    ++*scans;
    std::string bytes(f.size(), '\0');
    MR_RETURN_IF_ERROR(f.ReadAt(0, bytes.size(), bytes.data()));
    uint64_t start = 0;
    for (uint64_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] == '\n') {
        if (!rows->Add(start, i - start)) return rows->Full(f.path(), "lines");
        start = i + 1;
      }
    }
    return Status::OK();
  }
};

TEST(RowScanCacheTest, AnUnchangedFileIsScannedOnceAChangedOneAgain) {
  const std::string dir = testing::ProcessTempDir() + "/row_scan_cache";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/lines.txt";
  std::ofstream(path, std::ios::binary) << "one\ntwo\n";
  int scans = 0;
  // Written just now: scanned every time (a write within the file system's
  // clock tick could go unseen).
  ASSERT_EQ((*ScanRows(path, "lines", LineScan{&scans}, 0, UINT64_MAX))->start.size(), 2u);
  ASSERT_EQ((*ScanRows(path, "lines", LineScan{&scans}, 0, UINT64_MAX))->start.size(), 2u);
  EXPECT_EQ(scans, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(kQuietSeconds * 1000 + 100));
  auto first = ScanRows(path, "lines", LineScan{&scans}, 0, UINT64_MAX);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = ScanRows(path, "lines", LineScan{&scans}, 0, UINT64_MAX);
  EXPECT_EQ(scans, 3);                      // kept once the file was quiet
  EXPECT_EQ(first->get(), again->get());    // shared, not copied
  ASSERT_TRUE(ScanRows(path, "other grammar", LineScan{&scans}, 0, UINT64_MAX).ok());
  EXPECT_EQ(scans, 4);                      // another key is another scan
  // The same size, other rows: a rewrite changes the identity.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "on\ne\ntw\n";
  auto changed = ScanRows(path, "lines", LineScan{&scans}, 0, UINT64_MAX);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(scans, 5);
  EXPECT_EQ((*changed)->start, (std::vector<uint64_t>{0, 3, 5}));
  EXPECT_EQ((*changed)->length, (std::vector<uint32_t>{2, 1, 2}));
  EXPECT_EQ(ScanRows(dir + "/missing.txt", "lines", LineScan{&scans}, 0, UINT64_MAX).status().code(), StatusCode::kNotFound);
}

// A source indexes at most its limit of rows over all its files: a scan
// stops at the first row past it, and a kept scan of more rows than the
// files before it left is refused as well.
TEST(RowScanCacheTest, ASourceIndexesAtMostItsLimitOfRows) {
  const std::string dir = testing::ProcessTempDir() + "/row_scan_limit";
  std::filesystem::create_directories(dir);
  const std::string a = dir + "/a.txt", b = dir + "/b.txt";
  std::ofstream(a, std::ios::binary) << "1\n2\n3\n";
  std::ofstream(b, std::ios::binary) << "4\n5\n";
  std::this_thread::sleep_for(std::chrono::milliseconds(kQuietSeconds * 1000 + 100));
  int scans = 0;
  auto whole = ScanRows(a, "limit", LineScan{&scans}, 0, 3);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ((*whole)->start.size(), 3u);
  auto cut = ScanRows(b, "limit", LineScan{&scans}, 3, 4);
  ASSERT_EQ(cut.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(cut.status().message().find(b + ": more than 4 lines to index in memory"), std::string::npos)
      << cut.status().message();
  EXPECT_NE(cut.status().message().find("MINDRECORD_MAX_INDEXED_ROWS"), std::string::npos);
  // `a` is kept (quiet, complete): the second file of a source with 1 row left refuses it unscanned.
  const int before = scans;
  auto kept = ScanRows(a, "limit", LineScan{&scans}, 1, 3);
  EXPECT_EQ(scans, before);
  ASSERT_EQ(kept.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(kept.status().message().find("more than 3 rows"), std::string::npos) << kept.status().message();

  // ScanSourceFiles takes the limit from the environment.
  testing::ScopedEnv limit(kMaxIndexedRowsVariable, "5");
  auto both = ScanSourceFiles({a, b}, "limit", LineScan{&scans});
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[1]->start.size(), 2u);
  limit.Set("4");
  EXPECT_EQ(ScanSourceFiles({a, b}, "limit", LineScan{&scans}).status().code(), StatusCode::kNotSupported);
  limit.Set("4x");
  auto bad = ScanSourceFiles({a, b}, "limit", LineScan{&scans});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("MINDRECORD_MAX_INDEXED_ROWS='4x'"), std::string::npos);
  for (const char* v : {"0", "-1", " 5", "99999999999999999999999"}) {
    limit.Set(v);
    EXPECT_EQ(MaxIndexedRows().status().code(), StatusCode::kInvalidArgument) << v;
  }
  ASSERT_EQ(unsetenv(kMaxIndexedRowsVariable), 0);
  EXPECT_EQ(*MaxIndexedRows(), kDefaultMaxIndexedRows);
  limit.Set("");  // set but empty: the default
  EXPECT_EQ(*MaxIndexedRows(), kDefaultMaxIndexedRows);
}

}  // namespace
}  // namespace mindrecord
