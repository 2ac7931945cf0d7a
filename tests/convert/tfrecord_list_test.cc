// TFRecord bytes_list features with several values: stored as the values
// concatenated plus `<name>_lengths: int64 [-1]`, inferred or given.
#include <gtest/gtest.h>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

// What a reader does: split the concatenation by the lengths.
std::vector<std::string> Split(const Row& row, const std::string& name) {
  const std::string& all = row.Get(name).bytes();
  std::vector<std::string> out;
  size_t at = 0;
  for (int64_t n : row.Get(name + "_lengths").ArrayAs<int64_t>()) {
    EXPECT_LE(at + static_cast<size_t>(n), all.size());
    out.push_back(all.substr(at, static_cast<size_t>(n)));
    at += static_cast<size_t>(n);
  }
  EXPECT_EQ(at, all.size()) << "lengths do not cover the values";
  return out;
}

TEST(TfRecordListTest, InferredListReadsBack) {
  TempDir dir;
  auto examples = fixtures::WriteTfRecord(dir / "x.tfrecord", 80, 4, /*tags=*/true);
  auto r = Convert("tfrecord", dir / "x.tfrecord", dir / "tf.mindrecord", SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  bool noted = false;
  for (const auto& n : r->notes) noted |= n.find("image/tags:bytes:[-1]") != std::string::npos;
  EXPECT_TRUE(noted) << "the inferred spec names the list";
  Schema schema = ReadSchema(dir / "tf.mindrecord");
  ASSERT_NE(schema.Find("image_tags"), nullptr);
  EXPECT_EQ(schema.Find("image_tags")->type, DataType::kBytes);
  ASSERT_NE(schema.Find("image_tags_lengths"), nullptr);
  EXPECT_EQ(schema.Find("image_tags_lengths")->type, DataType::kInt64);
  EXPECT_EQ(schema.Find("image_tags_lengths")->shape, (std::vector<int64_t>{-1}));
  auto rows = ReadAll(dir / "tf.mindrecord");
  ASSERT_EQ(rows.size(), examples.size());
  size_t empty = 0, several = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(Split(rows[i], "image_tags"), examples[i].tags) << "record " << i;
    EXPECT_EQ(rows[i].Get("image_encoded").bytes(), examples[i].encoded);  // single values stay scalars
    empty += examples[i].tags.empty();
    several += examples[i].tags.size() > 1;
  }
  EXPECT_GT(empty, 5u);
  EXPECT_GT(several, 5u);
}

TEST(TfRecordListTest, GivenSpecAndScalarMismatch) {
  TempDir dir;
  auto examples = fixtures::WriteTfRecord(dir / "x.tfrecord", 30, 6, /*tags=*/true);
  ConvertOptions o = SmallOptions();
  o.fields = "image/tags:string:[-1],image/encoded:bytes:[-1],image/class/label:int64";
  auto r = Convert("tfrecord", dir / "x.tfrecord", dir / "a.mindrecord", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ReadSchema(dir / "a.mindrecord").Find("image_tags")->type, DataType::kString);
  auto rows = ReadAll(dir / "a.mindrecord");
  ASSERT_EQ(rows.size(), examples.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(Split(rows[i], "image_tags"), examples[i].tags);
    EXPECT_EQ(Split(rows[i], "image_encoded"), std::vector<std::string>{examples[i].encoded});
  }
  // Asked for one value, a record holds two: the error says how to ask for a list.
  o.fields = "image/tags:bytes";
  r = Convert("tfrecord", dir / "x.tfrecord", dir / "b.mindrecord", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.tfrecord record 0"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("NAME:bytes:[-1]"), std::string::npos) << r.status().ToString();
  // Lists take only [-1]; csv has no lists; a lengths field may not collide.
  o.fields = "image/tags:bytes:[2]";
  EXPECT_EQ(Convert("tfrecord", dir / "x.tfrecord", dir / "c.mindrecord", o).status().code(),
            StatusCode::kInvalidArgument);
  o.fields = "image/tags:bytes:[-1],image/tags_lengths:int64";
  EXPECT_EQ(Convert("tfrecord", dir / "x.tfrecord", dir / "c.mindrecord", o).status().code(),
            StatusCode::kInvalidArgument);
  fixtures::WriteFile(dir / "t.csv", "a\n1\n");
  o.fields = "a:string:[-1]";
  EXPECT_EQ(Convert("csv", dir / "t.csv", dir / "c.mindrecord", o).status().code(), StatusCode::kInvalidArgument);
}

TEST(TfRecordListTest, CliConvertsLists) {
  if (!CliBuilt()) GTEST_SKIP() << "CLI not built";
  TempDir dir;
  auto examples = fixtures::WriteTfRecord(dir / "x.tfrecord", 12, 8, /*tags=*/true);
  std::string log;
  EXPECT_EQ(RunCli("convert tfrecord '" + (dir / "x.tfrecord") + "' '" + (dir / "t.mindrecord") +
                   "' --header-size 65536 --page-size 1048576", &log), 0) << log;
  EXPECT_NE(log.find("image/tags:bytes:[-1]"), std::string::npos) << log;
  auto rows = ReadAll(dir / "t.mindrecord");
  ASSERT_EQ(rows.size(), examples.size());
  EXPECT_EQ(Split(rows[0], "image_tags"), examples[0].tags);
}

}  // namespace
}  // namespace mindrecord::convert
