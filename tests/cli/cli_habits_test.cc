// What a new user types wrong, driven through the `mindrecord` executable:
// a mistyped verb or option gets the closest name, a row range outside the
// dataset is an error, and `append` refuses rows labelled under another
// class map (as `convert --append` does), leaving the dataset as it was.
#include <gtest/gtest.h>

#include "mindrecord/schema.h"
#include "tests/util/test_rows.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using testing::Cli;
using testing::ReadFile;
using testing::TempDir;

std::string Write(const std::string& path, const std::string& desc, int rows) {
  WriterOptions o;
  o.page_size = kMinPageSize;
  auto schema = Schema::FromUserJsonString(R"({"id":{"type":"int64"},"label":{"type":"int32"}})", desc);
  auto w = ShardWriter::Create(path, *schema, o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::vector<Row> batch;
  for (int i = 0; i < rows; ++i) batch.push_back(Row{{"id", Value::Int(i)}, {"label", Value::Int(i % 2)}});
  EXPECT_TRUE((*w)->WriteRows(batch).ok());
  EXPECT_TRUE((*w)->Commit().ok());
  return (*w)->shard_paths()[0];
}

TEST(CliHabitsTest, MistypedVerbOrOptionNamesTheClosest) {
  std::string out;
  EXPECT_EQ(Cli("conver a b", &out), 1);
  EXPECT_NE(out.find("unknown command 'conver' (did you mean 'convert'?)"), std::string::npos) << out;
  EXPECT_EQ(Cli("frobnicate", &out), 1);
  EXPECT_NE(out.find("unknown command 'frobnicate'; commands: inspect cat"), std::string::npos) << out;
  TempDir dir;
  EXPECT_EQ(Cli("convert imagefolder " + dir.path() + " " + dir.Join("o.mindrecord") + " --shard 4", &out), 1);
  EXPECT_NE(out.find("unknown option --shard (did you mean --shards?)"), std::string::npos) << out;
  EXPECT_EQ(Cli("cat x --colums id", &out), 1);
  EXPECT_NE(out.find("unknown option --colums (did you mean --columns?)"), std::string::npos) << out;
}

TEST(CliHabitsTest, RowRangeOutsideTheDatasetIsAnError) {
  TempDir dir;
  const std::string path = Write(dir.Join("d.mindrecord"), "", 300);
  std::string out;
  EXPECT_EQ(Cli("cat " + path + " --rows 500", &out), 1);
  EXPECT_NE(out.find("--rows '500': no such row (the dataset has 300 rows, 0 to 299)"), std::string::npos) << out;
  EXPECT_EQ(Cli("cat " + path + " --rows 250:400", &out), 1);
  EXPECT_NE(out.find("--rows '250:400' is outside the dataset (the dataset has 300 rows)"), std::string::npos) << out;
  EXPECT_EQ(Cli("cat " + path + " --rows 5:2", &out), 1);
  EXPECT_EQ(Cli("cat " + path + " --rows 299 --columns id", &out), 0);
  EXPECT_EQ(out, "{\"id\":299}\n");
  EXPECT_EQ(Cli("cat " + path + " --rows 298: --columns id", &out), 0);
  EXPECT_EQ(out, "{\"id\":298}\n{\"id\":299}\n");
  EXPECT_EQ(Cli("cat " + path + " --rows 300: --columns id", &out), 0);  // empty, at the end
  EXPECT_EQ(out, "");
}

TEST(CliHabitsTest, AppendRefusesAnotherClassMapAndLeavesTheDataset) {
  TempDir dir;
  const std::string dst = Write(dir.Join("d.mindrecord"), R"({"class_to_label":{"cat":0,"dog":1}})", 10);
  const std::string src = Write(dir.Join("s.mindrecord"), R"({"class_to_label":{"bird":0,"cat":1}})", 4);
  const std::string same = Write(dir.Join("t.mindrecord"), R"({"class_to_label":{"cat":0,"dog":1}})", 4);
  const std::string before = ReadFile(dst), before_db = ReadFile(dst + ".db");
  std::string out;
  EXPECT_EQ(Cli("append " + dst + " " + src, &out), 1);
  EXPECT_NE(out.find(src + ": its description (\"{\"class_to_label\":{\"bird\":0,\"cat\":1}}\") differs from " + dst),
            std::string::npos)
      << out;
  EXPECT_TRUE(ReadFile(dst) == before && ReadFile(dst + ".db") == before_db);
  EXPECT_EQ(Cli("append " + dst + " " + same, &out), 0) << out;
  EXPECT_NE(out.find("(14 rows now)"), std::string::npos) << out;
}

}  // namespace
}  // namespace mindrecord
