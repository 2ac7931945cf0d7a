// Append journals and commit records: a dataset folder holding a shard "d"
// and fuzzed bytes as its journal (first input byte even) or commit record
// (odd) is opened as a reader would. Whatever the bytes, opening must not
// crash, and nothing outside the folder may change: a canary file beside it
// and the folder's parent listing are checked after every input.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_target.h"
#include "mindrecord/append_journal.h"
#include "mindrecord/commit_record.h"
#include "readers/lock_dataset.h"

namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path root, ds, canary;
  Folder() {
    char tmpl[] = "/tmp/mindrecord-recovery-fuzz-XXXXXX";
    root = mkdtemp(tmpl);
    ds = root / "ds";
    canary = root / "canary";
    std::ofstream(canary) << "outside the dataset";
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

MINDRECORD_FUZZ_TARGET(recovery) {
  static Folder f;
  std::error_code ec;
  fs::remove_all(f.ds, ec);
  fs::create_directory(f.ds);
  const std::string shard = (f.ds / "d").string();
  std::ofstream(shard, std::ios::binary) << std::string(20000, '\0');
  std::ofstream(shard + ".db", std::ios::binary) << "not sqlite";
  if (size > 0) {
    const bool journal = (data[0] & 1) == 0;
    const std::string path = journal ? mindrecord::JournalPath(shard) : mindrecord::CommitRecordPath(shard);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data + 1), size - 1);
  }
  auto lock = mindrecord::LockDatasetAt(shard, mindrecord::DatasetLock::Mode::kShared,
                                        mindrecord::FileSystem::Default());
  (void)lock;
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(f.root)) {
    (void)e;
    ++entries;
  }
  if (Slurp(f.canary) != "outside the dataset" || entries != 2) {
    std::fprintf(stderr, "recovery changed files outside the dataset folder %s\n", f.ds.c_str());
    std::abort();
  }
  return 0;
}
