// The CIFAR pickle reader: real MindSpore test batches, synthetic batches in
// both pickle styles, and corrupted inputs that must fail cleanly.
#include "writers/convert/pickle_reader.h"

#include <gtest/gtest.h>

#include "fixtures/convert_fixtures.h"
#include "mindrecord/crc32c.h"
#include "tests/convert/convert_test_util.h"

namespace mindrecord::convert {
namespace {

using testing::CompatDir;
using testing::Slurp;
using testing::TempDir;

TEST(PickleReaderTest, ReadsCompatCifar10Batch) {
  MR_REQUIRE_COMPAT(compat);
  std::string path = compat + "/sources/cifar10/data_batch_0";
  std::string bytes = Slurp(path);
  auto root = ParsePickle(bytes, path);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  auto arr = PickleToNdArrayU8((*root)->Get("data"), "data");
  ASSERT_TRUE(arr.ok()) << arr.status().ToString();
  EXPECT_EQ(arr->shape, (std::vector<int64_t>{16, 3072}));
  EXPECT_EQ(arr->data.size(), 16u * 3072);
  // The array bytes sit in the file as one BINBYTES payload.
  EXPECT_NE(bytes.find(arr->data), std::string::npos);
  auto labels = PickleToIntList((*root)->Get("labels"), "labels");
  ASSERT_TRUE(labels.ok());
  ASSERT_EQ(labels->size(), 16u);
  EXPECT_EQ((*labels)[0], 2);
}

TEST(PickleReaderTest, ReadsSyntheticBatchesInBothStyles) {
  for (bool py2 : {true, false}) {
    TempDir dir;
    auto [train, test] = fixtures::WriteCifarPickle(dir.str(), /*cifar100=*/true, 1, 5, 3, 7, py2);
    std::string path = dir / "train";
    std::string bytes = Slurp(path);
    auto root = ParsePickle(bytes, path);
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    auto arr = PickleToNdArrayU8((*root)->Get("data"), "data");
    ASSERT_TRUE(arr.ok()) << arr.status().ToString();
    ASSERT_EQ(arr->shape, (std::vector<int64_t>{5, 3072}));
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(arr->data.substr(i * 3072, 3072), train.images[i]);
    auto fine = PickleToIntList((*root)->Get("fine_labels"), "fine");
    auto coarse = PickleToIntList((*root)->Get("coarse_labels"), "coarse");
    ASSERT_TRUE(fine.ok() && coarse.ok());
    EXPECT_EQ(*fine, train.fine);
    EXPECT_EQ(*coarse, train.coarse);
  }
}

TEST(PickleReaderTest, EveryTruncationFailsCleanly) {
  TempDir dir;
  fixtures::WriteCifarPickle(dir.str(), false, 1, 2, 1, 3, false);
  std::string bytes = Slurp(dir / "data_batch_1");
  for (size_t cut = 0; cut < bytes.size(); cut += 97) {
    auto root = ParsePickle(std::string_view(bytes).substr(0, cut), "f");
    EXPECT_FALSE(root.ok()) << "cut at " << cut;
  }
}

TEST(PickleReaderTest, ByteFlipsNeverCrash) {
  TempDir dir;
  fixtures::WriteCifarPickle(dir.str(), false, 1, 1, 1, 3, true);
  std::string bytes = Slurp(dir / "data_batch_1");
  for (size_t pos = 0; pos < 400 && pos < bytes.size(); ++pos) {
    std::string b = bytes;
    b[pos] = static_cast<char>(b[pos] ^ 0x5A);
    auto root = ParsePickle(b, "f");
    if (root.ok()) (void)PickleToNdArrayU8((*root)->Get("data"), "data");
  }
}

TEST(PickleReaderTest, RefusesUnknownOpcodeWithItsOffset) {
  auto r = ParsePickle(std::string("\x80\x02}\xff.", 5), "x.pkl");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.pkl"), std::string::npos);
  EXPECT_NE(r.status().message().find("offset 3"), std::string::npos);
  EXPECT_NE(r.status().message().find("0xff"), std::string::npos);
}

TEST(PickleReaderTest, RefusesNestingBeyondItsLimitAndRecursiveValues) {
  // 1,000,000 TUPLE1 opcodes nest one value a million levels deep: freeing
  // that tree recursed once per level and overflowed the stack.
  std::string deep = std::string("\x80\x03N", 3) + std::string(1000000, '\x85') + ".";
  auto r = ParsePickle(deep, "deep.pkl");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested deeper than 64"), std::string::npos) << r.status().ToString();
  // 60 levels still parse.
  auto ok = ParsePickle(std::string("\x80\x03N", 3) + std::string(60, '\x85') + ".", "ok.pkl");
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  // A list appended to itself, and a list appended to a tuple that holds it,
  // would be reference cycles (leaked, and endless to walk).
  auto self = ParsePickle(std::string("\x80\x03]q\x00h\x00" "a.", 9), "self.pkl");
  ASSERT_FALSE(self.ok());
  EXPECT_NE(self.status().message().find("inside itself"), std::string::npos) << self.status().ToString();
  auto cycle = ParsePickle(std::string("\x80\x03]q\x00\x85h\x00\x8c\x01xa.", 13), "cycle.pkl");
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.status().message().find("already inside another"), std::string::npos) << cycle.status().ToString();
}

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  // Incremental = one shot.
  EXPECT_EQ(Crc32c("6789", 4, Crc32c("12345", 5)), 0xE3069283u);
}

}  // namespace
}  // namespace mindrecord::convert
