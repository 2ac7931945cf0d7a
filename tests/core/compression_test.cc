// Per-row blob compression: every codec x field type x shard count, the
// zstd dictionary, values stored as they are, corrupt data, a missing or
// mismatched dictionary, and the version string MindSpore refuses.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "mindrecord/compression.h"
#include "mindrecord/header.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::TempDir;

const char* kWords[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "mind", "record",
                        "dataset", "shard", "page", "row", "blob", "index"};

std::string Text(std::mt19937_64& rng, size_t n) {
  std::string s;
  while (s.size() < n) {
    s += kWords[rng() % 16];
    s += ' ';
  }
  s.resize(n);
  return s;
}

Schema MultiBlobSchema() {
  std::vector<Field> f(7);
  f[0] = {.name = "id", .type = DataType::kInt64};
  f[1] = {.name = "name", .type = DataType::kString};
  f[2] = {.name = "score", .type = DataType::kFloat64};
  f[3] = {.name = "text", .type = DataType::kBytes};
  f[4] = {.name = "tokens", .type = DataType::kInt32, .has_shape = true, .shape = {-1}};
  f[5] = {.name = "feats", .type = DataType::kFloat32, .has_shape = true, .shape = {-1}};
  f[6] = {.name = "ids", .type = DataType::kInt64, .has_shape = true, .shape = {-1}};
  return *Schema::Make(f, "compression");
}

Schema OneBlobSchema() {
  std::vector<Field> f(2);
  f[0] = {.name = "label", .type = DataType::kInt32};
  f[1] = {.name = "data", .type = DataType::kBytes};
  return *Schema::Make(f, "one blob");
}

std::vector<Row> MultiRows(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  for (size_t i = 0; i < n; ++i) {
    Row r;
    r.Set("id", Value::Int(static_cast<int64_t>(i)));
    r.Set("name", Value::String("row-" + std::to_string(i)));
    r.Set("score", Value::Float(static_cast<double>(i) / 3.0));
    r.Set("text", Value::Bytes(Text(rng, 100 + rng() % 900)));
    std::vector<int32_t> tok(rng() % 200);
    for (auto& t : tok) t = static_cast<int32_t>(rng() % 5000);
    r.Set("tokens", Value::ArrayOf(DataType::kInt32, tok, {static_cast<int64_t>(tok.size())}));
    std::vector<float> fe(rng() % 64);
    for (size_t k = 0; k < fe.size(); ++k) fe[k] = static_cast<float>(k % 8) * 0.5f;
    r.Set("feats", Value::ArrayOf(DataType::kFloat32, fe, {static_cast<int64_t>(fe.size())}));
    std::vector<int64_t> ids(rng() % 10);
    for (auto& x : ids) x = static_cast<int64_t>(rng());
    r.Set("ids", Value::ArrayOf(DataType::kInt64, ids, {static_cast<int64_t>(ids.size())}));
    rows.push_back(std::move(r));
  }
  return rows;
}

CompressionOptions Spec(const std::string& s) { return *ParseCompression(s); }

