// Helpers for the converter tests: temp folders, the compat folder, reading a
// converted dataset back, and running the CLI.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "readers/shard_reader.h"
#include "tests/util/compat_dir.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert::testing {

namespace fs = std::filesystem;

// A fresh folder under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("mr_convert_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

using ::mindrecord::testing::CompatDir;

#define MR_REQUIRE_COMPAT(dir)                                                                        \
  const std::string dir = ::mindrecord::convert::testing::CompatDir();                             \
  if (dir.empty()) GTEST_SKIP() << "compat folder (../shared/compat or MINDRECORD_COMPAT_DIR) absent; " \
                                   "these tests need MindSpore's reference source files"

// Small files for tests: 64 KiB header, 1 MiB pages.
inline ConvertOptions SmallOptions(uint32_t workers = 2) {
  ConvertOptions o;
  o.header_size = 64 * 1024;
  o.page_size = 1 << 20;
  o.workers = workers;
  return o;
}

// Every row of the dataset at `path`, in row-id order.
inline std::vector<Row> ReadAll(const std::string& path) {
  std::vector<Row> rows;
  auto reader = ShardReader::Open(path);
  EXPECT_TRUE(reader.ok()) << path << ": " << reader.status().ToString();
  if (!reader.ok()) return rows;
  Status st = (*reader)->Scan(0, (*reader)->num_rows(), nullptr, [&](uint64_t, Row&& row) {
    rows.push_back(std::move(row));
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return rows;
}

inline Schema ReadSchema(const std::string& path) {
  auto reader = ShardReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? (*reader)->schema() : Schema();
}

inline std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs the CLI with `args`; returns its exit code, stderr+stdout in *output.
inline int RunCli(const std::string& args, std::string* output = nullptr) {
  std::string log = (fs::temp_directory_path() / ("mr_cli_" + std::to_string(::getpid()) + ".log")).string();
  std::string cmd = std::string("'") + MINDRECORD_CLI_PATH + "' " + args + " >'" + log + "' 2>&1";
  int rc = std::system(cmd.c_str());
  if (output) *output = Slurp(log);
  fs::remove(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline bool CliBuilt() { return fs::exists(MINDRECORD_CLI_PATH); }

// Every file in `dir` whose name starts with `prefix`.
inline std::vector<std::string> FilesStartingWith(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().filename().string());
  }
  return out;
}

}  // namespace mindrecord::convert::testing
