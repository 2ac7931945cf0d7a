// Reading this process's /proc/self/smaps in tests (how the kernel maps a
// region: THP eligibility, file pages mapped as 2 MiB pages).
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace mindrecord::testing {

// The sum of `key`'s value ("Key:   N ...") over the mappings `pick`
// accepts, given each mapping's address range and first line; -1 when it
// accepts none.
template <typename Pick>
long SmapsValue(const std::string& key, Pick pick) {
  std::ifstream smaps("/proc/self/smaps");
  const std::string prefix = key + ":";
  bool inside = false;
  long total = -1;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    // A mapping's first line: "start-end perms offset dev inode [path]".
    if (line.find(':') > line.find(' ') && (range >> std::hex >> lo >> dash >> hi) && dash == '-') {
      inside = pick(lo, hi, line);
    } else if (inside && line.rfind(prefix, 0) == 0) {
      total = (total < 0 ? 0 : total) + std::stol(line.substr(prefix.size()));
    }
  }
  return total;
}

}  // namespace mindrecord::testing
