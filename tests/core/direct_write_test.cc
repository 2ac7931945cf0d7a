// Direct (O_DIRECT) page writes (WriterOptions::direct_writes): the same
// bytes as buffered writes across page sizes, row sizes, checksums and shard
// counts; the direct path really runs; faults in the middle of it leave no
// dataset; a file system refusing O_DIRECT falls back to buffered writes.
#include <gtest/gtest.h>

#include <filesystem>

#include "mindrecord/file.h"
#include "readers/header_io.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/direct_page_writer.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

Schema DirectWriteSchema() {
  return *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"name":{"type":"string"},"img":{"type":"bytes"}})");
}

// Bytes that differ row to row and are never all zeros.
std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s[i] = static_cast<char>('A' + (x >> 24) % 58);
  }
  return s;
}

// Rows whose raw parts (name) and blob parts (img) vary in size up to the
// given bounds, so pages fill partially and raw row groups move.
std::vector<Row> MixedRows(int n, size_t max_raw, size_t max_blob, uint32_t seed = 1) {
  std::vector<Row> out;
  uint32_t x = seed;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    const size_t raw = 1 + (x >> 8) % max_raw;
    x = x * 1103515245u + 12345u;
    const size_t blob = (x >> 8) % max_blob;
    out.push_back(Row{{"id", Value::Int(i)},
                      {"name", Value::String(Pattern(raw, x))},
                      {"img", Value::Bytes(Pattern(blob, x ^ 0x5555u))}});
  }
  return out;
}

