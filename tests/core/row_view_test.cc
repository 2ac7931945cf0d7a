// Zero-copy reads (ShardReader::ScanViews / ReadRowViews): the same rows as
// Scan / ReadRows in every I/O mode, version and codec; mmap views point into
// the mapping, stay valid while RowView::mapping() lives, and are handed out
// only from pages whose checksum was verified.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mindrecord/compression.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

Schema AllTypesSchema() {
  return *Schema::FromUserJsonString(R"({"i32":{"type":"int32"},"i64":{"type":"int64"},"f32":{"type":"float32"},
    "f64":{"type":"float64"},"s":{"type":"string"},"b":{"type":"bytes"},"img":{"type":"bytes"},
    "ia":{"type":"int64","shape":[-1]},"fa":{"type":"float32","shape":[2,-1]}})");
}

std::vector<Row> AllTypesRows(int n) {
  std::vector<Row> rows;
  std::mt19937_64 rng(3);
  for (int i = 0; i < n; ++i) {
    const int64_t k = static_cast<int64_t>(rng() % 9);
    std::vector<int64_t> ia(static_cast<size_t>(k));
    for (auto& x : ia) x = static_cast<int64_t>(rng() % 100000) - 50000;
    std::vector<float> fa(static_cast<size_t>(2 * k), 0.25f * static_cast<float>(i));
    rows.push_back(Row{{"i32", Value::Int(-i)}, {"i64", Value::Int(int64_t{1} << 40 | i)},
                       {"f32", Value::Float(0.5 * i)}, {"f64", Value::Float(i / 3.0)},
                       {"s", Value::String("row " + std::to_string(i))},
                       {"b", Value::Bytes(std::string(static_cast<size_t>(i % 17), static_cast<char>(i)))},
                       {"img", Value::Bytes(std::string(200 + static_cast<size_t>(rng() % 900), static_cast<char>('a' + i % 26)))},
                       {"ia", Value::ArrayOf<int64_t>(DataType::kInt64, ia)},
                       {"fa", Value::ArrayOf<float>(DataType::kFloat32, fa, {2, k})}});
  }
  return rows;
}

std::string WriteViewDataset(const TempDir& dir, const std::string& name, uint32_t shards, const char* version,
                         const char* compression, int rows = 300) {
  WriterOptions o;
  o.shard_count = shards;
  o.header_size = kMinHeaderSize;
  o.page_size = kMinPageSize;  // many pages and row groups
  o.format_version = version;
  o.compression = *ParseCompression(compression);
  auto w = *ShardWriter::Create(dir.Join(name), AllTypesSchema(), o);
  EXPECT_TRUE(w->WriteRows(AllTypesRows(rows)).ok());
  EXPECT_TRUE(w->Commit().ok());
  return w->shard_paths()[0];
}

// Which fields a view may hand out as views of the mapping.
bool MayBeMapped(const Field& f, const std::string& version, const std::string& compression) {
  // Blobs are compressed by any codec, raw parts only with "+raw".
  if (compression != "none" && (f.is_blob() || compression.find("+raw") != std::string::npos)) return false;
  if (f.has_shape && IsIntegerType(f.type) && version == kVersion3) return false;  // unpacked
  return f.type == DataType::kString || f.is_blob();
}

struct Case {
  uint32_t shards;
  const char* version;
  const char* compression;
};

class RowViewTest : public ::testing::TestWithParam<std::tuple<Case, IoMode>> {};

