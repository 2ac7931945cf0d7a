#include "writers/stale_temps.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace mindrecord {
namespace {

constexpr std::string_view kTempInfix = ".tmp-";

// The PID in "PID-N" or "PID-N-journal", or 0 when `rest` is neither.
pid_t ParsePidCounter(std::string_view rest) {
  if (rest.size() > 8 && rest.substr(rest.size() - 8) == "-journal") rest.remove_suffix(8);
  const size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return 0;
  long long pid = 0;
  uint64_t n = 0;
  const char* b = rest.data();
  auto r1 = std::from_chars(b, b + dash, pid);
  auto r2 = std::from_chars(b + dash + 1, b + rest.size(), n);
  if (r1.ec != std::errc() || r1.ptr != b + dash || r2.ec != std::errc() || r2.ptr != b + rest.size()) return 0;
  if (pid <= 0 || pid > INT32_MAX) return 0;
  return static_cast<pid_t>(pid);
}

bool ProcessGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

std::string WriterTempName(const std::string& final_path, uint64_t n) {
  return HiddenSibling(final_path, std::string(kTempInfix) + std::to_string(getpid()) + "-" + std::to_string(n));
}

int RemoveStaleTemps(const std::vector<std::string>& final_paths, FileSystem* fs) {
  if (fs != FileSystem::Default() || final_paths.empty()) return 0;
  const std::string dir = DirName(final_paths.front());
  std::unordered_set<std::string> names;  // ".NAME" of each final file
  for (const auto& p : final_paths) {
    std::string n = ".";  // (not "." + BaseName(p): GCC 12's false -Wstringop-overflow)
    names.insert(n.append(BaseName(p)));
  }
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return 0;
  std::vector<std::string> stale;
  while (const dirent* e = readdir(d.get())) {
    const std::string_view name = e->d_name;
    const size_t at = name.rfind(kTempInfix);
    if (name.empty() || name[0] != '.' || at == std::string_view::npos) continue;
    if (names.count(std::string(name.substr(0, at))) == 0) continue;
    const pid_t pid = ParsePidCounter(name.substr(at + kTempInfix.size()));
    if (pid == 0 || pid == getpid() || !ProcessGone(pid)) continue;
    stale.emplace_back(name);
  }
  int removed = 0;
  for (const auto& name : stale) removed += fs->Remove(JoinPath(dir, name)).ok();
  return removed;
}

}  // namespace mindrecord
