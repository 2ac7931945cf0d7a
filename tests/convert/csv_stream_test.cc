// `mindrecord convert csv` reads its file in 1 MiB pieces, never whole:
// records whose quotes, "" escapes, quoted line ends and \r\n line ends are
// cut by a piece's end convert as when they are not; the records kept in
// memory are bounded (MINDRECORD_MAX_INDEXED_ROWS), and so are a record's
// fields.
#include <algorithm>

#include "fixtures/convert_fixtures.h"
#include "mindrecord/limits.h"
#include "tests/convert/convert_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord::convert::testing {
namespace {

constexpr size_t kPiece = size_t{1} << 20;  // writers/convert/csv.cc reads this much at a time

// A CSV "id,text" whose record `probe` has its byte `split` (0-based) as the
// last byte of the first piece, after a filler record that pads to it; then
// a record of one field (skipped, named by its line) and a last one.
std::string CsvSplitting(const std::string& probe, size_t split) {
  const std::string head = "id,text\n1,";
  const size_t filler = kPiece - split - 1 - head.size() - 1;  // then "\n", then the probe
  return head + std::string(filler, 'f') + "\n" + probe + "bad\n9,end\n";
}

struct Case {
  const char* what;
  std::string probe;
  size_t split;
  std::string text;  // the probe's text field as converted
};

void ConvertsAsWhole(const TempDir& dir, const Case& c) {
  const std::string csv = CsvSplitting(c.probe, c.split);
  const size_t probe_at = csv.find(c.probe, csv.find("\n1,") + 3);
  ASSERT_EQ(probe_at + c.split, kPiece - 1) << c.what;
  fixtures::WriteFile(dir / "x.csv", csv);
  const std::string out = dir / "x.mindrecord";
  fs::remove(out);
  fs::remove(out + ".db");
  ConvertOptions o = SmallOptions();
  o.on_error = OnError::kSkip;
  o.page_size = 4 << 20;  // the filler row is nearly a piece long
  o.fields = "id:int64,text:string";
  auto r = Convert("csv", dir / "x.csv", out, o);
  ASSERT_TRUE(r.ok()) << c.what << ": " << r.status().ToString();
  const std::vector<Row> rows = ReadAll(out);
  ASSERT_EQ(rows.size(), 3u) << c.what;
  EXPECT_EQ(rows[0].Get("text").bytes().size(), kPiece - c.split - 12) << c.what;
  EXPECT_EQ(rows[1].Get("id").as_int(), 2) << c.what;
  EXPECT_EQ(rows[1].Get("text").bytes(), c.text) << c.what;
  EXPECT_EQ(rows[2].Get("text").bytes(), "end") << c.what;
  // Lines count \n, \r and \r\n outside quotes, \n inside them.
  const size_t bad_line = 3 + static_cast<size_t>(std::count(c.probe.begin(), c.probe.end(), '\n'));
  ASSERT_EQ(r->skipped.size(), 1u) << c.what;
  EXPECT_EQ(r->skipped_inputs[0], dir / ("x.csv line " + std::to_string(bad_line))) << c.what << ": " << r->skipped[0];
}

TEST(CsvStreamTest, RecordsCutByAPieceEndConvertAsWhole) {
  TempDir dir;
  const std::vector<Case> cases = {
      {"the first quote of a \"\" pair last", "2,\"a\"\",b\"\n", 4, "a\",b"},
      {"the first quote of a \"\" pair first", "2,\"a\"\",b\"\n", 3, "a\",b"},
      {"a closing quote last", "2,\"x\"\n", 4, "x"},
      {"an opening quote last", "2,\"x\"\n", 2, "x"},
      {"\\r of \\r\\n last", "2,y\r\n", 3, "y"},
      {"a quoted \\n first", "2,\"p\nq\"\n", 3, "p\nq"},
      {"a quoted \\r\\n cut", "2,\"p\r\nq\"\n", 4, "p\r\nq"},
      {"the delimiter last", "2,z\n", 1, "z"},
      {"a record's line end last", "2,w\n", 3, "w"},
  };
  for (const Case& c : cases) ConvertsAsWhole(dir, c);
}

TEST(CsvStreamTest, RecordsAndFieldsKeptAreBounded) {
  TempDir dir, out;
  fixtures::WriteCsv(dir / "x.csv", 50, 3);
  ::mindrecord::testing::ScopedEnv limit(kMaxIndexedRowsVariable, "20");
  ConvertOptions skip = SmallOptions();
  skip.on_error = OnError::kSkip;
  for (const ConvertOptions& o : {SmallOptions(), skip}) {
    auto r = Convert("csv", dir / "x.csv", out / "a.mindrecord", o);
    ASSERT_EQ(r.status().code(), StatusCode::kNotSupported) << r.status().ToString();
    EXPECT_NE(r.status().message().find("x.csv: more than 20 records to index in memory"), std::string::npos)
        << r.status().ToString();
    EXPECT_TRUE(fs::is_empty(out.str()));
  }
  limit.Set("50");
  auto r = Convert("csv", dir / "x.csv", out / "b.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 50u);
  // A line of a million and one fields: refused while it is read, not held.
  fixtures::WriteFile(dir / "wide.csv", "a\n1\n" + std::string(kMaxRowElements, ',') + "\n");
  r = Convert("csv", dir / "wide.csv", out / "c.mindrecord", skip);
  ASSERT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find("wide.csv: the record starting on line 3 has more than 1000000 fields"),
            std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace mindrecord::convert::testing
