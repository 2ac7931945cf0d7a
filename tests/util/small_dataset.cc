#include "tests/util/small_dataset.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "mindrecord/append_journal.h"
#include "mindrecord/compression.h"
#include "tests/util/test_rows.h"
#include "writers/shard_writer.h"

namespace mindrecord::testing {

std::vector<Row> IdNameImgRows(int n, int first) {
  std::vector<Row> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back(Row{{"id", Value::Int(i)}, {"name", Value::String("n")},
                       {"img", Value::Bytes(std::string(100, 'x'))},
                       {"v", Value::ArrayOf<int32_t>(DataType::kInt32, {i})}});
  }
  return rows;
}

std::vector<std::string> WriteIdNameImg(const std::string& path, const std::vector<Row>& rows,
                                        const SmallDatasetOptions& options) {
  WriterOptions o;
  o.shard_count = options.shards;
  o.header_size = options.header_size;
  o.page_size = kMinPageSize;
  o.checksums = options.checksums;
  o.overwrite = options.overwrite;
  if (!options.compression.empty()) {
    auto c = ParseCompression(options.compression);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (c.ok()) o.compression = *c;
  }
  auto w = ShardWriter::Create(path, IdNameImgSchema(), o);
  EXPECT_TRUE(w.ok()) << path << ": " << w.status().ToString();
  if (!w.ok()) return {};
  EXPECT_TRUE((*w)->WriteRows(rows).ok());
  EXPECT_TRUE((*w)->Commit().ok());
  return (*w)->shard_paths();
}

void InterruptedAppend(const std::string& shard, const std::vector<Row>& rows) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto w = ShardWriter::OpenForAppend(shard);
    if (!w.ok() || !(*w)->WriteRows(rows).ok()) _exit(3);
    _exit(0);  // no destructors: as if killed before Commit
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << shard << ": the append failed";
  ASSERT_TRUE(std::filesystem::exists(JournalPath(shard)));
}

}  // namespace mindrecord::testing
