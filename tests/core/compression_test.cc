// Per-row blob compression: every codec x field type x shard count, the
// zstd dictionary, raw parts (+raw), values stored as they are, corrupt data,
// a missing or mismatched dictionary, frames written by earlier versions, the
// compact index, and the version string MindSpore refuses.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zdict.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "mindrecord/compression.h"
#include "mindrecord/header.h"
#include "mindrecord/row_codec.h"
#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "tests/util/placement.h"
#include "tests/util/test_util.h"
#include "writers/index_rebuild.h"
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

void WriteCompressed(const std::string& path, const Schema& schema, const std::vector<Row>& rows, WriterOptions o) {
  auto w = ShardWriter::Create(path, schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (size_t i = 0; i < rows.size(); i += 97) {
    std::vector<Row> batch(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 97));
    ASSERT_TRUE((*w)->WriteRows(batch).ok());
  }
  Status st = (*w)->Commit();
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// The written index of global row `id` of `total` rows written by WriteCompressed()
// (calls of 97 rows; see testing::BlockPlacementOrder).
size_t WrittenIndex(const ShardReader& r, uint64_t id) {
  return testing::BlockPlacementOrder(testing::EqualBatches(r.num_rows(), 97), r.num_shards())[id];
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
  EXPECT_FALSE(z.raw);
  auto zr = Spec("zstd:5+dict+raw");
  EXPECT_TRUE(zr.raw && zr.dictionary);
  EXPECT_EQ(zr.level, 5);
  EXPECT_EQ(CompressionSpec(zr), "zstd:5+dict+raw");
  EXPECT_EQ(CompressionSpec(Spec("lz4+raw")), "lz4+raw");
  EXPECT_EQ(CompressionSpec(Spec("zstd+raw")), "zstd:3+raw");
  for (const char* bad : {"gzip", "zstd:0", "zstd:99", "zstd:x", "lz4+dict", "zstd:3+dic", "none+raw", "+raw", "raw",
                          "zstd:3+raw+dict", "lz4+raw+raw"}) {
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
  WriteCompressed(path, MultiBlobSchema(), rows, o);
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
                         ::testing::Combine(::testing::Values("none", "lz4", "zstd:3", "zstd:3+dict", "zstd:19", "lz4+raw",
                                                              "zstd:3+dict+raw"),
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
    WriteCompressed(tmp.Join("one"), OneBlobSchema(), rows, o);
    ExpectSameRows(tmp.Join("one"), rows);
    // No blob fields: the dummy blob part stays as it is.
    std::vector<Field> f(1);
    f[0] = {.name = "n", .type = DataType::kInt64};
    std::vector<Row> plain(10);
    for (int i = 0; i < 10; ++i) plain[i].Set("n", Value::Int(i));
    WriteCompressed(tmp.Join("noblob"), *Schema::Make(f), plain, o);
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
    WriteCompressed(tmp.Join("img"), OneBlobSchema(), rows, o);
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
    WriteCompressed(path, OneBlobSchema(), one, o);
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
  WriteCompressed(tmp.Join("a"), MultiBlobSchema(), rows, o);
  // A second dataset with different data: a different dictionary.
  std::vector<Row> other = MultiRows(300, 6);
  for (auto& r : other) r.Set("text", Value::Bytes(std::string(400, 'q') + r.Get("name").bytes() + "zzzz xyzzy"));
  WriteCompressed(tmp.Join("b"), MultiBlobSchema(), other, o);
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
  WriteCompressed(tmp.Join("v"), OneBlobSchema(), {one}, o);
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

// A schema whose bulk is in the raw part: a long string field.
Schema TextRawSchema() {
  std::vector<Field> f(3);
  f[0] = {.name = "id", .type = DataType::kInt64};
  f[1] = {.name = "body", .type = DataType::kString};
  f[2] = {.name = "data", .type = DataType::kBytes};
  return *Schema::Make(f, "text in the raw part");
}

std::vector<Row> TextRawRows(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  for (size_t i = 0; i < n; ++i) {
    Row r;
    r.Set("id", Value::Int(static_cast<int64_t>(i)));
    r.Set("body", Value::String(i % 9 == 0 ? "short" : Text(rng, 200 + rng() % 600)));
    r.Set("data", Value::Bytes(Text(rng, 50)));
    rows.push_back(std::move(r));
  }
  return rows;
}

uint64_t RawPageBytes(const std::string& path) {
  auto r = ShardReader::Open(path);
  uint64_t n = 0;
  for (uint32_t s = 0; s < (*r)->num_shards(); ++s) {
    for (const auto& p : (*r)->header(s).pages) n += p.is_blob ? 0 : p.used_bytes;
  }
  return n;
}

TEST(CompressionTest, RawPartsAreCompressedWithRaw) {
  TempDir tmp;
  const auto rows = TextRawRows(400, 9);
  WriterOptions o;
  o.header_size = 256 * kKiB;
  o.page_size = 64 * kKiB;
  o.shard_count = 2;
  o.compression = Spec("zstd:3+dict");
  WriteCompressed(tmp.Join("blob_only"), TextRawSchema(), rows, o);
  o.compression = Spec("zstd:3+dict+raw");
  WriteCompressed(tmp.Join("raw_too"), TextRawSchema(), rows, o);
  o.compression = Spec("none");
  o.checksums = false;
  std::filesystem::create_directories(tmp.Join("plain"));
  std::filesystem::create_directories(tmp.Join("copied"));
  WriteCompressed(tmp.Join("plain/x"), TextRawSchema(), rows, o);

  const std::string first = ShardFileNames(tmp.Join("raw_too"), 2)[0];
  ExpectSameRows(first, rows);
  ExpectSameRows(first, rows, {.io_mode = IoMode::kMmap});
  // The text is in the raw part: only +raw shrinks it.
  const uint64_t blob_only = RawPageBytes(ShardFileNames(tmp.Join("blob_only"), 2)[0]);
  const uint64_t raw_too = RawPageBytes(first);
  EXPECT_LT(raw_too * 2, blob_only) << raw_too << " vs " << blob_only;
  auto r = ShardReader::Open(first);
  ASSERT_TRUE(r.ok());
  const auto& j = (*r)->header(0).extra.at(kCompressionKey);
  EXPECT_EQ(j["raw"], true);
  EXPECT_EQ(CompressionSpec(CompressionFromHeader((*r)->header(0))), "zstd:3+dict+raw");
  // Index values come from the compressed raw part: id k is the row written k-th.
  auto groups = (*r)->GroupByIndexField("id");
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  ASSERT_EQ(groups->size(), rows.size());
  for (const auto& [value, ids] : *groups) {
    ASSERT_EQ(ids.size(), 1u);
    EXPECT_EQ(rows[WrittenIndex(**r, ids[0])].Get("id"), value);
  }
  // Projections of raw fields only, and of blob fields only.
  auto body = (*r)->MakeProjection({"body"});
  auto data = (*r)->MakeProjection({"data"});
  ASSERT_TRUE(body.ok() && data.ok());
  const Row& want = rows[WrittenIndex(**r, 5)];
  EXPECT_EQ((*r)->ReadRow(5, &*body)->Get("body"), want.Get("body"));
  EXPECT_EQ((*r)->ReadRow(5, &*data)->Get("data"), want.Get("data"));

  // Encoded rows come back as plain msgpack: rewritten uncompressed they give
  // MindSpore's bytes.
  {
    WriterOptions p;
    p.header_size = 256 * kKiB;
    p.page_size = 64 * kKiB;
    p.shard_count = 2;
    p.checksums = false;
    auto w = ShardWriter::Create(tmp.Join("copied/x"), TextRawSchema(), p);
    ASSERT_TRUE(w.ok());
    std::vector<EncodedRow> enc(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      // WriteCompressed-stream order: the global id whose written index is k.
      const auto order = testing::BlockPlacementOrder(testing::EqualBatches(rows.size(), 97), 2);
      const uint64_t id = std::find(order.begin(), order.end(), k) - order.begin();
      auto e = (*r)->ReadEncoded(id);
      ASSERT_TRUE(e.ok()) << e.status().ToString();
      enc[k] = std::move(*e);
    }
    for (size_t i = 0; i < enc.size(); i += 97) {  // the batches WriteCompressed() used
      std::vector<EncodedRow> batch(std::make_move_iterator(enc.begin() + i),
                                    std::make_move_iterator(enc.begin() + std::min(enc.size(), i + 97)));
      ASSERT_TRUE((*w)->WriteEncoded(std::move(batch)).ok());
    }
    ASSERT_TRUE((*w)->Commit().ok());
    for (int s = 0; s < 2; ++s) {
      EXPECT_TRUE(testing::ReadFile(ShardFileNames(tmp.Join("copied/x"), 2)[s]) ==
                  testing::ReadFile(ShardFileNames(tmp.Join("plain/x"), 2)[s]))
          << "shard " << s;
    }
  }

  // verify --deep decodes every row; a rebuilt index equals the written one.
  VerifyReport rep = Verify(first, {.deep = true});
  EXPECT_TRUE(rep.ok()) << rep.ToJson().dump();
  EXPECT_EQ(rep.rows_decoded, rows.size());
  const std::string db0 = testing::ReadFile(first + ".db");
  auto rebuilt = RebuildIndex(first, /*force=*/true);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  ExpectSameRows(first, rows);
  auto again = ShardReader::Open(first);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->GroupByIndexField("id"), *groups);
  EXPECT_EQ(testing::ReadFile(first + ".db"), db0);
}

TEST(CompressionTest, CorruptCompressedRawPartIsAnError) {
  TempDir tmp;
  const auto rows = TextRawRows(30, 10);
  WriterOptions o;
  o.compression = Spec("zstd:3+raw");
  o.checksums = false;
  o.header_size = 64 * kKiB;
  o.page_size = 64 * kKiB;
  const std::string path = tmp.Join("bad");
  WriteCompressed(path, TextRawSchema(), rows, o);
  uint64_t at = 0;
  {
    auto r = ShardReader::Open(path);
    ASSERT_TRUE(r.ok());
    for (const auto& p : (*r)->header(0).pages) {
      if (!p.is_blob) {
        at = (*r)->header(0).PageOffset(p.page_id) + kLengthPrefix;  // row 0's tag byte
        break;
      }
    }
  }
  std::string bytes = testing::ReadFile(path);
  // Row 0's raw part is tiny (stored, tag 0); row 1's follows it.
  uint64_t len0 = 0;  // little-endian length prefix
  std::memcpy(&len0, bytes.data() + at - kLengthPrefix, 8);
  ASSERT_LT(len0, 64u);
  const uint64_t row1 = at + len0 + kLengthPrefix;
  ASSERT_EQ(bytes[at], '\0') << "row 0's raw part is stored as it is";
  ASSERT_EQ(bytes[row1], '\3') << "row 1's raw part is a compact zstd frame";
  bytes[row1 + 6] ^= 0x5a;
  testing::WriteFile(path, bytes);
  auto r = ShardReader::Open(path);
  ASSERT_TRUE(r.ok());
  auto row = (*r)->ReadRow(1);
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().code(), StatusCode::kCorruption) << row.status().ToString();
  EXPECT_NE(row.status().message().find("raw part"), std::string::npos) << row.status().ToString();
  EXPECT_NE(row.status().message().find(path), std::string::npos) << row.status().ToString();
  EXPECT_FALSE((*r)->ReadEncoded(1).ok());
  ASSERT_TRUE((*r)->ReadRow(0).ok());
  EXPECT_FALSE(Verify(path, {.deep = true}).ok());
}

// Values written by earlier versions (tag 2: standard zstd frames with magic
// number and 4-byte dictionary id) still read.
TEST(CompressionTest, StandardZstdFramesOfEarlierVersionsStillRead) {
  std::mt19937_64 rng(12);
  std::vector<std::string> samples;
  for (int i = 0; i < 400; ++i) samples.push_back(Text(rng, 300));
  const std::string dict = BlobCompressor::TrainDictionary(samples, 16 * kKiB);
  ASSERT_FALSE(dict.empty());
  // Trained ids fit the 2-byte frame field.
  const uint32_t id = ZDICT_getDictID(dict.data(), dict.size());
  EXPECT_GE(id, 32768u);
  EXPECT_LT(id, 65536u);
  const Schema schema = OneBlobSchema();
  const RowCodec codec(&schema, kVersion3);
  const std::string value = Text(rng, 500);
  for (bool with_dict : {false, true}) {
    CompressionOptions o = Spec(with_dict ? "zstd:3+dict" : "zstd:3");
    auto c = BlobCompressor::Create(o, with_dict ? dict : "");
    ASSERT_TRUE(c.ok());
    ShardHeader h;
    h.version = kVersion3Zstd;
    h.schema = schema;
    h.extra[kCompressionKey] = (*c)->HeaderJson();
    auto d = BlobDecompressor::FromHeader(h, "legacy");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    std::string frame(ZSTD_compressBound(value.size()), '\0');
    ZSTD_CCtx* ctx = ZSTD_createCCtx();
    size_t n = with_dict ? ZSTD_compress_usingDict(ctx, frame.data(), frame.size(), value.data(), value.size(),
                                                   dict.data(), dict.size(), 3)
                         : ZSTD_compressCCtx(ctx, frame.data(), frame.size(), value.data(), value.size(), 3);
    ZSTD_freeCCtx(ctx);
    ASSERT_FALSE(ZSTD_isError(n));
    frame.resize(n);
    std::string out;
    Status st = (*d)->DecompressBlob(codec, std::string(1, '\2') + frame, &out);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(out, value);
    // What this version writes: a frame without the magic number, shorter.
    std::string now;
    ASSERT_TRUE((*c)->CompressBlob(codec, value, &now).ok());
    EXPECT_EQ(now[0], '\3');
    EXPECT_NE(now.substr(1, 4), frame.substr(0, 4));
    EXPECT_LT(now.size(), 1 + n);
    ASSERT_TRUE((*d)->DecompressBlob(codec, now, &out).ok());
    EXPECT_EQ(out, value);
  }
}

// The index: MindSpore's exact DDL for plain datasets; compressed ones (which
// MindSpore refuses anyway) get the same table WITHOUT ROWID, also after an
// index rebuild.
TEST(CompressionTest, CompressedDatasetsUseTheCompactIndex) {
  TempDir tmp;
  const auto rows = MultiRows(300, 13);
  auto ddl = [](const std::string& db) {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    std::string all;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "SELECT name, IFNULL(sql, '') FROM sqlite_master ORDER BY name", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      all += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      all += ": ";
      all += reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
      all += "\n";
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return all;
  };
  WriterOptions o;
  o.header_size = 256 * kKiB;
  o.page_size = 64 * kKiB;
  WriteCompressed(tmp.Join("plain"), MultiBlobSchema(), rows, o);
  o.compression = Spec("zstd:3");
  WriteCompressed(tmp.Join("z"), MultiBlobSchema(), rows, o);
  const std::string plain = ddl(tmp.Join("plain.db"));
  const std::string z = ddl(tmp.Join("z.db"));
  EXPECT_NE(plain.find("sqlite_autoindex_INDEXES_1"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("WITHOUT ROWID"), std::string::npos) << plain;
  EXPECT_EQ(z.find("sqlite_autoindex_INDEXES_1"), std::string::npos) << z;
  EXPECT_NE(z.find("WITHOUT ROWID"), std::string::npos) << z;
  EXPECT_LT(std::filesystem::file_size(tmp.Join("z.db")), std::filesystem::file_size(tmp.Join("plain.db")));
  auto hit = [&](const std::string& path) {
    auto r = ShardReader::Open(path);
    EXPECT_TRUE(r.ok());
    return *(*r)->GroupByIndexField("id");
  };
  EXPECT_EQ(hit(tmp.Join("z")), hit(tmp.Join("plain")));
  ASSERT_TRUE(RebuildIndex(tmp.Join("z"), /*force=*/true).ok());
  EXPECT_EQ(ddl(tmp.Join("z.db")), z);
  ExpectSameRows(tmp.Join("z"), rows);
  ASSERT_TRUE(RebuildIndex(tmp.Join("plain"), /*force=*/true).ok());
  EXPECT_EQ(ddl(tmp.Join("plain.db")), plain);
}

}  // namespace
}  // namespace mindrecord
