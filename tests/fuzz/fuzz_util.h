// Helpers shared by the libFuzzer targets: a per-process scratch folder,
// file writing, splitting one input into several files, and driving the
// converter planners without writing a dataset.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "writers/convert/convert_engine.h"

namespace mindrecord::fuzz {

// A scratch folder for this process (in /dev/shm when it exists), emptied
// before every input.
// A folder for this process's scratch files, removed when it exits normally
// (a crash leaves it for inspection). Leaked, so that the exit handler finds
// it whatever the order of static destruction.
inline const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path* dir = [] {
    std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    auto* d = new std::filesystem::path(base / ("mindrecord_fuzz_" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*dir, ec);
    });
    return d;
  }();
  return *dir;
}

inline std::filesystem::path FreshScratch() {
  const auto& d = ScratchDir();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(d, ec)) std::filesystem::remove_all(e.path(), ec);
  return d;
}

inline void WriteFile(const std::filesystem::path& p, std::string_view bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Inputs holding several files separate them with this line.
inline constexpr std::string_view kFileSeparator = "\n--mindrecord-fuzz-file--\n";

inline std::vector<std::string_view> SplitFiles(std::string_view data, size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    size_t at = data.find(kFileSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(data.substr(0, at));
    data.remove_prefix(at + kFileSeparator.size());
  }
  parts.push_back(data);
  while (parts.size() < max_parts) parts.emplace_back();
  return parts;
}

// True when `p` names a file inside `dir` (converter inputs may name other
// paths: the harness never lets them read outside the scratch folder).
inline bool Inside(const std::filesystem::path& dir, const std::filesystem::path& p) {
  auto rel = p.lexically_normal().lexically_relative(dir.lexically_normal());
  return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
}

// Builds (and checks against its schema) up to `max_rows` rows of each plan,
// the way the convert engine's workers would; errors are expected outcomes.
inline void DrivePlans(const Result<std::vector<convert::SplitPlan>>& plans, size_t max_rows,
                       const std::filesystem::path* confine = nullptr) {
  if (!plans.ok()) return;
  for (const auto& plan : *plans) {
    for (size_t i = 0; i < plan.num_items && i < max_rows; ++i) {
      const std::string name = plan.item_name(i);
      if (confine && !Inside(*confine, name)) continue;
      auto row = plan.make_row(i);
      if (row.ok()) (void)plan.schema.ValidateRow(*row);
    }
  }
}

}  // namespace mindrecord::fuzz
