// Mapped shards that fit in memory are advised as huge-page memory
// (RandomAccessFile::AdviseHugePages from ShardReader::Open): pages read in
// through the mapping come into the page cache as 2 MiB folios, which this
// and every later mapping of the file map as 2 MiB pages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "readers/mapping_cache.h"
#include "readers/shard_reader.h"
#include "tests/util/smaps.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;

constexpr int kRows = 96;

// FilePmdMapped (kB) of this process's mappings of `path`, from
// /proc/self/smaps; -1 when none maps it.
long PmdMappedKb(const std::string& path) {
  return testing::SmapsValue("FilePmdMapped", [&](uintptr_t, uintptr_t, const std::string& line) {
    return line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
  });
}

// Drops the file's pages from the page cache (they are clean and unmapped).
void DropCached(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::fdatasync(fd), 0);
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  ::close(fd);
}

// Whether this kernel and file system bring a file's pages in as 2 MiB
// folios through a mapping advised MADV_HUGEPAGE (Linux with transparent huge
// pages not "never", and large folios in the file system's page cache, e.g.
// ext4 since 6.16, XFS): a probe file in `dir`.
bool FileHugePagesWork(const TempDir& dir) {
#ifdef MADV_HUGEPAGE
  const std::string probe = dir.Join("probe.bin");
  constexpr size_t kBytes = size_t{8} << 20;
  {
    std::ofstream out(probe, std::ios::binary);
    const std::string chunk(1 << 20, 'x');
    for (size_t i = 0; i < kBytes; i += chunk.size()) out << chunk;
  }
  DropCached(probe);
  const int fd = ::open(probe.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  void* p = ::mmap(nullptr, kBytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  (void)::madvise(p, kBytes, MADV_HUGEPAGE);
  volatile char sum = 0;
  for (size_t i = 0; i < kBytes; i += 4096) sum = sum + static_cast<const char*>(p)[i];
  const long kb = PmdMappedKb(probe);
  ::munmap(p, kBytes);
  return kb > 0;
#else
  (void)dir;
  return false;
#endif
}

// A shard of kRows rows holding 12 MiB of blobs, committed (its pages clean).
std::string WriteRows(const TempDir& dir, const std::string& name) {
  auto w = *ShardWriter::Create(dir.Join(name), testing::IdNameImgSchema(), WriterOptions{});
  std::vector<Row> batch;
  for (int i = 0; i < kRows; ++i) {
    batch.push_back(testing::IdNameImgRow(i, 128 << 10));
  }
  EXPECT_TRUE(w->WriteRows(batch).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

// Writes a shard in `dir` (its path in *path), drops its cached pages, opens
// it mapped (with `memory` as the figure a dataset is compared with; 0: the
// machine's) and reads every row's bytes through the mapping; returns the
// reader, which holds the mapping.
std::unique_ptr<ShardReader> WriteDropAndRead(const TempDir& dir, uint64_t memory, std::string* path_out) {
  const std::string path = *path_out = WriteRows(dir, "a.mindrecord");
  ReleaseRetainedMappings();
  DropCached(path);
  ReaderOptions o;
  o.io_mode = IoMode::kMmap;
  o.auto_direct_above = memory;
  auto r = ShardReader::Open(path, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return nullptr;
  uint64_t bytes = 0;
  std::vector<uint64_t> ids(kRows);
  for (uint64_t i = 0; i < ids.size(); ++i) ids[i] = i;
  Status st = (*r)->ReadRowViews(ids, nullptr, [&](size_t, const Status& s, const RowView& v) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    bytes += v.value_bytes();
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_GE(bytes, uint64_t{12} << 20);
  return std::move(r).value();
}

TEST(HugePageMappingTest, MappedShardIsReadInAsTwoMiBPages) {
  TempDir dir;
  if (!FileHugePagesWork(dir)) GTEST_SKIP() << "file pages are not mapped as 2 MiB pages here";
  std::string path;
  auto reader = WriteDropAndRead(dir, 0, &path);
  EXPECT_GE(PmdMappedKb(path), 2048) << "the shard's pages came in as small pages";
}

TEST(HugePageMappingTest, ADatasetLargerThanMemoryIsNotAdvised) {
  TempDir dir;
  if (!FileHugePagesWork(dir)) GTEST_SKIP() << "file pages are not mapped as 2 MiB pages here";
  std::string path;
  auto reader = WriteDropAndRead(dir, 1 << 20, &path);
  EXPECT_EQ(PmdMappedKb(path), 0) << "a dataset larger than memory read in 2 MiB pieces";
}

}  // namespace
}  // namespace mindrecord