// Writes `rows` in batches of varying size; returns the writer's
// direct_shards() (or -1 on a failure, reported through gtest).
int WriteDirectDataset(const std::string& path, const std::vector<Row>& rows, WriterOptions o) {
  auto w = ShardWriter::Create(path, DirectWriteSchema(), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return -1;
  const int direct = static_cast<int>((*w)->direct_shards());
  static const size_t kBatches[] = {1, 7, 30, 3, 100, 2, 45};
  size_t at = 0;
  for (size_t b = 0; at < rows.size(); ++b) {
    const size_t n = std::min(kBatches[b % 7], rows.size() - at);
    Status st = (*w)->WriteRows(std::vector<Row>(rows.begin() + at, rows.begin() + at + n));
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return -1;
    at += n;
  }
  Status st = (*w)->Commit();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return st.ok() ? direct : -1;
}

// Whether `dir`'s file system takes direct writes.
bool DirectWritesWork(const TempDir& dir) {
  auto f = FileSystem::Default()->OpenWriteDirect(dir.Join(".probe"));
  const bool ok = f.ok() && (*f)->direct_alignment() > 0;
  fs::remove(dir.Join(".probe"));
  return ok;
}

#define MR_SKIP_WITHOUT_DIRECT_WRITES(dir)                                                             \
  do {                                                                                                 \
    if (!DirectWritesWork(dir)) GTEST_SKIP() << (dir).path() << ": the file system refuses O_DIRECT"; \
  } while (0)

// Raw pages holding bytes past their used size: a row group moved off them.
int PagesWithMovedGroups(const std::string& path) {
  auto f = FileSystem::Default()->OpenRead(path);
  if (!f.ok()) return -1;
  auto h = ReadShardHeader(**f, false);
  if (!h.ok()) return -1;
  const std::string bytes = testing::ReadFile(path);
  int n = 0;
  for (const auto& p : h->pages) {
    if (p.is_blob) continue;
    const uint64_t begin = h->PageOffset(p.page_id) + p.used_bytes;
    const uint64_t end = std::min<uint64_t>(h->PageOffset(p.page_id) + h->page_size, bytes.size());
    if (begin < end && bytes.find_first_not_of('\0', begin) < end) ++n;
  }
  return n;
}

struct Layout {
  uint64_t page_size;
  size_t max_raw, max_blob;
  int rows;
};

TEST(DirectWriteTest, SameBytesAsBufferedWrites) {
  TempDir dir;
  MR_SKIP_WITHOUT_DIRECT_WRITES(dir);
  const Layout layouts[] = {
      {kMinPageSize, 3000, 2500, 400},       // small pages: many pages, raw row groups move
      {17 * 4096, 9000, 20000, 300},         // pages not a power of two
      {6 << 20, 200000, 300000, 90},         // pages larger than a chunk (4 MiB)
  };
  int moved = 0;
  for (const Layout& l : layouts) {
    const std::vector<Row> rows = MixedRows(l.rows, l.max_raw, l.max_blob, static_cast<uint32_t>(l.page_size));
    for (uint32_t shards : {1u, 3u}) {
      for (bool checksums : {true, false}) {
        const std::string tag = std::to_string(l.page_size) + "-" + std::to_string(shards) + (checksums ? "-c" : "");
        SCOPED_TRACE(tag);
        WriterOptions o;
        o.direct_writes = true;  // what these tests exercise (the default is buffered)
        o.header_size = kMinHeaderSize;
        o.page_size = l.page_size;
        o.shard_count = shards;
        o.checksums = checksums;
        o.direct_writes = false;
        fs::create_directories(dir.Join("b" + tag));
        fs::create_directories(dir.Join("d" + tag));
        ASSERT_EQ(WriteDirectDataset(dir.Join("b" + tag + "/x"), rows, o), 0);
        o.direct_writes = true;
        ASSERT_EQ(WriteDirectDataset(dir.Join("d" + tag + "/x"), rows, o), static_cast<int>(shards));
        for (const auto& name : ShardFileNames("x", shards)) {
          const std::string b = testing::ReadFile(dir.Join("b" + tag + "/" + name));
          const std::string d = testing::ReadFile(dir.Join("d" + tag + "/" + name));
          EXPECT_EQ(b.size(), d.size()) << name;
          EXPECT_TRUE(b == d) << name << " differs";
          moved += PagesWithMovedGroups(dir.Join("d" + tag + "/" + name));
        }
        auto r = ShardReader::Open(dir.Join("d" + tag + "/" + ShardFileNames("x", shards)[0]));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ((*r)->num_rows(), rows.size());
      }
    }
  }
  EXPECT_GT(moved, 0) << "no raw row group moved: the layouts do not cover ShiftLastRowGroup";
}

// Pages not a multiple of the alignment, and more shards than the memory
// budget allows, stay buffered.
TEST(DirectWriteTest, UnalignedPagesAndManyShardsStayBuffered) {
  TempDir dir;
  MR_SKIP_WITHOUT_DIRECT_WRITES(dir);
  WriterOptions o;
  o.direct_writes = true;  // what these tests exercise (the default is buffered)
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize + 4;
  EXPECT_EQ(WriteDirectDataset(dir.Join("odd"), MixedRows(50, 100, 3000), o), 0);
  o.page_size = kDefaultPageSize;
  o.shard_count = 600;
  auto w = ShardWriter::Create(dir.Join("many"), DirectWriteSchema(), o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ((*w)->direct_shards(), 0u);
}

TEST(DirectWriteTest, DirectPathRuns) {
  TempDir dir;
  MR_SKIP_WITHOUT_DIRECT_WRITES(dir);
  FaultInjectingFileSystem counting(FileSystem::Default());
  WriterOptions o;
  o.direct_writes = true;  // what these tests exercise (the default is buffered)
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.file_system = &counting;
  fs::create_directories(dir.Join("direct"));
  fs::create_directories(dir.Join("buffered"));
  ASSERT_EQ(WriteDirectDataset(dir.Join("direct/x"), MixedRows(200, 500, 4000), o), 1);
  EXPECT_GT(counting.direct_bytes_written(), 200 * 2000);
  o.direct_writes = false;
  const int64_t before = counting.direct_bytes_written();
  ASSERT_EQ(WriteDirectDataset(dir.Join("buffered/x"), MixedRows(200, 500, 4000), o), 0);
  EXPECT_EQ(counting.direct_bytes_written(), before);
  EXPECT_TRUE(testing::ReadFile(dir.Join("direct/x")) == testing::ReadFile(dir.Join("buffered/x")));
}

TEST(DirectWriteTest, RefusedDirectWritesFallBackToBufferedWithTheSameBytes) {
  TempDir dir;
  FaultInjectingFileSystem refusing(FileSystem::Default());
  refusing.RefuseDirect(true);
  WriterOptions o;
  o.direct_writes = true;  // what these tests exercise (the default is buffered)
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;
  o.shard_count = 3;
  o.file_system = &refusing;
  const auto rows = MixedRows(300, 3000, 2500);
  fs::create_directories(dir.Join("refused"));
  fs::create_directories(dir.Join("default"));
  ASSERT_EQ(WriteDirectDataset(dir.Join("refused/x"), rows, o), 0);
  EXPECT_EQ(refusing.direct_bytes_written(), 0);
  o.file_system = nullptr;
  const int direct = WriteDirectDataset(dir.Join("default/x"), rows, o);
  EXPECT_EQ(direct, DirectWritesWork(dir) ? 3 : 0);
  for (const auto& name : ShardFileNames("x", 3)) {
    EXPECT_TRUE(testing::ReadFile(dir.Join("refused/" + name)) == testing::ReadFile(dir.Join("default/" + name)))
        << name;
  }
}

// The disk fills up while chunks are being written in the background: the
// error names the file and no dataset is left, whether it surfaces in
// WriteRows or in Commit, or the writer is dropped without either.
TEST(DirectWriteTest, DiskFullDuringDirectWritesLeavesNoDataset) {
  TempDir probe;
  MR_SKIP_WITHOUT_DIRECT_WRITES(probe);
  for (int64_t budget : {int64_t{0}, int64_t{100000}, int64_t{1000000}}) {
    for (bool commit : {true, false}) {
      SCOPED_TRACE(std::to_string(budget) + (commit ? " commit" : " drop"));
      TempDir dir;
      FaultInjectingFileSystem faulty(FileSystem::Default());
      WriterOptions o;
      o.direct_writes = true;  // what these tests exercise (the default is buffered)
      o.header_size = kMinHeaderSize;
      o.page_size = 256 << 10;
      o.shard_count = 3;
      o.file_system = &faulty;
      auto w = *ShardWriter::Create(dir.Join("f"), DirectWriteSchema(), o);
      ASSERT_EQ(w->direct_shards(), 3u);
      faulty.FailWritesAfterBytes(budget);
      const auto rows = MixedRows(60, 2000, 60000);
      Status st;
      for (int b = 0; b < 6 && st.ok(); ++b) {
        st = w->WriteRows(std::vector<Row>(rows.begin() + b * 10, rows.begin() + b * 10 + 10));
      }
      if (!commit) {
        w.reset();  // joins the I/O thread, removes the temporaries
        EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 0);
        continue;
      }
      if (st.ok()) st = w->Commit();
      ASSERT_FALSE(st.ok());
      EXPECT_EQ(st.code(), StatusCode::kIOError);
      EXPECT_NE(st.message().find("injected"), std::string::npos) << st.message();
      EXPECT_NE(st.message().find(dir.Join("f")), std::string::npos) << st.message();
      EXPECT_FALSE(w->WriteRows(MixedRows(1, 10, 10)).ok()) << "the error sticks";
      w.reset();
      EXPECT_FALSE(ShardReader::Open(dir.Join("f0")).ok());
      EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 0);
    }
  }
}