void Write(const std::string& path, const Schema& schema, const std::vector<Row>& rows, WriterOptions o) {
  auto w = ShardWriter::Create(path, schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (size_t i = 0; i < rows.size(); i += 97) {
    std::vector<Row> batch(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 97));
    ASSERT_TRUE((*w)->WriteRows(batch).ok());
  }
  Status st = (*w)->Commit();
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Global row ids are shard-major; row k of the write stream is in shard k % N.
size_t WrittenIndex(const ShardReader& r, uint64_t id) {
  auto loc = r.Locate(id);
  return static_cast<size_t>(loc->local_row * r.num_shards() + loc->shard);
}

void ExpectSameRows(const std::string& path, const std::vector<Row>& rows, const ReaderOptions& ro = {}) {
  auto r = ShardReader::Open(path, ro);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->num_rows(), rows.size());
  for (size_t i = 0; i < rows.size(); i += 7) {
    auto row = (*r)->ReadRow(i);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    EXPECT_EQ(*row, rows[WrittenIndex(**r, i)]) << "row " << i;
  }
  size_t seen = 0;
  Status st = (*r)->Scan(0, rows.size(), nullptr, [&](uint64_t id, Row&& row) {
    EXPECT_EQ(row, rows[WrittenIndex(**r, id)]) << "row " << id;
    ++seen;
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(seen, rows.size());
}

TEST(CompressionTest, ParsesSpecs) {
  EXPECT_EQ(Spec("none").codec, Codec::kNone);
  EXPECT_EQ(Spec("lz4").codec, Codec::kLz4);
  auto z = Spec("zstd:7+dict");
  EXPECT_EQ(z.codec, Codec::kZstd);
  EXPECT_EQ(z.level, 7);
  EXPECT_TRUE(z.dictionary);
  EXPECT_EQ(CompressionSpec(z), "zstd:7+dict");
  EXPECT_EQ(Spec("zstd").level, 3);
  for (const char* bad : {"gzip", "zstd:0", "zstd:99", "zstd:x", "lz4+dict", "zstd:3+dic"}) {
    EXPECT_FALSE(ParseCompression(bad).ok()) << bad;
  }
  EXPECT_TRUE(LooksCompressed("\xFF\xD8\xFF\xE0"));
  EXPECT_TRUE(LooksCompressed("\x89PNG\r\n"));
  EXPECT_FALSE(LooksCompressed("plain text"));
}

class CodecRoundTrip : public ::testing::TestWithParam<std::tuple<const char*, uint32_t>> {};

TEST_P(CodecRoundTrip, EveryTypeReadsBack) {
  const auto [spec, shards] = GetParam();
  TempDir tmp;
  const auto rows = MultiRows(600, 1);
  WriterOptions o;
  o.shard_count = shards;
  o.page_size = 64 * kKiB;
  o.header_size = 256 * kKiB;
  o.compression = Spec(spec);
  const std::string path = tmp.Join("multi");
  Write(path, MultiBlobSchema(), rows, o);
  ExpectSameRows(ShardFileNames(path, shards)[0], rows);
  ExpectSameRows(ShardFileNames(path, shards)[0], rows, {.io_mode = IoMode::kMmap});

  auto r = ShardReader::Open(ShardFileNames(path, shards)[0]);
  ASSERT_TRUE(r.ok());
  const CompressionOptions c = Spec(spec);
  EXPECT_EQ((*r)->version(), CompressedVersion(c.codec));
  const ShardHeader& h = (*r)->header(0);
  if (c.enabled()) {
    EXPECT_NE((*r)->version(), "3.0");
    EXPECT_NE((*r)->version(), "2.0");
    const auto& j = h.extra.at(kCompressionKey);
    EXPECT_LT(j["stored_bytes"].get<uint64_t>(), j["raw_bytes"].get<uint64_t>());
    EXPECT_EQ(j.contains("dictionary"), c.dictionary);
    EXPECT_EQ(CompressionSpec(CompressionFromHeader(h)), CompressionSpec(c));
  } else {
    EXPECT_FALSE(h.extra.contains(kCompressionKey));
  }
  // Projections skip blobs; a blob-only projection decompresses.
  auto proj = (*r)->MakeProjection({"tokens"});
  ASSERT_TRUE(proj.ok());
  auto row = (*r)->ReadRow(5, &*proj);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->Get("tokens"), rows[WrittenIndex(**r, 5)].Get("tokens"));
  // Concurrent readers share the decompressor.
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = t; i < rows.size(); i += 4) {
        auto x = (*r)->ReadRow(i);
        if (!x.ok() || !(*x == rows[WrittenIndex(**r, i)])) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CodecRoundTrip,
                         ::testing::Combine(::testing::Values("none", "lz4", "zstd:3", "zstd:3+dict", "zstd:19"),
                                            ::testing::Values(1u, 3u)));

TEST(CompressionTest, SingleBlobFieldAndNoBlobFields) {
  TempDir tmp;
  std::mt19937_64 rng(2);
  std::vector<Row> rows;
  for (int i = 0; i < 50; ++i) {
    Row r;
    r.Set("label", Value::Int(i));
    r.Set("data", Value::Bytes(i % 5 == 0 ? std::string() : Text(rng, 300)));
    rows.push_back(r);
  }
  for (const char* spec : {"lz4", "zstd:1+dict"}) {
    WriterOptions o;
    o.compression = Spec(spec);
    o.header_size = 64 * kKiB;
    o.page_size = 64 * kKiB;
    o.overwrite = true;
    Write(tmp.Join("one"), OneBlobSchema(), rows, o);
    ExpectSameRows(tmp.Join("one"), rows);
    // No blob fields: the dummy blob part stays as it is.
    std::vector<Field> f(1);
    f[0] = {.name = "n", .type = DataType::kInt64};
    std::vector<Row> plain(10);
    for (int i = 0; i < 10; ++i) plain[i].Set("n", Value::Int(i));
    Write(tmp.Join("noblob"), *Schema::Make(f), plain, o);
    ExpectSameRows(tmp.Join("noblob"), plain);
  }
}

TEST(CompressionTest, IncompressibleAndImageValuesAreStoredAsTheyAre) {
  TempDir tmp;
  std::mt19937_64 rng(3);
  std::vector<Row> rows;
  uint64_t raw = 0;
  for (int i = 0; i < 60; ++i) {
    std::string v;
    if (i % 3 == 0) v = std::string("\xFF\xD8\xFF\xE0", 4) + std::string(2000, 'a');     // JPEG-looking
    if (i % 3 == 1) v = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(2000, 'b');    // PNG-looking
    if (i % 3 == 2) {
      v.resize(1500);
      for (auto& c : v) c = static_cast<char>(rng());  // incompressible
    }
    raw += v.size();
    Row r;
    r.Set("label", Value::Int(i));
    r.Set("data", Value::Bytes(v));
    rows.push_back(r);
  }
  for (const char* spec : {"lz4", "zstd:3", "zstd:3+dict"}) {
    WriterOptions o;
    o.compression = Spec(spec);
    o.overwrite = true;
    o.header_size = 256 * kKiB;
    o.page_size = 256 * kKiB;
    Write(tmp.Join("img"), OneBlobSchema(), rows, o);
    ExpectSameRows(tmp.Join("img"), rows);
    auto r = ShardReader::Open(tmp.Join("img"));
    ASSERT_TRUE(r.ok());
    const auto& j = (*r)->header(0).extra.at(kCompressionKey);
    EXPECT_EQ(j["raw_bytes"].get<uint64_t>(), raw) << spec;
    if (Spec(spec).dictionary) {
      // A dictionary trained on these very values holds pieces of the random
      // ones; only the image-looking values are sure to stay as they are.
      EXPECT_GE(j["stored_bytes"].get<uint64_t>(), 40 * 2006u) << spec;
    } else {
      EXPECT_EQ(j["stored_bytes"].get<uint64_t>(), raw + rows.size()) << spec << ": one tag byte per value";
    }
  }
}

// Shard file bytes <-> header JSON, for tests that edit the header.
nlohmann::json ReadHeaderJson(const std::string& path) {
  std::string bytes = testing::ReadFile(path);
  uint64_t len;
  std::memcpy(&len, bytes.data(), 8);
  return nlohmann::json::parse(bytes.substr(8, len));
}

void WriteHeaderJson(const std::string& path, const nlohmann::json& j) {
  std::string bytes = testing::ReadFile(path);
  uint64_t old_len;
  std::memcpy(&old_len, bytes.data(), 8);
  std::string text = j.dump();
  ASSERT_LE(text.size() + 8, 64 * kKiB);
  std::fill(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(std::max<uint64_t>(old_len, text.size())), '\0');
  uint64_t len = text.size();
  std::memcpy(bytes.data(), &len, 8);
  std::memcpy(bytes.data() + 8, text.data(), text.size());
  testing::WriteFile(path, bytes);
}

TEST(CompressionTest, CorruptCompressedDataIsAnError) {
  TempDir tmp;
  const auto rows = MultiRows(40, 4);
  std::vector<Row> one;
  for (const auto& r : rows) {
    Row x;
    x.Set("label", r.Get("id"));
    x.Set("data", r.Get("text"));
    one.push_back(x);
  }
  struct Case {
    const char* spec;
    size_t offset;  // into row 0's blob value (after the tag byte at 0)
    char value;
    const char* message;
  };
  for (const Case& c : {Case{"zstd:3", 0, 7, "unknown tag 7"}, Case{"zstd:3", 1, 0x11, "no valid frame header"},
                        Case{"lz4", 0, 2, "zstd value in an LZ4 dataset"}, Case{"lz4", 4, 0x7f, "LZ4 value"},
                        Case{"zstd:3", 9, 0x55, "zstd value"}}) {
    WriterOptions o;
    o.compression = Spec(c.spec);
    o.checksums = false;
    o.overwrite = true;
    o.header_size = 64 * kKiB;
    o.page_size = 64 * kKiB;
    const std::string path = tmp.Join("bad");
    Write(path, OneBlobSchema(), one, o);
    auto r0 = ShardReader::Open(path);
    ASSERT_TRUE(r0.ok());
    uint64_t at = 0;
    for (const auto& p : (*r0)->header(0).pages) {
      if (p.is_blob) {
        at = (*r0)->header(0).PageOffset(p.page_id) + kLengthPrefix;
        break;
      }
    }
    r0->reset();
    std::string bytes = testing::ReadFile(path);
    bytes[at + c.offset] = c.value;
    testing::WriteFile(path, bytes);
    auto r = ShardReader::Open(path);
    ASSERT_TRUE(r.ok());
    auto row = (*r)->ReadRow(0);
    ASSERT_FALSE(row.ok()) << c.spec << " offset " << c.offset;
    EXPECT_EQ(row.status().code(), StatusCode::kCorruption);
    EXPECT_NE(row.status().message().find(c.message), std::string::npos) << row.status().ToString();
    EXPECT_NE(row.status().message().find(path), std::string::npos) << row.status().ToString();
    auto enc = (*r)->ReadEncoded(0);
    EXPECT_FALSE(enc.ok());
    auto next = (*r)->ReadRow(1);
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(*next, one[1]);
  }
}

TEST(CompressionTest, MissingOrMismatchedDictionaryIsDetected) {
  TempDir tmp;
  WriterOptions o;
  o.compression = Spec("zstd:3+dict");
  o.checksums = false;
  o.header_size = 256 * kKiB;
  o.page_size = 256 * kKiB;
  const auto rows = MultiRows(300, 5);
  Write(tmp.Join("a"), MultiBlobSchema(), rows, o);
  // A second dataset with different data: a different dictionary.
  std::vector<Row> other = MultiRows(300, 6);
  for (auto& r : other) r.Set("text", Value::Bytes(std::string(400, 'q') + r.Get("name").bytes() + "zzzz xyzzy"));
  Write(tmp.Join("b"), MultiBlobSchema(), other, o);
  const auto a = ReadHeaderJson(tmp.Join("a"));
  const auto b = ReadHeaderJson(tmp.Join("b"));
  ASSERT_NE(a[kCompressionKey]["dict_id"], 0);
  ASSERT_NE(a[kCompressionKey]["dict_id"], b[kCompressionKey]["dict_id"]);

  auto expect_open_fails = [&](const nlohmann::json& h, const std::string& what) {
    WriteHeaderJson(tmp.Join("a"), h);
    auto r = ShardReader::Open(tmp.Join("a"));
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
  };
  auto h = a;
  h[kCompressionKey].erase("dictionary");
  expect_open_fails(h, "dictionary " + a[kCompressionKey]["dict_id"].dump() + " is missing");
  h = a;
  h[kCompressionKey]["dict_id"] = 12345;
  expect_open_fails(h, "the header says 12345");
  h = a;
  h.erase(kCompressionKey);
  expect_open_fails(h, "header has no");

  // b's dictionary in a's header: rows were compressed with another one.
  h = a;
  h[kCompressionKey]["dictionary"] = b[kCompressionKey]["dictionary"];
  h[kCompressionKey]["dict_id"] = b[kCompressionKey]["dict_id"];
  WriteHeaderJson(tmp.Join("a"), h);
  auto r = ShardReader::Open(tmp.Join("a"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto row = (*r)->ReadRow(0);
  ASSERT_FALSE(row.ok());
  EXPECT_NE(row.status().message().find("compressed with dictionary " + a[kCompressionKey]["dict_id"].dump()),
            std::string::npos)
      << row.status().ToString();

  WriteHeaderJson(tmp.Join("a"), a);
  ExpectSameRows(tmp.Join("a"), rows);
}

TEST(CompressionTest, VersionStringIsOneMindSporeRefuses) {
  EXPECT_EQ(CompressedVersion(Codec::kZstd), "3.0+mr-zstd");
  EXPECT_EQ(CompressedVersion(Codec::kLz4), "3.0+mr-lz4");
  TempDir tmp;
  WriterOptions o;
  o.compression = Spec("lz4");
  o.checksums = false;
  o.header_size = 64 * kKiB;
  o.page_size = 64 * kKiB;
  Row one;
  one.Set("label", Value::Int(1));
  one.Set("data", Value::Bytes(std::string(100, 'x')));
  Write(tmp.Join("v"), OneBlobSchema(), {one}, o);
  auto h = ReadHeaderJson(tmp.Join("v"));
  EXPECT_EQ(h["version"], "3.0+mr-lz4");
  // Only our compressed version strings are new: others are still refused.
  for (const char* v : {"3.0+mr-brotli", "3.1", "4.0+mr-zstd"}) {
    h["version"] = v;
    WriteHeaderJson(tmp.Join("v"), h);
    auto r = ShardReader::Open(tmp.Join("v"));
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.status().code(), StatusCode::kNotSupported) << r.status().ToString();
  }
  // Compression needs the 3.0 layout.
  o.format_version = kVersion2;
  EXPECT_FALSE(ShardWriter::Create(tmp.Join("v2"), OneBlobSchema(), o).ok());
}

}  // namespace
}  // namespace mindrecord
