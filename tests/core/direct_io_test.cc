// IoMode::kDirect: O_DIRECT + libaio reads. Every row and scan equals the
// pread reader on datasets whose pages start at unaligned offsets; checksums
// still catch a flipped byte; a file system that refuses O_DIRECT is an error
// (or pread with direct_fallback); tmpfs behaves as documented; many threads
// read one reader at once.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <random>
#include <thread>

#include "index/index_reader.h"
#include "mindrecord/direct_file.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Skips the test when the folder's file system refuses O_DIRECT.
#define SKIP_WITHOUT_DIRECT(path)                                                                   \
  do {                                                                                              \
    auto probe = DirectFile::Open(path);                                                            \
    if (!probe.ok() && probe.status().code() == StatusCode::kNotSupported) {                        \
      GTEST_SKIP() << "O_DIRECT is refused here: " << probe.status().ToString();                    \
    }                                                                                               \
    ASSERT_TRUE(probe.ok()) << probe.status().ToString();                                           \
  } while (0)

TEST(DirectFileTest, ReadsAnyRangeOfAFileWhoseSizeIsNotAligned) {
  TempDir dir;
  const std::string path = dir.Join("f");
  // Over two ReadAt chunks (4 MiB), ending mid-block.
  const std::string bytes = RandomBytes((9 << 20) + 1234, 1);
  WriteFile(path, bytes);
  SKIP_WITHOUT_DIRECT(path);
  auto f = *DirectFile::Open(path);
  ASSERT_EQ(f->size(), bytes.size());
  ASSERT_GE(f->alignment(), 4096u);
  ASSERT_EQ(f->alignment() & (f->alignment() - 1), 0u);
  const uint64_t n = bytes.size();
  std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {0, 0},          {0, 1},          {1, 100},         {4095, 2},         {4096, 4096},       {4097, 5000},
      {n - 1, 1},      {n - 100, 100},  {n - 5000, 5000}, {7, n - 7},        {(4 << 20) - 3, 9}, {0, n},
      {123, 8 << 20},  {n, 0}};
  for (auto [off, len] : ranges) {
    std::string out(len, '\0');
    Status st = f->ReadAt(off, len, out.data());
    ASSERT_TRUE(st.ok()) << off << "+" << len << ": " << st.ToString();
    ASSERT_TRUE(out == bytes.substr(off, len)) << off << "+" << len;
  }
  std::string out(10, '\0');
  Status st = f->ReadAt(n - 5, 10, out.data());
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("past the end"), std::string::npos) << st.message();
}

class AioStreamTest : public ::testing::TestWithParam<std::tuple<unsigned, uint64_t>> {};

