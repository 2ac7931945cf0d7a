// InflateScan and InflatedFile (mindrecord/inflated_file.h): the
// decompressed bytes of gzip and zlib files read by position, from access
// points and cursors, the same as inflating the whole stream.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <thread>

#include "mindrecord/inflated_file.h"
#include "tests/fuzz/mem_file.h"

namespace mindrecord {
namespace {

// `data` deflated with zlib's or gzip's wrapper, in one stream.
std::string Deflate(const std::string& data, StreamCompression c, int level = 6) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, c == StreamCompression::kGzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Random bytes and runs of text: both stored and compressed blocks.
std::string Data(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) {
    if (rng() % 2) {
      for (int i = 0; i < 3000; ++i) s.push_back(static_cast<char>(rng()));
    } else {
      s += "record " + std::to_string(rng() % 1000) + " of a run of text that repeats; ";
    }
  }
  s.resize(n);
  return s;
}

struct Scanned {
  std::string seen;
  std::shared_ptr<const InflateIndex> index;
};

Scanned Scan(const RandomAccessFile& f, StreamCompression c, InflateScanOptions o = {}) {
  Scanned s;
  auto index = InflateScan(f, c, [&](const char* p, size_t n) {
    EXPECT_LE(n, 32768u);
    s.seen.append(p, n);
    return Status::OK();
  }, o);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  if (index.ok()) s.index = *index;
  return s;
}

// `bytes` of Data(seed) deflated at `level`, held in memory as file `path`,
// and scanned with points at least `span` apart.
struct Indexed {
  std::string data, z;
  std::shared_ptr<fuzz::MemFile> raw;
  Scanned s;
};
std::unique_ptr<Indexed> MakeIndexed(StreamCompression c, size_t bytes, uint32_t seed, int level, uint64_t span,
                                     const std::string& path) {
  auto f = std::make_unique<Indexed>();
  f->data = Data(bytes, seed);
  f->z = Deflate(f->data, c, level);
  f->raw = std::make_shared<fuzz::MemFile>(f->z, path);
  InflateScanOptions o;
  o.span = span;
  f->s = Scan(*f->raw, c, o);
  return f;
}

class InflatedFileTest : public ::testing::TestWithParam<StreamCompression> {};

TEST_P(InflatedFileTest, ReadsAnyRangeAsTheWholeStreamInflates) {
  const StreamCompression c = GetParam();
  const std::string data = Data(5 << 20, 1);
  const std::string z = Deflate(data, c);
  auto raw = std::make_shared<fuzz::MemFile>(z, "/data/a.tfrecord");
  InflateScanOptions o;
  o.span = 64 << 10;
  o.max_points = 16;  // 80 points at this span: thinned three times
  Scanned s = Scan(*raw, c, o);
  ASSERT_TRUE(s.index);
  EXPECT_EQ(s.seen, data);
  EXPECT_EQ(s.index->size, data.size());
  EXPECT_LE(s.index->points.size(), 16u);
  EXPECT_GE(s.index->points.size(), 8u);
  EXPECT_EQ(s.index->span, uint64_t{64 << 10} * 8);
  EXPECT_LE(s.index->bytes(), 16u * (32768 + 256));
  for (size_t i = 1; i < s.index->points.size(); ++i) EXPECT_GE(s.index->points[i].out - s.index->points[i - 1].out, o.span);

  InflatedFile file(raw, s.index);
  EXPECT_EQ(file.size(), data.size());
  EXPECT_EQ(file.path(), "/data/a.tfrecord");
  std::mt19937 rng(7);
  std::string buf;
  // In order (cursors continued), then random ranges (points and cursors).
  for (size_t at = 0; at < data.size(); at += 100000) {
    const size_t n = std::min<size_t>(100000, data.size() - at);
    buf.assign(n, '\0');
    ASSERT_TRUE(file.ReadAt(at, n, buf.data()).ok());
    ASSERT_EQ(buf, data.substr(at, n)) << at;
  }
  for (int i = 0; i < 200; ++i) {
    const size_t at = rng() % data.size(), n = std::min<size_t>(rng() % 70000, data.size() - at);
    buf.assign(n, '\0');
    ASSERT_TRUE(file.ReadAt(at, n, buf.data()).ok());
    ASSERT_EQ(buf, data.substr(at, n)) << at << " " << n;
  }
  // Past the end: an error naming the file.
  Status st = file.ReadAt(data.size() - 3, 4, buf.data());
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("/data/a.tfrecord"), std::string::npos) << st.ToString();
}

