// Helpers shared by the test binaries: scratch folders, the compat folder,
// running the CLI.
#pragma once

#include "tests/util/compat_dir.h"

#include <string>

namespace mindrecord::testing {

// A fresh empty folder under $TMPDIR, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A folder under $TMPDIR for this process's shared scratch files (datasets
// that several tests of one binary reuse), made on first use and removed
// with everything in it when the process that made it exits (not by a
// forked child).
const std::string& ProcessTempDir();

// Runs a shell command; returns its exit code and fills *output with stdout
// (stderr too when merge_stderr).
int RunCommand(const std::string& cmd, std::string* output = nullptr, bool merge_stderr = false);

// Path of the mindrecord executable.
std::string CliPath();

// Runs `mindrecord ARGS` under a 60 s time limit (a hang is exit 124); returns
// its exit code and fills *output with stdout (stderr too when merge_stderr).
int Cli(const std::string& args, std::string* output = nullptr, bool merge_stderr = true);

// Sets the environment variable `name` to `value` until destroyed (or Set
// again), then restores what it was (unset when it was unset).
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void Set(const std::string& value);

 private:
  std::string name_, old_;
  bool had_ = false;
};

std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& bytes);

// What this process has read through read(2) / pread(2) so far, from
// /proc/self/io: bytes ("rchar:") or calls ("syscr:"); 0 where the kernel
// does not say.
uint64_t ProcSelfIo(const std::string& what);

}  // namespace mindrecord::testing

#define MR_SKIP_WITHOUT_COMPAT(dir)                                                         \
  do {                                                                                      \
    if ((dir).empty()) GTEST_SKIP() << "../shared/compat not found (set MINDRECORD_COMPAT_DIR)"; \
  } while (0)