TEST_P(AioStreamTest, ReturnsQueuedRangesInOrder) {
  const auto [depth, read_ahead] = GetParam();
  TempDir dir;
  const std::string path = dir.Join("f");
  const std::string bytes = RandomBytes(3 * 65536 + 777, 2);
  WriteFile(path, bytes);
  SKIP_WITHOUT_DIRECT(path);
  auto f = *DirectFile::Open(path);
  AioContextPool pool(depth);
  std::mt19937_64 rng(depth * 31 + read_ahead);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (int i = 0; i < 60; ++i) {
    const uint64_t off = rng() % bytes.size();
    ranges.push_back({off, rng() % std::min<uint64_t>(20000, bytes.size() - off + 1)});
  }
  ranges.push_back({bytes.size() - 777, 777});  // the unaligned tail
  ranges.push_back({bytes.size() - 10, 20});    // past the end
  ranges.push_back({5, 0});
  ranges.push_back({0, bytes.size()});
  for (int round = 0; round < 2; ++round) {  // the second round reuses the pooled context
    AioReadStream stream(*f, &pool, read_ahead);
    for (auto [off, len] : ranges) stream.Add(off, len);
    AioReadStream::Block prev;
    for (auto [off, len] : ranges) {
      auto b = stream.Next();
      if (off + len > bytes.size()) {
        ASSERT_FALSE(b.ok());
        EXPECT_EQ(b.status().code(), StatusCode::kCorruption);
        EXPECT_NE(b.status().message().find(path), std::string::npos) << b.status().message();
        continue;
      }
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      ASSERT_TRUE(b->view() == std::string_view(bytes).substr(off, len)) << off << "+" << len;
      // The previous block stays valid until recycled.
      stream.Recycle(std::move(prev));
      prev = std::move(b).value();
    }
    if (depth > 1 && read_ahead > bytes.size()) {
      EXPECT_GT(stream.peak_in_flight(), 1u);
    } else if (depth == 1 || read_ahead == 1) {
      EXPECT_EQ(stream.peak_in_flight(), 1u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DepthAndReadAhead, AioStreamTest,
                         ::testing::Combine(::testing::Values(1u, 3u, 16u), ::testing::Values(1ull, 1ull << 30)));

TEST(AioStreamTest, StoppingEarlyWaitsForReadsInFlight) {
  TempDir dir;
  const std::string path = dir.Join("f");
  WriteFile(path, RandomBytes(1 << 20, 3));
  SKIP_WITHOUT_DIRECT(path);
  auto f = *DirectFile::Open(path);
  AioContextPool pool(8);
  for (int i = 0; i < 20; ++i) {
    AioReadStream stream(*f, &pool, 1 << 30);
    for (int k = 0; k < 16; ++k) stream.Add(k * 65536 + 3, 65000);
    ASSERT_TRUE(stream.Next().ok());
  }  // destroyed with up to 8 reads in flight
}

// A dataset whose pages start at offsets that are not multiples of 4096
// (header 16388 bytes, pages 32772), rows of very different sizes, several
// shards.
struct Dataset {
  std::string path;
  std::vector<std::string> shards;
};

Schema MixedSchema() {
  return *Schema::FromUserJsonString(
      R"({"id":{"type":"int64"},"name":{"type":"string"},"img":{"type":"bytes"},"mask":{"type":"bytes"},)"
      R"("v":{"type":"int32","shape":[-1]},"f":{"type":"float32"}})");
}

Dataset WriteDataset(const std::string& path, uint32_t shards, uint64_t header_size, uint64_t page_size, int rows,
                     bool checksums = true) {
  WriterOptions o;
  o.header_size = header_size;
  o.page_size = page_size;
  o.shard_count = shards;
  o.checksums = checksums;
  auto w = *ShardWriter::Create(path, MixedSchema(), o);
  std::mt19937_64 rng(header_size + page_size + shards);
  for (int b = 0; b < 3; ++b) {
    std::vector<Row> batch;
    for (int i = b * rows / 3; i < (b + 1) * rows / 3; ++i) {
      const size_t img = rng() % 7 == 0 ? 9000 + rng() % 9000 : rng() % 900;
      batch.push_back(Row{{"id", Value::Int(i)},
                          {"name", Value::String(std::string(rng() % 40, 'n') + std::to_string(i))},
                          {"img", Value::Bytes(RandomBytes(img, i))},
                          {"mask", Value::Bytes(RandomBytes(rng() % 300, i + 7))},
                          {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i, -i, static_cast<int32_t>(rng())})},
                          {"f", Value::Float(i * 0.5)}});
    }
    EXPECT_TRUE(w->WriteRows(batch).ok());
  }
  EXPECT_TRUE(w->Commit().ok());
  return {w->shard_paths()[0], w->shard_paths()};
}

std::vector<Row> ScanAll(const ShardReader& r, uint64_t begin, uint64_t end, const Projection* p = nullptr) {
  std::vector<Row> out;
  Status st = r.Scan(begin, end, p, [&](uint64_t id, Row&& row) {
    EXPECT_EQ(id, begin + out.size());
    out.push_back(std::move(row));
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

ReaderOptions Direct(uint32_t depth = 4, uint64_t read_ahead = 64ull << 20) {
  ReaderOptions o;
  o.io_mode = IoMode::kDirect;
  o.direct_queue_depth = depth;
  o.direct_read_ahead = read_ahead;
  return o;
}

class DirectReadTest : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t, uint64_t, bool>> {};

// Scans read whole pages until they are verified, then only the rows' span
// (from the start without checksums): both paths are taken here.
TEST_P(DirectReadTest, EveryRowAndScanEqualsPread) {
  const auto [shards, header_size, page_size, checksums] = GetParam();
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), shards, header_size, page_size, 600, checksums);
  SKIP_WITHOUT_DIRECT(d.path);
  auto pread = *ShardReader::Open(d.path);
  ASSERT_GT(pread->header(0).pages.size(), 4u);  // several pages of each type
  const uint64_t n = pread->num_rows();
  ASSERT_EQ(n, 600u);
  std::vector<Row> expect;
  for (uint64_t i = 0; i < n; ++i) expect.push_back(*pread->ReadRow(i));
  auto raw_only = *pread->MakeProjection({"id", "name"});
  auto blob_only = *pread->MakeProjection({"mask"});
  // Depth 1 / one page ahead, and several reads in flight.
  for (ReaderOptions o : {Direct(1, 1), Direct(4, 1), Direct(8, 1ull << 30)}) {
    auto r = ShardReader::Open(d.path, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const ShardReader& direct = **r;
    for (uint32_t s = 0; s < shards; ++s) EXPECT_EQ(direct.shard_io_mode(s), IoMode::kDirect);
    const std::vector<std::pair<uint64_t, uint64_t>> ranges = {{0, 1}, {37, 38}, {13, 413}, {199, 600}, {5, 5}};
    for (auto [b, e] : ranges) {
      std::vector<Row> got = ScanAll(direct, b, e);
      ASSERT_TRUE(got == std::vector<Row>(expect.begin() + b, expect.begin() + e)) << b << ".." << e;
    }
    for (uint64_t i = 0; i < n; ++i) {
      auto row = direct.ReadRow(i);
      ASSERT_TRUE(row.ok()) << row.status().ToString();
      ASSERT_TRUE(*row == expect[i]) << "row " << i;
      auto enc = direct.ReadEncoded(i);
      auto enc_p = pread->ReadEncoded(i);
      ASSERT_TRUE(enc.ok() && enc->raw == enc_p->raw && enc->blob == enc_p->blob) << "row " << i;
    }
    for (uint64_t i = 0; i < n; i += 7) {
      for (const Projection* p : {&raw_only, &blob_only}) {
        auto row = direct.ReadRow(i, p);
        ASSERT_TRUE(row.ok() && *row == *pread->ReadRow(i, p)) << "row " << i;
      }
    }
    EXPECT_TRUE(ScanAll(direct, 0, n) == expect);
    for (auto [b, e] : ranges) {
      std::vector<Row> got = ScanAll(direct, b, e);
      ASSERT_TRUE(got == std::vector<Row>(expect.begin() + b, expect.begin() + e)) << b << ".." << e;
    }
    EXPECT_TRUE(ScanAll(direct, 0, n, &raw_only) == ScanAll(*pread, 0, n, &raw_only));
    EXPECT_TRUE(ScanAll(direct, 11, n - 3, &blob_only) == ScanAll(*pread, 11, n - 3, &blob_only));
  }
}

INSTANTIATE_TEST_SUITE_P(ShardsAndOddSizes, DirectReadTest,
                         ::testing::Values(std::make_tuple(1u, 16388ull, 32772ull, true),
                                           std::make_tuple(3u, 16388ull, 32772ull, true),
                                           std::make_tuple(3u, 16388ull, 32772ull, false),
                                           std::make_tuple(4u, 20000ull, 45060ull, true),
                                           std::make_tuple(2u, 16384ull, 32768ull, false)));

TEST(DirectReadTest, AFlippedPageByteIsDetected) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 1, 16388, 32772, 300);
  SKIP_WITHOUT_DIRECT(d.path);
  const ShardHeader h = (*ShardReader::Open(d.path))->header(0);
  const std::string good = ReadFile(d.path);
  // A byte in the middle of a blob page and one in a raw page.
  for (bool blob : {true, false}) {
    const PageInfo* page = nullptr;
    for (const auto& p : h.pages) {
      if (p.is_blob == blob && p.page_id > 0) page = &p;
    }
    ASSERT_NE(page, nullptr);
    std::string bad = good;
    bad[h.PageOffset(page->page_id) + page->used_bytes / 2] ^= 0x10;
    WriteFile(d.path, bad);
    const std::string want = "page " + std::to_string(page->page_id) + " (offset";
    {
      auto r = *ShardReader::Open(d.path, Direct());
      Status st = r->Scan(0, r->num_rows(), nullptr, [](uint64_t, Row&&) { return Status::OK(); });
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
      EXPECT_NE(st.message().find(d.path), std::string::npos) << st.message();
      EXPECT_NE(st.message().find(want), std::string::npos) << st.message();
      EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos) << st.message();
    }
    {
      auto r = *ShardReader::Open(d.path, Direct());
      Status first = Status::OK();
      for (uint64_t i = 0; i < r->num_rows() && first.ok(); ++i) first = r->ReadRow(i).status();
      EXPECT_EQ(first.code(), StatusCode::kCorruption) << first.ToString();
      EXPECT_NE(first.message().find(want), std::string::npos) << first.message();
    }
  }
  WriteFile(d.path, good);
  auto r = *ShardReader::Open(d.path, Direct());
  EXPECT_EQ(ScanAll(*r, 0, r->num_rows()).size(), 300u);
}

