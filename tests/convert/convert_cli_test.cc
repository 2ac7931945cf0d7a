// `mindrecord convert` driven as a user would: exit codes (0 ok, 1 bad
// arguments, 2 data / I-O error), the summary line, no output after failure.
#include <gtest/gtest.h>

#include <set>

#include "fixtures/convert_fixtures.h"
#include "tests/convert/convert_test_util.h"
#include "tests/util/test_util.h"

namespace mindrecord::convert {
namespace {

using namespace testing;  // NOLINT

#define MR_REQUIRE_CLI() \
  if (!CliBuilt()) GTEST_SKIP() << "the mindrecord CLI is not built (" << MINDRECORD_CLI_PATH << ")"

const char* kSmall = " --header-size 65536 --page-size 1048576 ";

TEST(ConvertCliTest, ConvertsAndPrintsSummary) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteMnist(dir / "m", "train", 40, true, 1);
  fixtures::WriteMnist(dir / "m", "t10k", 10, true, 2);
  std::string log;
  ASSERT_EQ(RunCli("convert mnist '" + (dir / "m") + "' '" + (dir / "mn") + "' --workers 2" + kSmall, &log), 0) << log;
  EXPECT_NE(log.find("convert mnist: 50 rows, 2 shards"), std::string::npos) << log;
  EXPECT_NE(log.find("0 skipped"), std::string::npos) << log;
  EXPECT_EQ(ReadAll(dir / "mn_train.mindrecord").size(), 40u);
  EXPECT_EQ(ReadAll(dir / "mn_test.mindrecord").size(), 10u);
  // Progress goes to a terminal only: none in a redirected log.
  EXPECT_EQ(log.find("ETA"), std::string::npos);
  // Again without --overwrite: refused (exit 2), files untouched.
  EXPECT_EQ(RunCli("convert mnist '" + (dir / "m") + "' '" + (dir / "mn") + "'" + kSmall, &log), 2) << log;
  EXPECT_EQ(RunCli("convert mnist '" + (dir / "m") + "' '" + (dir / "mn") + "' --overwrite" + kSmall, &log), 0) << log;
}

// --write-mode auto (convert's default: direct), direct (page writes with
// O_DIRECT where the file system takes them) and buffered write the same
// bytes; anything else is a usage error.
TEST(ConvertCliTest, WriteModesWriteTheSameBytes) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 3, 40, 64, 48, 1);
  std::string log;
  for (const char* mode : {"auto", "direct", "buffered"}) {
    fs::create_directories(dir / mode);
    ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / mode) + "/x' --shards 2 --write-mode " +
                         mode + " --header-size 65536 --page-size 65536",
                     &log),
              0)
        << log;
  }
  for (const char* shard : {"0", "1"}) {
    for (const char* mode : {"auto", "direct"}) {
      EXPECT_TRUE(mindrecord::testing::ReadFile(dir / (std::string(mode) + "/x" + shard)) ==
                  mindrecord::testing::ReadFile(dir / (std::string("buffered/x") + shard)))
          << mode << " shard " << shard << " differs";
    }
  }
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "x") + "' --write-mode fast", &log), 1) << log;
}

// OUTPUT's folder is created with its parents, as `mkdir -p` would (split
// and sharded outputs alike); a folder that cannot be created (a file stands
// in its way) is an I/O error naming it; --append creates nothing.
TEST(ConvertCliTest, CreatesAMissingOutputFolder) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteMnist(dir / "m", "train", 12, true, 1);
  fixtures::WriteMnist(dir / "m", "t10k", 4, true, 2);
  fixtures::WriteImageFolder(dir / "if", 2, 3, 8, 8, 1);
  std::string log;
  ASSERT_EQ(RunCli("convert mnist '" + (dir / "m") + "' '" + (dir / "new/deeper/mn") + "' --quiet" + kSmall, &log), 0)
      << log;
  EXPECT_EQ(ReadAll(dir / "new/deeper/mn_train.mindrecord").size(), 12u);
  EXPECT_EQ(ReadAll(dir / "new/deeper/mn_test.mindrecord").size(), 4u);
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "a/b/c/if") + "' --shards 2 --quiet" + kSmall,
                   &log),
            0)
      << log;
  EXPECT_EQ(ReadAll(dir / "a/b/c/if1").size(), 6u);
  fixtures::WriteFile(dir / "plain_file", "x");
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "plain_file/sub/o") + "'" + kSmall, &log), 2)
      << log;
  EXPECT_NE(log.find("plain_file/sub: cannot create the output folder"), std::string::npos) << log;
  EXPECT_EQ(RunCli("convert mnist '" + (dir / "m") + "' '" + (dir / "absent/mn") + "' --append", &log), 2) << log;
  EXPECT_FALSE(fs::exists(dir / "absent"));
}

