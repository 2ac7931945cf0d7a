#include "tests/util/test_util.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mindrecord::testing {

namespace {

// A new empty folder under $TMPDIR; aborts when none can be made (a
// fallback such as /tmp itself would be removed with everything in it).
std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mindrecord-test-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror(("mkdtemp " + tmpl).c_str());
    std::abort();
  }
  return tmpl;
}

}  // namespace

TempDir::TempDir() : path_(MakeTempDir()) {}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

const std::string& ProcessTempDir() {
  // Removed only by the process that made it: a forked child that exits
  // normally runs this destructor too.
  struct Owned {
    std::string path = MakeTempDir();
    pid_t owner = ::getpid();
    ~Owned() {
      if (::getpid() != owner) return;
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Owned owned;
  return owned.path;
}

int RunCommand(const std::string& cmd, std::string* output, bool merge_stderr) {
  std::string full = cmd + (merge_stderr ? " 2>&1" : "");
  FILE* f = popen(full.c_str(), "r");
  if (!f) return -1;
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int rc = pclose(f);
  if (output) *output = out;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string CliPath() {
#ifdef MINDRECORD_CLI_PATH
  return MINDRECORD_CLI_PATH;
#else
  return "mindrecord";
#endif
}

int Cli(const std::string& args, std::string* output, bool merge_stderr) {
  return RunCommand("timeout 60 " + CliPath() + " " + args, output, merge_stderr);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

uint64_t ProcSelfIo(const std::string& what) {
  std::ifstream io("/proc/self/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value) {
    if (key == what) return value;
  }
  return 0;
}

ScopedEnv::ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
  if (const char* v = std::getenv(name_.c_str())) {
    had_ = true;
    old_ = v;
  }
  Set(value);
}

ScopedEnv::~ScopedEnv() {
  if (had_) {
    setenv(name_.c_str(), old_.c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

void ScopedEnv::Set(const std::string& value) { setenv(name_.c_str(), value.c_str(), 1); }

}  // namespace mindrecord::testing