TEST(DirectReadTest, TruncatedShardIsCorruptionNamingTheFile) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 1, 16388, 32772, 300, /*checksums=*/false);
  SKIP_WITHOUT_DIRECT(d.path);
  const std::string good = ReadFile(d.path);
  WriteFile(d.path, good.substr(0, good.size() - 5000));
  auto r = ShardReader::Open(d.path, Direct(4, 1ull << 30));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find(d.path), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().message();
}

TEST(DirectReadTest, RefusedODirectIsAnErrorOrPreadWithFallback) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 3, 16388, 32772, 120);
  FaultInjectingFileSystem fs(FileSystem::Default());
  fs.RefuseDirect(true);
  ReaderOptions o = Direct();
  o.file_system = &fs;
  auto refused = ShardReader::Open(d.path, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(refused.status().message().find(d.path + ": the file system refuses O_DIRECT"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("pread"), std::string::npos) << refused.status().message();

  o.direct_fallback = true;
  auto r = ShardReader::Open(d.path, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ((*r)->shard_io_mode(s), IoMode::kPread);
  auto pread = *ShardReader::Open(d.path);
  EXPECT_TRUE(ScanAll(**r, 0, 120) == ScanAll(*pread, 0, 120));
  // pread and mmap readers report their own modes.
  EXPECT_EQ(pread->shard_io_mode(0), IoMode::kPread);
  ReaderOptions m;
  m.io_mode = IoMode::kMmap;
  EXPECT_EQ((*ShardReader::Open(d.path, m))->shard_io_mode(2), IoMode::kMmap);
  EXPECT_EQ(ShardReader::Open(d.path, Direct(0)).status().code(), StatusCode::kInvalidArgument);
}

// tmpfs refuses O_DIRECT before Linux 6.6 and accepts it since (README):
// before, a direct open is NotSupported naming the shard and direct_fallback
// reads it with pread; since, it is read with O_DIRECT.
TEST(DirectReadTest, TmpfsFollowsTheDocumentedBehaviour) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  std::string tmpl = "/dev/shm/mindrecord-direct-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  struct Cleanup {
    std::string p;
    ~Cleanup() { std::filesystem::remove_all(p); }
  } cleanup{tmpl};
  const Dataset d = WriteDataset(tmpl + "/d", 2, 16388, 32772, 150);
  utsname u;
  ASSERT_EQ(uname(&u), 0);
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(u.release, "%d.%d", &major, &minor), 2) << u.release;
  const bool kernel_supports = major > 6 || (major == 6 && minor >= 6);
  auto pread = *ShardReader::Open(d.path);
  const std::vector<Row> expect = ScanAll(*pread, 0, 150);
  auto r = ShardReader::Open(d.path, Direct());
  if (kernel_supports) {
    ASSERT_TRUE(r.ok()) << u.release << ": " << r.status().ToString();
    for (uint32_t s = 0; s < 2; ++s) EXPECT_EQ((*r)->shard_io_mode(s), IoMode::kDirect);
    EXPECT_TRUE(ScanAll(**r, 0, 150) == expect);
  } else {
    ASSERT_FALSE(r.ok()) << u.release;
    EXPECT_EQ(r.status().code(), StatusCode::kNotSupported);
    EXPECT_NE(r.status().message().find(d.path), std::string::npos) << r.status().message();
  }
  ReaderOptions o = Direct();
  o.direct_fallback = true;
  auto fb = *ShardReader::Open(d.path, o);
  EXPECT_EQ(fb->shard_io_mode(1), kernel_supports ? IoMode::kDirect : IoMode::kPread);
  EXPECT_TRUE(ScanAll(*fb, 0, 150) == expect);
}

