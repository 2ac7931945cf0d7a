// Where MindSpore's reference files live: $MINDRECORD_COMPAT_DIR, else
// ../shared/compat beside the source tree. Shared by the tests and the
// benchmarks so that no path of a particular machine is written anywhere.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mindrecord::testing {

// The compat folder, canonical; "" when it is absent (a user's fresh clone).
inline std::string CompatDir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("MINDRECORD_COMPAT_DIR"); env && *env) {
    p = env;
  } else {
    p = std::filesystem::path(MINDRECORD_SOURCE_DIR) / ".." / "shared" / "compat";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(p, ec)) return "";
  return std::filesystem::canonical(p, ec).string();
}

}  // namespace mindrecord::testing