TEST_P(RowViewTest, ViewsHoldTheRowsThatReadsReturn) {
  const auto [c, mode] = GetParam();
  TempDir dir;
  const std::string path = WriteViewDataset(dir, "d", c.shards, c.version, c.compression);
  ReaderOptions ro;
  ro.io_mode = mode;
  ro.direct_fallback = true;
  auto r = *ShardReader::Open(path, ro);
  const uint64_t n = r->num_rows();
  std::vector<Row> want(n);
  for (uint64_t id = 0; id < n; ++id) want[id] = *r->ReadRow(id);
  auto check = [&](uint64_t id, const RowView& v, const std::vector<std::string>& only) {
    const Row got = v.ToRow();
    EXPECT_EQ(got.size(), only.empty() ? r->schema().fields().size() : only.size()) << id;
    for (const auto& [name, value] : got.fields()) EXPECT_EQ(value, want[id].Get(name)) << id << " " << name;
    EXPECT_EQ(v.value_bytes(), got.value_bytes());
    for (const FieldView& f : v.fields()) {
      const bool mmap = r->shard_io_mode(r->Locate(id)->shard) == IoMode::kMmap;
      EXPECT_EQ(f.mapped, mmap && MayBeMapped(*f.field, c.version, c.compression)) << id << " " << f.name();
    }
    const Projection proj = *r->MakeProjection(only);
    EXPECT_EQ(v.stored_bytes(), *r->StoredBytes(id, only.empty() ? nullptr : &proj));
  };
  uint64_t next = 0;
  ASSERT_TRUE(r->ScanViews(0, n, nullptr, [&](uint64_t id, const RowView& v) {
    EXPECT_EQ(id, next++);
    check(id, v, {});
    return Status::OK();
  }).ok());
  EXPECT_EQ(next, n);
  // Shuffled ids with repeats, projections of raw only, blob only, both.
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < n; ++id) ids.push_back(id);
  ids.push_back(5);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(9));
  for (const std::vector<std::string>& cols :
       {std::vector<std::string>{}, {"s", "i32"}, {"img"}, {"fa", "f64", "img", "ia"}}) {
    auto proj = *r->MakeProjection(cols);
    size_t count = 0;
    ASSERT_TRUE(r->ReadRowViews(ids, cols.empty() ? nullptr : &proj,
                                [&](size_t i, const Status& st, const RowView& v) {
                                  EXPECT_TRUE(st.ok()) << st.ToString();
                                  EXPECT_EQ(i, count++);
                                  check(ids[i], v, cols);
                                  return Status::OK();
                                })
                    .ok());
    EXPECT_EQ(count, ids.size());
    // A sub-range scan with the projection.
    next = n / 3;
    ASSERT_TRUE(r->ScanViews(n / 3, n - 7, &proj, [&](uint64_t id, const RowView& v) {
      EXPECT_EQ(id, next++);
      check(id, v, cols);
      return Status::OK();
    }).ok());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, RowViewTest,
    ::testing::Combine(::testing::Values(Case{1, kVersion3, "none"}, Case{3, kVersion3, "none"},
                                         Case{2, kVersion2, "none"}, Case{1, kVersion3, "zstd:3"},
                                         Case{2, kVersion3, "lz4"}, Case{1, kVersion3, "zstd:3+raw"}),
                       ::testing::Values(IoMode::kPread, IoMode::kMmap, IoMode::kDirect)));

TEST(RowViewSingle, MappedViewsOutliveTheReaderWhileTheirMappingIsHeld) {
  TempDir dir;
  const std::string path = WriteViewDataset(dir, "d", 2, kVersion3, "none", 120);
  std::vector<Row> want;
  std::vector<std::pair<std::shared_ptr<const void>, std::string_view>> kept;
  {
    ReaderOptions ro;
    ro.io_mode = IoMode::kMmap;
    auto r = *ShardReader::Open(path, ro);
    for (uint64_t id = 0; id < r->num_rows(); ++id) want.push_back(*r->ReadRow(id));
    auto proj = *r->MakeProjection({"img"});
    ASSERT_TRUE(r->ScanViews(0, r->num_rows(), &proj, [&](uint64_t, const RowView& v) {
      EXPECT_TRUE(v.mapping() != nullptr);
      EXPECT_TRUE(v[0].mapped);
      kept.emplace_back(v.mapping(), v[0].data);
      return Status::OK();
    }).ok());
    // A pread reader hands out no mapping.
    auto p = *ShardReader::Open(path);
    ASSERT_TRUE(p->ScanViews(0, 1, &proj, [&](uint64_t, const RowView& v) {
      EXPECT_TRUE(v.mapping() == nullptr);
      EXPECT_FALSE(v[0].mapped);
      return Status::OK();
    }).ok());
  }
  // The reader is gone; the views still read the rows (an unmapped page
  // would fault here).
  ASSERT_EQ(kept.size(), want.size());
  for (size_t id = 0; id < kept.size(); ++id) EXPECT_EQ(kept[id].second, want[id].Get("img").bytes()) << id;
  kept.clear();
}

