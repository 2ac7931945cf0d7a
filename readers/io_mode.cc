// IoMode names and the memory figure IoMode::kAuto compares a dataset with.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "readers/shard_reader.h"

namespace mindrecord {

const char* IoModeName(IoMode mode) {
  switch (mode) {
    case IoMode::kPread: return "pread";
    case IoMode::kMmap: return "mmap";
    case IoMode::kDirect: return "direct";
    case IoMode::kAuto: return "auto";
  }
  return "unknown";
}

Result<IoMode> ParseIoMode(const std::string& name) {
  std::string names;
  const size_t n = std::size(kIoModes);
  for (size_t i = 0; i < n; ++i) {
    if (name == IoModeName(kIoModes[i])) return kIoModes[i];
    names += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + "\"" + IoModeName(kIoModes[i]) + "\"";
  }
  return Status::InvalidArgument("io_mode must be " + names + ", got \"" + name + "\"");
}

namespace {

// A "Key:   N kB" line of /proc/meminfo, in bytes; 0 when absent.
uint64_t MeminfoBytes(const std::string& key) {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream in(line.substr(key.size() + 1));
    uint64_t kb = 0;
    in >> kb;
    return kb * 1024;
  }
  return 0;
}

uint64_t ReadNumber(const std::string& path, bool* ok) {
  std::ifstream f(path);
  std::string word;
  *ok = static_cast<bool>(f >> word) && !word.empty() &&
        std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
  return *ok ? std::stoull(word) : 0;
}

// A `key N` line of a cgroup's memory.stat; 0 when absent.
uint64_t StatValue(const std::string& path, const std::string& want) {
  std::ifstream f(path);
  std::string key;
  uint64_t value = 0;
  while (f >> key >> value) {
    if (key == want) return value;
  }
  return 0;
}

// What this process's memory cgroup leaves for page cache: its limit less its
// usage that is not page cache (page cache is charged to the cgroup and is
// reclaimed under the limit). cgroup v2 (memory.max) and v1
// (memory.limit_in_bytes); 0 when there is no limit ("max", or v1's huge
// number, which the caller's minimum ignores) or no memory cgroup.
uint64_t CgroupRoomBytes() {
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string dir, limit, usage, stat, cache_key;
    if (controllers.empty()) {
      dir = "/sys/fs/cgroup" + path;
      limit = "memory.max", usage = "memory.current", cache_key = "file";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      dir = "/sys/fs/cgroup/memory" + path;
      limit = "memory.limit_in_bytes", usage = "memory.usage_in_bytes", cache_key = "total_cache";
    } else {
      continue;
    }
    bool ok_max = false, ok_cur = false;
    const uint64_t max = ReadNumber(dir + "/" + limit, &ok_max);
    if (!ok_max) continue;
    const uint64_t cur = ReadNumber(dir + "/" + usage, &ok_cur);
    const uint64_t cache = StatValue(dir + "/memory.stat", cache_key);
    const uint64_t other = ok_cur && cur > cache ? cur - cache : 0;
    return other < max ? max - other : 1;
  }
  return 0;
}

}  // namespace

uint64_t AvailableMemoryBytes() {
  uint64_t avail = MeminfoBytes("MemAvailable");
  if (avail == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    avail = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  }
  const uint64_t room = CgroupRoomBytes();
  if (room > 0 && (avail == 0 || room < avail)) avail = room;
  return avail;
}

}  // namespace mindrecord