TEST(DirectReadTest, ManyThreadsReadOneReader) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 3, 16388, 32772, 450);
  SKIP_WITHOUT_DIRECT(d.path);
  auto pread = *ShardReader::Open(d.path);
  const uint64_t n = pread->num_rows();
  std::vector<Row> expect = ScanAll(*pread, 0, n);
  auto direct = *ShardReader::Open(d.path, Direct(3, 1));
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (int k = 0; k < 6; ++k) {
        if ((t + k) % 2 == 0) {
          const uint64_t b = rng() % n, e = b + rng() % (n - b + 1);
          Status st = direct->Scan(b, e, nullptr, [&](uint64_t id, Row&& row) {
            if (!(row == expect[id])) bad++;
            return Status::OK();
          });
          if (!st.ok()) bad++;
        } else {
          for (int i = 0; i < 60; ++i) {
            const uint64_t id = rng() % n;
            auto row = direct->ReadRow(id);
            if (!row.ok() || !(*row == expect[id])) bad++;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}


// ReadRows hands every row to the callback in the order asked, equal to
// ReadRow, in every io mode and projection; ids may repeat and jump between
// shards; a bad id or a bad row is that row's error and the others still come.
TEST(ReadRowsTest, EqualsReadRowInEveryModeAndOrder) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 3, 16388, 32772, 450);
  auto pread = *ShardReader::Open(d.path, ReaderOptions{.io_mode = IoMode::kPread});
  const uint64_t n = pread->num_rows();
  std::vector<uint64_t> ids(n);
  for (uint64_t i = 0; i < n; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(5));
  ids.push_back(ids[3]);  // a repeat
  ids.push_back(n - 1);
  auto raw_only = *pread->MakeProjection({"id", "name"});
  auto blob_only = *pread->MakeProjection({"mask"});
  std::vector<ReaderOptions> modes = {ReaderOptions{.io_mode = IoMode::kPread},
                                      ReaderOptions{.io_mode = IoMode::kMmap}};
  if (DirectFile::Open(d.path).ok()) {
    for (uint32_t in_flight : {1u, 5u, 64u}) {
      ReaderOptions o = Direct(4, 1ull << 30);
      o.direct_rows_in_flight = in_flight;
      modes.push_back(o);
    }
    ReaderOptions tight = Direct(4, 1);  // one buffered read ahead at a time
    modes.push_back(tight);
  }
  for (const ReaderOptions& o : modes) {
    auto r = *ShardReader::Open(d.path, o);
    for (const Projection* p : std::vector<const Projection*>{nullptr, &raw_only, &blob_only}) {
      size_t next = 0;
      Status st = r->ReadRows(ids, p, [&](size_t i, Result<Row>&& row) {
        EXPECT_EQ(i, next++);
        if (!row.ok()) return row.status();
        auto want = pread->ReadRow(ids[i], p);
        if (!(*row == *want)) return Status::Internal("row " + std::to_string(ids[i]) + " differs");
        return Status::OK();
      });
      EXPECT_TRUE(st.ok()) << IoModeName(o.io_mode) << ": " << st.ToString();
      EXPECT_EQ(next, ids.size());
    }
    // An id past the end is that row's InvalidArgument; the rows around it come.
    std::vector<uint64_t> with_bad = {7, n + 3, 8};
    std::vector<StatusCode> codes;
    ASSERT_TRUE(r->ReadRows(with_bad, nullptr, [&](size_t, Result<Row>&& row) {
                   codes.push_back(row.ok() ? StatusCode::kOk : row.status().code());
                   return Status::OK();
                 }).ok());
    EXPECT_EQ(codes, (std::vector<StatusCode>{StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kOk}));
    // The callback's error stops the call and is returned as is.
    int calls = 0;
    Status stop = r->ReadRows(ids, nullptr, [&](size_t, Result<Row>&&) {
      return ++calls == 2 ? Status::Cancelled("enough") : Status::OK();
    });
    EXPECT_EQ(stop.code(), StatusCode::kCancelled);
    EXPECT_EQ(calls, 2);
    EXPECT_TRUE(r->ReadRows({}, nullptr, [](size_t, Result<Row>&&) { return Status::Internal("called"); }).ok());
  }
}