TEST(ConvertCliTest, AppendAddsConvertedRowsToTheExistingSplits) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteMnist(dir / "a", "train", 30, true, 1);
  fixtures::WriteMnist(dir / "a", "t10k", 10, true, 2);
  fixtures::WriteMnist(dir / "b", "train", 20, true, 3);
  fixtures::WriteMnist(dir / "b", "t10k", 5, true, 4);
  std::string log;
  ASSERT_EQ(RunCli("convert mnist '" + (dir / "a") + "' '" + (dir / "mn") + "' --shards 3" + kSmall, &log), 0) << log;
  ASSERT_EQ(RunCli("convert mnist '" + (dir / "b") + "' '" + (dir / "mn") + "' --append", &log), 0) << log;
  auto train = ReadAll(dir / "mn_train.mindrecord0");
  auto test = ReadAll(dir / "mn_test.mindrecord1");
  EXPECT_EQ(train.size(), 50u);
  EXPECT_EQ(test.size(), 15u);
  // Source b's rows are exactly what a separate conversion of b holds.
  ASSERT_EQ(RunCli("convert mnist '" + (dir / "b") + "' '" + (dir / "bn") + "'", &log), 0) << log;
  std::multiset<std::string> want, got;
  for (const auto& r : ReadAll(dir / "mn_train.mindrecord0")) got.insert(r.Get("data").bytes());
  for (const auto& r : ReadAll(dir / "bn_train.mindrecord")) want.insert(r.Get("data").bytes());
  for (const auto& x : want) EXPECT_EQ(got.count(x), want.count(x) + 0u) << "a converted row of b is missing";
  // Another schema (a CIFAR dataset is not MNIST) or --overwrite: refused, datasets untouched.
  fixtures::WriteImageFolder(dir / "if", 2, 2, 8, 8, 1);
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "mn_train.mindrecord") + "' --append", &log),
            1)
      << log;
  EXPECT_NE(log.find("schema"), std::string::npos) << log;
  EXPECT_EQ(RunCli("convert mnist '" + (dir / "b") + "' '" + (dir / "mn") + "' --append --overwrite", &log), 1);
  EXPECT_EQ(RunCli("convert mnist '" + (dir / "b") + "' '" + (dir / "none") + "' --append", &log), 2);
  EXPECT_NE(log.find("no dataset to append to"), std::string::npos) << log;
  EXPECT_EQ(ReadAll(dir / "mn_train.mindrecord0").size(), 50u);
}

TEST(ConvertCliTest, BadArgumentsExitOne) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 1, 1, 8, 8, 1);
  std::string log;
  EXPECT_EQ(RunCli("convert parquet '" + (dir / "if") + "' '" + (dir / "o") + "'", &log), 1) << log;
  EXPECT_NE(log.find("unknown source"), std::string::npos) << log;
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "o") + "' --on-error maybe", &log), 1);
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "o") + "' --shards 0", &log), 1);
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "'", &log), 1);
  fixtures::WriteFile(dir / "t.csv", "a\n1\n");
  EXPECT_EQ(RunCli("convert csv '" + (dir / "t.csv") + "' '" + (dir / "o") + "' --encode raw", &log), 1);
  EXPECT_NE(log.find("--encode raw"), std::string::npos) << log;
  EXPECT_EQ(FilesStartingWith(dir.str(), "o").size(), 0u);
}

TEST(ConvertCliTest, EncodeRawForImageFiles) {
  MR_REQUIRE_CLI();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "if", 1, 2, 12, 10, 1);
  std::string log;
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "o.mindrecord") + "' --encode raw" +
                   kSmall, &log), 0) << log;
  auto rows = ReadAll(dir / "o.mindrecord");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].Get("image_shape").ArrayAs<int32_t>(), (std::vector<int32_t>{10, 12, 3}));
  EXPECT_EQ(rows[0].Get("image").bytes().size(), 10u * 12 * 3);
}

TEST(ConvertCliTest, BadInputExitsTwoAndLeavesNothing) {
  MR_REQUIRE_CLI();
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "if", 2, 3, 8, 8, 1);
  fixtures::WriteFile(dir / "if/class_01/zz_broken.jpg", "garbage");
  std::string log;
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "out.mindrecord") + "'" + kSmall, &log), 2);
  EXPECT_NE(log.find("zz_broken.jpg"), std::string::npos) << log;
  EXPECT_TRUE(FilesStartingWith(dir.str(), "out").empty()) << "output left behind after a failure";
  EXPECT_TRUE(FilesStartingWith(dir.str(), ".out").empty()) << "temporary files left behind after a failure";

  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "if") + "' '" + (dir / "out.mindrecord") + "' --on-error skip --quiet" +
                       kSmall, &log), 0) << log;
  EXPECT_NE(log.find("1 skipped"), std::string::npos) << log;
  EXPECT_EQ(log.find("class -> label"), std::string::npos) << "--quiet prints no notes";
  std::string skipped = Slurp(dir / "out.mindrecord.skipped.txt");
  EXPECT_NE(skipped.find("zz_broken.jpg: "), std::string::npos) << skipped;
  EXPECT_EQ(ReadAll(dir / "out.mindrecord").size(), files.size());
}

TEST(ConvertCliTest, CompatVocInvalidXmlExitsTwo) {
  MR_REQUIRE_CLI();
  MR_REQUIRE_COMPAT(compat);
  TempDir dir;
  std::string log;
  EXPECT_EQ(RunCli("convert voc '" + compat + "/sources/voc2012' '" + (dir / "voc") + "' --split invalidxml", &log), 2);
  EXPECT_NE(log.find("invalidxml.xml"), std::string::npos) << log;
  EXPECT_TRUE(fs::is_empty(dir.str()));
}

}  // namespace
}  // namespace mindrecord::convert