TEST_P(InflatedFileTest, ThreadsReadingAtOnceGetTheirOwnBytes) {
  auto f = MakeIndexed(GetParam(), 3 << 20, 2, 1, 128 << 10, "t");
  ASSERT_TRUE(f->s.index);
  const std::string& data = f->data;
  InflatedFile file(f->raw, f->s.index);
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::string buf;
      for (int i = 0; i < 60; ++i) {
        // Half in order from the thread's own start, half anywhere.
        const size_t at = i % 2 ? rng() % data.size() : (t * data.size() / 4 + i * 4000) % data.size();
        const size_t n = std::min<size_t>(4000, data.size() - at);
        buf.assign(n, '\0');
        if (!file.ReadAt(at, n, buf.data()).ok() || buf != data.substr(at, n)) ++bad[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad, std::vector<int>(4, 0));
}

TEST_P(InflatedFileTest, SegmentsTooLargeToKeepAreInflatedFromTheNearestPointOrCursor) {
  auto f = MakeIndexed(GetParam(), 13 << 20, 6, 1, kMaxCachedSegment + 1, "big");
  ASSERT_TRUE(f->s.index);
  const std::string& data = f->data;
  const Scanned& s = f->s;
  ASSERT_GE(s.index->points.size(), 2u);
  InflatedFile file(f->raw, s.index);
  std::mt19937 rng(9);
  std::string buf;
  for (int i = 0; i < 40; ++i) {
    // Ranges in order within a segment (a cursor continued), then anywhere.
    const size_t at = i < 20 ? (s.index->points[1].out + i * 10000) : rng() % data.size();
    const size_t n = std::min<size_t>(i % 3 == 0 ? 300000 : 9000, data.size() - at);
    buf.assign(n, '\0');
    ASSERT_TRUE(file.ReadAt(at, n, buf.data()).ok());
    ASSERT_EQ(buf, data.substr(at, n)) << at << " " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Both, InflatedFileTest, ::testing::Values(StreamCompression::kGzip, StreamCompression::kZlib),
                         [](const auto& info) { return std::string(StreamCompressionName(info.param)); });

TEST(InflateScanTest, GzipMembersReadOneAfterAnother) {
  const std::string a = Data(700 << 10, 3), b = Data(900 << 10, 4), e;
  const std::string z = Deflate(a, StreamCompression::kGzip) + Deflate(e, StreamCompression::kGzip) + Deflate(b, StreamCompression::kGzip);
  auto raw = std::make_shared<fuzz::MemFile>(z, "m.gz");
  InflateScanOptions o;
  o.span = 100 << 10;
  Scanned s = Scan(*raw, StreamCompression::kGzip, o);
  ASSERT_TRUE(s.index);
  ASSERT_EQ(s.seen, a + b);
  InflatedFile file(raw, s.index);
  // Ranges across the member boundary, from before it (a cursor crossing the
  // trailer and the next header) and from points in each member.
  for (size_t at : {size_t{0}, a.size() - 5000, a.size() - 1, a.size(), a.size() + 1, a.size() + b.size() - 10}) {
    const size_t n = std::min<size_t>(20000, a.size() + b.size() - at);
    std::string buf(n, '\0');
    ASSERT_TRUE(file.ReadAt(at, n, buf.data()).ok()) << at;
    EXPECT_EQ(buf, (a + b).substr(at, n)) << at;
  }
  std::string all(a.size() + b.size(), '\0');
  ASSERT_TRUE(file.ReadAt(0, all.size(), all.data()).ok());
  EXPECT_EQ(all, a + b);
}

TEST(InflateScanTest, DamagedTruncatedOrMislabelledStreamsAreErrorsNamingTheFileAndOffset) {
  const std::string data = Data(400 << 10, 5);
  const std::string gz = Deflate(data, StreamCompression::kGzip), zl = Deflate(data, StreamCompression::kZlib);
  auto fails = [](const std::string& bytes, StreamCompression c, const std::string& says) {
    fuzz::MemFile f(bytes, "/x/f.tfrecord.gz");
    auto r = InflateScan(f, c, [](const char*, size_t) { return Status::OK(); });
    ASSERT_FALSE(r.ok()) << says;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
    EXPECT_NE(r.status().message().find("/x/f.tfrecord.gz: the "), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find("compressed byte"), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().ToString();
  };
  fails(gz.substr(0, gz.size() - 9), StreamCompression::kGzip, "truncated");
  fails(zl.substr(0, zl.size() / 2), StreamCompression::kZlib, "truncated");
  fails("", StreamCompression::kGzip, "empty");
  fails(gz, StreamCompression::kZlib, "damaged");  // a gzip file read as zlib
  fails(zl, StreamCompression::kGzip, "damaged");
  fails(zl + "xyz", StreamCompression::kZlib, "3 bytes follow the end");
  fails(gz + "xyz", StreamCompression::kGzip, "damaged");  // not another member
  std::string flipped = gz;
  flipped[gz.size() - 6] ^= 1;  // the length in the trailer
  fails(flipped, StreamCompression::kGzip, "damaged");
  flipped = zl;
  flipped[zl.size() - 2] ^= 1;  // the Adler-32
  fails(flipped, StreamCompression::kZlib, "damaged");
  // A sink's error stops the pass and is returned.
  fuzz::MemFile f(gz, "g");
  auto r = InflateScan(f, StreamCompression::kGzip, [](const char*, size_t) { return Status::Cancelled("enough"); });
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_FALSE(InflateScan(f, StreamCompression::kNone, [](const char*, size_t) { return Status::OK(); }).ok());
}

TEST(InflateScanTest, ParseCompressionNamesWhatItRefuses) {
  EXPECT_EQ(*ParseStreamCompression(""), StreamCompression::kNone);
  EXPECT_EQ(*ParseStreamCompression("GZIP"), StreamCompression::kGzip);
  EXPECT_EQ(*ParseStreamCompression("zlib"), StreamCompression::kZlib);
  auto r = ParseStreamCompression("lz4");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'lz4'"), std::string::npos);
}

}  // namespace
}  // namespace mindrecord