TEST(ReadRowsTest, ACorruptRowIsThatRowsErrorInDirectMode) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 1, 16388, 32772, 300, /*checksums=*/false);
  SKIP_WITHOUT_DIRECT(d.path);
  auto pread = *ShardReader::Open(d.path, ReaderOptions{.io_mode = IoMode::kPread});
  // Row 40's raw part: its length prefix is overwritten.
  uint64_t raw_off = 0;
  {
    const std::string db = d.path + ".db";
    auto idx = *IndexReader::Open(db, BaseName(d.path), false);
    auto locs = *idx->LoadLocators(pread->num_rows());
    ASSERT_EQ(locs[40].row_id, 40u);
    raw_off = pread->header(0).PageOffset(locs[40].raw_page) + locs[40].raw_begin;
  }
  std::string bytes = ReadFile(d.path);
  bytes[raw_off] ^= 0x7f;
  WriteFile(d.path, bytes);
  auto r = *ShardReader::Open(d.path, Direct());
  std::vector<uint64_t> ids = {39, 40, 41, 200, 40};
  std::vector<std::string> got;
  ASSERT_TRUE(r->ReadRows(ids, nullptr, [&](size_t i, Result<Row>&& row) {
                 got.push_back(row.ok() ? "ok" : row.status().ToString());
                 if (row.ok()) EXPECT_TRUE(*row == *pread->ReadRow(ids[i]));
                 return Status::OK();
               }).ok());
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], "ok");
  EXPECT_NE(got[1].find("Corruption"), std::string::npos) << got[1];
  EXPECT_NE(got[1].find(d.path), std::string::npos) << got[1];
  EXPECT_NE(got[1].find("raw part"), std::string::npos) << got[1];
  EXPECT_EQ(got[2], "ok");
  EXPECT_EQ(got[3], "ok");
  EXPECT_EQ(got[4], got[1]);
}

