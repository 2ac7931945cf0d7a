// ScanRows (pipeline/nodes/row_scan_cache.h): a text or CSV file's rows are
// scanned once per process while the file does not change.
#include <gtest/gtest.h>

#include <chrono>
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
        rows->Add(start, i - start);
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
  ASSERT_EQ((*ScanRows(path, "lines", LineScan{&scans}))->start.size(), 2u);
  ASSERT_EQ((*ScanRows(path, "lines", LineScan{&scans}))->start.size(), 2u);
  EXPECT_EQ(scans, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(kQuietSeconds * 1000 + 100));
  auto first = ScanRows(path, "lines", LineScan{&scans});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = ScanRows(path, "lines", LineScan{&scans});
  EXPECT_EQ(scans, 3);                      // kept once the file was quiet
  EXPECT_EQ(first->get(), again->get());    // shared, not copied
  ASSERT_TRUE(ScanRows(path, "other grammar", LineScan{&scans}).ok());
  EXPECT_EQ(scans, 4);                      // another key is another scan
  // The same size, other rows: a rewrite changes the identity.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "on\ne\ntw\n";
  auto changed = ScanRows(path, "lines", LineScan{&scans});
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(scans, 5);
  EXPECT_EQ((*changed)->start, (std::vector<uint64_t>{0, 3, 5}));
  EXPECT_EQ((*changed)->length, (std::vector<uint32_t>{2, 1, 2}));
  EXPECT_EQ(ScanRows(dir + "/missing.txt", "lines", LineScan{&scans}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mindrecord
