// A writer killed before its commit leaves hidden temporaries (as large as
// the dataset); the next writer of the same shards removes those whose
// process is gone and keeps a live writer's.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "mindrecord/file.h"
#include "readers/shard_reader.h"
#include "tests/util/test_util.h"
#include "writers/shard_writer.h"

namespace fs = std::filesystem;

namespace mindrecord {
namespace {

using testing::Cli;
using testing::CliPath;
using testing::TempDir;
using testing::WriteFile;

std::vector<std::string> Temporaries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A process id no process has now: a child that has exited and been reaped.
pid_t GonePid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(KilledWriterTest, TheNextConvertRemovesWhatAKilledConvertLeft) {
  TempDir dir;
  std::string csv = "id,text\n";
  for (int i = 0; i < 300000; ++i) csv += std::to_string(i) + ",row " + std::to_string(i) + " of the killed convert\n";
  WriteFile(dir.Join("in.csv"), csv);
  const std::string out = dir.Join("out.mindrecord");
  const std::string cli = CliPath(), in = dir.Join("in.csv");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(cli.c_str(), "mindrecord", "convert", "csv", in.c_str(), out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Killed as soon as it writes: long before its commit.
  for (int i = 0; i < 20000 && Temporaries(dir.path()).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::vector<std::string> left = Temporaries(dir.path());
  ASSERT_FALSE(left.empty()) << "the convert ended before it was killed";
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_FALSE(fs::exists(out));
  // A temporary of a writer that still runs (this process) is kept.
  const std::string live = ".out.mindrecord.tmp-" + std::to_string(getpid()) + "-0";
  WriteFile(dir.Join(live), "a live writer's");
  std::string text;
  ASSERT_EQ(Cli("convert csv " + in + " " + out, &text), 0) << text;
  EXPECT_EQ(Temporaries(dir.path()), std::vector<std::string>{live}) << "left by the killed convert: " << left.size();
  auto r = ShardReader::Open(out);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_rows(), 300000u);
}

TEST(KilledWriterTest, OnlyTheShardsOwnTemporariesOfAGoneWriterAreRemoved) {
  TempDir dir;
  const std::string out = dir.Join("d.mindrecord");
  const pid_t gone = GonePid();
  const std::string g = std::to_string(gone), me = std::to_string(getpid());
  const std::vector<std::string> removed = {
      ".d.mindrecord0.tmp-" + g + "-0", ".d.mindrecord0.db.tmp-" + g + "-1",
      ".d.mindrecord0.db.tmp-" + g + "-1-journal", ".d.mindrecord1.tmp-" + g + "-2"};
  const std::vector<std::string> kept = {
      ".d.mindrecord0.tmp-" + me + "-5",   // a live writer's
      ".d.mindrecord0.tmp-" + g,            // not ShardWriter's name
      ".d.mindrecord0.tmp-x-1",             // nor this
      ".d.mindrecord2.tmp-" + g + "-3",    // not a shard this writer writes
      ".other.tmp-" + g + "-4", "d.mindrecord0.tmp-" + g + "-6"};
  for (const auto& n : removed) WriteFile(dir.Join(n), "left");
  for (const auto& n : kept) WriteFile(dir.Join(n), "kept");
  // A link named as a temporary is removed itself; its target stays.
  fs::create_directory(dir.Join("elsewhere"));
  WriteFile(dir.Join("elsewhere/target"), "not the writer's");
  fs::create_symlink(dir.Join("elsewhere/target"), dir.Join(".d.mindrecord1.db.tmp-" + g + "-7"));
  WriterOptions o;
  o.shard_count = 2;
  auto schema = Schema::Make({{"label", DataType::kInt64, false, {}}}).value();
  auto w = ShardWriter::Create(out, schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows({Row{{"label", Value::Int(1)}}}).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  std::vector<std::string> expect = kept;
  std::sort(expect.begin(), expect.end());
  EXPECT_EQ(Temporaries(dir.path()), expect);
  EXPECT_TRUE(fs::exists(dir.Join("elsewhere/target")));
}

}  // namespace
}  // namespace mindrecord
