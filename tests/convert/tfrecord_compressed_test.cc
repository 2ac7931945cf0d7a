// `mindrecord convert tfrecord` of files compressed whole with gzip or zlib
// (TensorFlow's GZIP / ZLIB options): found by their first bytes, converted
// to the same rows as the uncompressed file; damaged streams are errors
// naming the file and offset.
#include <zlib.h>

#include "fixtures/convert_fixtures.h"
#include "mindrecord/limits.h"
#include "tests/convert/convert_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord::convert::testing {
namespace {

std::string Zlib(const std::string& data) {
  uLongf n = compressBound(data.size());
  std::string out(n, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(data.data()),
                      data.size(), 6), Z_OK);
  out.resize(n);
  return out;
}

void Gzip(const std::string& path, const std::string& data) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, data.data(), static_cast<unsigned>(data.size())), static_cast<int>(data.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

TEST(TfRecordCompressedTest, GzipAndZlibFilesConvertToTheRowsOfTheUncompressedFile) {
  TempDir dir;
  fixtures::WriteTfRecord(dir / "t.tfrecord", 300, 4);
  const std::string bytes = Slurp(dir / "t.tfrecord");
  Gzip(dir / "t.tfrecord.gz", bytes);
  fixtures::WriteFile(dir / "t.tfrecord.z", Zlib(bytes));
  auto plain = Convert("tfrecord", dir / "t.tfrecord", dir / "plain.mindrecord", SmallOptions());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  const std::vector<Row> want = ReadAll(dir / "plain.mindrecord");
  ASSERT_EQ(want.size(), 300u);
  for (const char* name : {"t.tfrecord.gz", "t.tfrecord.z"}) {
    const std::string out = dir / (std::string(name) + ".mindrecord");
    auto r = Convert("tfrecord", dir / name, out, SmallOptions());
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    EXPECT_EQ(r->rows, 300u);
    const std::vector<Row> got = ReadAll(out);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(got[i] == want[i]) << name << " row " << i;
    EXPECT_TRUE(ReadSchema(out) == ReadSchema(dir / "plain.mindrecord"));
  }
  if (CliBuilt()) {
    std::string log;
    ASSERT_EQ(RunCli("convert tfrecord '" + dir / "t.tfrecord.gz" + "' '" + dir / "cli.mindrecord" + "'", &log), 0) << log;
    EXPECT_EQ(ReadAll(dir / "cli.mindrecord").size(), 300u);
  }
}

TEST(TfRecordCompressedTest, DamagedStreamsAndRecordsAreErrorsNamingTheFile) {
  TempDir dir, out;
  fixtures::WriteTfRecord(dir / "t.tfrecord", 50, 5);
  const std::string bytes = Slurp(dir / "t.tfrecord");
  const std::string z = Zlib(bytes);
  fixtures::WriteFile(dir / "cut.z", z.substr(0, z.size() / 2));
  auto r = Convert("tfrecord", dir / "cut.z", out / "a.mindrecord", SmallOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cut.z: the zlib stream at compressed byte"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().ToString();
  EXPECT_TRUE(fs::is_empty(out.str()));
  // The stream is whole, the last record is cut: an error at its
  // decompressed offset; skipped, the records before it convert.
  fixtures::WriteFile(dir / "short.z", Zlib(bytes.substr(0, bytes.size() - 7)));
  r = Convert("tfrecord", dir / "short.z", out / "b.mindrecord", SmallOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("short.z: record 49 at byte"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("of the decompressed stream: truncated"), std::string::npos);
  ConvertOptions o = SmallOptions();
  o.on_error = OnError::kSkip;
  r = Convert("tfrecord", dir / "short.z", out / "c.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 49u);
}

// A file frames as many records as it likes (a few megabytes of gzip frame
// billions of empty ones); a conversion keeps at most MINDRECORD_MAX_INDEXED_ROWS
// of one file's records in memory and stops past them, also when bad inputs
// are skipped, leaving nothing written.
TEST(TfRecordCompressedTest, MoreRecordsThanAFileMayIndexStopTheConversion) {
  TempDir dir, out;
  fixtures::WriteTfRecord(dir / "t.tfrecord", 50, 5);
  const std::string bytes = Slurp(dir / "t.tfrecord");
  fixtures::WriteFile(dir / "t.z", Zlib(bytes));
  ::mindrecord::testing::ScopedEnv limit(kMaxIndexedRowsVariable, "20");
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  for (const char* name : {"t.tfrecord", "t.z"}) {
    for (const ConvertOptions& o : {SmallOptions(), skip}) {
      auto r = Convert("tfrecord", dir / name, out / "a.mindrecord", o);
      ASSERT_EQ(r.status().code(), StatusCode::kNotSupported) << name << ": " << r.status().ToString();
      EXPECT_NE(r.status().message().find(std::string(name) + ": more than 20 records to index in memory"),
                std::string::npos) << r.status().ToString();
      EXPECT_TRUE(fs::is_empty(out.str()));
    }
  }
  if (CliBuilt()) {
    std::string log;
    EXPECT_EQ(RunCli("convert tfrecord '" + dir / "t.z" + "' '" + out / "cli.mindrecord" + "'", &log), 2) << log;
    EXPECT_NE(log.find("MINDRECORD_MAX_INDEXED_ROWS"), std::string::npos) << log;
    limit.Set("many");
    EXPECT_EQ(RunCli("convert tfrecord '" + dir / "t.z" + "' '" + out / "cli.mindrecord" + "'", &log), 1) << log;
    EXPECT_NE(log.find("MINDRECORD_MAX_INDEXED_ROWS='many'"), std::string::npos) << log;
  }
  limit.Set("50");  // exactly the file's records
  auto r = Convert("tfrecord", dir / "t.z", out / "b.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 50u);
}

}  // namespace
}  // namespace mindrecord::convert::testing
