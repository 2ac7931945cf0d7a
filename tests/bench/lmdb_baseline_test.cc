// The benchmark's LMDB baseline: records under row-id keys, read back by id
// and by a cursor in key order, errors naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "benchmarks/baselines/lmdb_store.h"

namespace mindrecord::bench {
namespace {

TEST(LmdbBaseline, RecordsComeBackByIdAndInOrder) {
  std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-lmdb-test-XXXXXX";
  const std::string dir = mkdtemp(tmpl.data());
  const std::string path = dir + "/r.lmdb";
  std::vector<std::string> values;
  // Past 255 and 65535 ids: keys must sort as numbers (big-endian bytes).
  for (int i = 0; i < 70000; ++i) values.push_back("record " + std::to_string(i) + std::string(i % 37, 'x'));
  {
    auto w = LmdbWriter::Create(path, 256 << 20);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& v : values) ASSERT_TRUE((*w)->Append(v).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto r = LmdbReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->rows(), values.size());
  for (uint64_t id : {0, 1, 255, 256, 65535, 65536, 69999}) {
    auto v = (*r)->Get(id);
    ASSERT_TRUE(v.ok()) << id;
    EXPECT_EQ(*v, values[id]);
  }
  auto missing = (*r)->Get(70000);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find(path), std::string::npos) << missing.status().ToString();
  size_t i = 0;
  ASSERT_TRUE((*r)->Scan([&](std::string_view v) {
    EXPECT_EQ(v, values[i]) << i;
    ++i;
    return Status::OK();
  }).ok());
  EXPECT_EQ(i, values.size());
  EXPECT_FALSE(LmdbReader::Open(dir + "/none.lmdb").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mindrecord::bench