TEST(RowViewSingle, PagesAreVerifiedBeforeTheirBytesAreHandedOut) {
  TempDir dir;
  const std::string path = WriteViewDataset(dir, "d", 1, kVersion3, "none", 120);
  const std::string good = ReadFile(path);
  auto r = *ShardReader::Open(path);
  const ShardHeader h = r->header(0);
  r.reset();
  // Flip one byte in the middle of the last blob page (its rows' images).
  const PageInfo* blob = nullptr;
  for (const auto& p : h.pages)
    if (p.is_blob) blob = &p;
  ASSERT_NE(blob, nullptr);
  std::string bad = good;
  bad[h.PageOffset(blob->page_id) + blob->used_bytes / 2] ^= 0x10;
  WriteFile(path, bad);
  ReaderOptions ro;
  ro.io_mode = IoMode::kMmap;
  auto m = *ShardReader::Open(path, ro);
  auto img = *m->MakeProjection({"img"});
  const std::string page = "page " + std::to_string(blob->page_id);
  uint64_t handed = 0;
  Status st = m->ScanViews(0, m->num_rows(), &img, [&](uint64_t id, const RowView&) {
    EXPECT_LT(id, blob->start_row_id) << "a row of the damaged page was handed out";
    ++handed;
    return Status::OK();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(page), std::string::npos) << st.ToString();
  EXPECT_EQ(handed, blob->start_row_id);
  // Random rows: every row of the damaged page fails with the checksum error
  // and the call goes on when `fn` says so; the others read.
  const std::vector<Row> written = AllTypesRows(120);
  std::vector<uint64_t> ids = {blob->end_row_id - 1, 0, blob->start_row_id, 1};
  std::vector<bool> failed;
  ASSERT_TRUE(m->ReadRowViews(ids, &img, [&](size_t i, const Status& s, const RowView& v) {
    failed.push_back(!s.ok());
    if (!s.ok()) {
      EXPECT_NE(s.message().find(page), std::string::npos) << s.ToString();
      EXPECT_EQ(v.Find("img")->kind, Value::Kind::kNull);
    } else {
      EXPECT_EQ(v[0].data, written[ids[i]].Get("img").bytes()) << i;
    }
    return Status::OK();
  }).ok());
  EXPECT_EQ(failed, (std::vector<bool>{true, false, true, false}));
  // An out-of-range id is that row's error.
  ASSERT_TRUE(m->ReadRowViews({m->num_rows()}, nullptr, [&](size_t, const Status& s, const RowView&) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return Status::OK();
  }).ok());
}

}  // namespace
}  // namespace mindrecord

namespace mindrecord {
namespace {

// The view decoders read untrusted bytes as the Row decoders do: for every
// damaged part both either fail or give the same values.
TEST(RowViewCodec, DamagedPartsDecodeAsTheRowDecodersDoThem) {
  const Schema schema = AllTypesSchema();
  std::mt19937_64 rng(11);
  size_t agreed_ok = 0, agreed_error = 0;
  for (const char* version : {kVersion3, kVersion2}) {
    RowCodec codec(&schema, version);
    for (const Row& row : AllTypesRows(40)) {
      const EncodedParts parts = *codec.Encode(row);
      for (int trial = 0; trial < 60; ++trial) {
        std::string raw = parts.raw, blob = parts.blob;
        std::string& victim = trial % 2 ? blob : raw;
        const int flips = 1 + static_cast<int>(rng() % 3);
        for (int f = 0; f < flips && !victim.empty(); ++f) victim[rng() % victim.size()] ^= static_cast<char>(1 << (rng() % 8));
        if (trial % 7 == 0) victim.resize(rng() % (victim.size() + 1));  // truncated
        Row want;
        Status want_raw = codec.DecodeRaw(raw, {}, &want);
        Status want_blob = codec.DecodeBlob(blob, {}, &want);
        RowView view;
        view.Select(schema, {});
        view.Begin(nullptr, {}, 0);
        Status got_raw = codec.DecodeRawView(raw, false, &view);
        Status got_blob = codec.DecodeBlobView(blob, false, &view);
        ASSERT_EQ(got_raw.ok(), want_raw.ok()) << got_raw.ToString() << " vs " << want_raw.ToString();
        ASSERT_EQ(got_blob.ok(), want_blob.ok()) << got_blob.ToString() << " vs " << want_blob.ToString();
        if (!want_raw.ok() || !want_blob.ok()) {
          EXPECT_EQ(got_raw.message(), want_raw.message());
          EXPECT_EQ(got_blob.message(), want_blob.message());
          ++agreed_error;
          continue;
        }
        EXPECT_EQ(view.ToRow(), want);
        ++agreed_ok;
      }
    }
  }
  EXPECT_GT(agreed_ok, 100u);
  EXPECT_GT(agreed_error, 100u);
}

}  // namespace
}  // namespace mindrecord