// IoMode::kAuto: the shard files' total size against auto_direct_above
// (default: the available memory) picks direct, else auto_cached_mode;
// a refused O_DIRECT falls back to pread without being asked.
TEST(AutoIoModeTest, PicksDirectOnlyAboveTheThreshold) {
  TempDir dir;
  const Dataset d = WriteDataset(dir.Join("d"), 3, 16388, 32772, 300);
  uint64_t total = 0;
  for (const auto& s : d.shards) total += std::filesystem::file_size(s);
  auto pread = *ShardReader::Open(d.path, ReaderOptions{.io_mode = IoMode::kPread});
  const std::vector<Row> expect = ScanAll(*pread, 0, 300);

  // The default reader is auto; a small dataset stays in the page cache.
  EXPECT_EQ(ReaderOptions{}.io_mode, IoMode::kAuto);
  ASSERT_GT(AvailableMemoryBytes(), total);
  auto def = *ShardReader::Open(d.path);
  EXPECT_EQ(def->total_file_bytes(), total);
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ(def->shard_io_mode(s), IoMode::kPread);

  auto with = [&](uint64_t above, IoMode cached, FileSystem* fs = nullptr) {
    ReaderOptions o;
    o.auto_direct_above = above;
    o.auto_cached_mode = cached;
    o.file_system = fs;
    auto r = ShardReader::Open(d.path, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  };
  // Exactly at the threshold still fits.
  auto at = with(total, IoMode::kMmap);
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ(at->shard_io_mode(s), IoMode::kMmap);
  EXPECT_TRUE(ScanAll(*at, 0, 300) == expect);

  const bool direct_ok = DirectFile::Open(d.path).ok();
  auto above = with(total - 1, IoMode::kMmap);
  for (uint32_t s = 0; s < 3; ++s) {
    EXPECT_EQ(above->shard_io_mode(s), direct_ok ? IoMode::kDirect : IoMode::kPread);
  }
  EXPECT_TRUE(ScanAll(*above, 0, 300) == expect);
  EXPECT_TRUE(*above->ReadRow(123) == expect[123]);

  FaultInjectingFileSystem refusing(FileSystem::Default());
  refusing.RefuseDirect(true);
  auto fell_back = with(1, IoMode::kMmap, &refusing);
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ(fell_back->shard_io_mode(s), IoMode::kPread);
  EXPECT_TRUE(ScanAll(*fell_back, 0, 300) == expect);

  ReaderOptions bad;
  bad.auto_cached_mode = IoMode::kDirect;
  auto refused = ShardReader::Open(d.path, bad);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("auto_cached_mode"), std::string::npos) << refused.status().message();
  ReaderOptions zero = Direct();
  zero.direct_rows_in_flight = 0;
  EXPECT_EQ(ShardReader::Open(d.path, zero).status().code(), StatusCode::kInvalidArgument);
}

TEST(AutoIoModeTest, NamesParseBack) {
  for (IoMode m : {IoMode::kAuto, IoMode::kPread, IoMode::kMmap, IoMode::kDirect}) {
    EXPECT_EQ(*ParseIoMode(IoModeName(m)), m);
  }
  auto bad = ParseIoMode("aio");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"aio\""), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace mindrecord