// DirectPageWriter alone, with chunks much smaller than a page: appends of
// every size across chunk boundaries, a flush in the middle of an open
// page (then continued), and pages left partly filled.
TEST(DirectWriteTest, PageWriterMatchesBufferedWritesAcrossChunks) {
  TempDir dir;
  MR_SKIP_WITHOUT_DIRECT_WRITES(dir);
  const uint64_t header = kMinHeaderSize, page = 64 << 10;
  auto f = *FileSystem::Default()->OpenWriteDirect(dir.Join("direct"));
  auto b = *FileSystem::Default()->OpenWrite(dir.Join("buffered"));
  DirectWriteQueue queue;
  auto w = DirectPageWriter::Create(f.get(), &queue, header, page, 1, 8192);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->chunk_bytes(), 8192u);
  uint64_t fill[2] = {0, 0};
  uint64_t open_page[2] = {0, 1};
  uint64_t next_page = 2;
  uint32_t x = 7;
  for (int i = 0; i < 400; ++i) {
    x = x * 1103515245u + 12345u;
    const int slot = (x >> 4) & 1;
    const size_t n = 1 + (x >> 8) % 5000;
    if (fill[slot] + n > page) {  // a new page of this kind
      open_page[slot] = next_page++;
      fill[slot] = 0;
    }
    const std::string a = Pattern(n / 3, x), c = Pattern(n - n / 3, x + 1);
    ASSERT_TRUE(w->Append(slot, open_page[slot], fill[slot], {a, "", c}).ok());
    ASSERT_TRUE(b->WriteAt(header + open_page[slot] * page + fill[slot], a + c).ok());
    fill[slot] += n;
    if (i == 150) {  // as before a read-back: everything in the file, pages still open
      ASSERT_TRUE(w->Flush().ok());
      const std::string want = testing::ReadFile(dir.Join("buffered"));
      std::string got(want.size(), '\0');
      ASSERT_TRUE(f->ReadAt(0, got.size(), got.data()).ok());
      EXPECT_TRUE(got == want);
    }
  }
  EXPECT_FALSE(w->Append(0, open_page[0], fill[0] + 1, {"x"}).ok()) << "a gap inside a page";
  ASSERT_TRUE(w->Flush().ok());
  const uint64_t end = w->end();
  w.reset();
  ASSERT_TRUE(f->Truncate(end).ok());
  ASSERT_TRUE(f->Close().ok());
  ASSERT_TRUE(b->Close().ok());
  EXPECT_TRUE(testing::ReadFile(dir.Join("direct")) == testing::ReadFile(dir.Join("buffered")));
}

}  // namespace
}  // namespace mindrecord
