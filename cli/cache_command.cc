// `mindrecord cache ls [--dir DIR] [--json]` and `mindrecord cache drop
// NAME... | --all [--dir DIR]`: shows and frees the dataset caches
// (DatasetCache / the plan's cache node, pipeline/cache/cache_store.h) under
// DIR (default $MINDRECORD_CACHE_DIR or /dev/shm/mindrecord-cache).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "pipeline/cache/cache_store.h"

namespace mindrecord::cli {

namespace {

std::string DatasetOf(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("dataset") || !meta["dataset"].is_array() || meta["dataset"].empty()) {
    return "?";
  }
  const auto& first = meta["dataset"][0];
  std::string s = first.is_object() && first.contains("path") && first["path"].is_string()
                      ? first["path"].get<std::string>()
                      : "?";
  if (meta["dataset"].size() > 1) s += " (+" + std::to_string(meta["dataset"].size() - 1) + " shards)";
  return s;
}

}  // namespace

void AddCacheCommand(CLI::App& app, int* exit_code) {
  auto* cache = app.add_subcommand("cache", "Show and free dataset caches (DatasetCache)");
  cache->require_subcommand(1);
  auto dir = std::make_shared<std::string>();
  auto* ls = cache->add_subcommand("ls", "List the caches: name, dataset, bytes, entries, hits, misses");
  auto json_out = std::make_shared<bool>(false);
  ls->add_option("--dir", *dir, "Folder of the caches (default $MINDRECORD_CACHE_DIR or /dev/shm/mindrecord-cache)");
  ls->add_flag("--json", *json_out, "One JSON object per cache, one per line");
  ls->callback([=] {
    const std::string root = dir->empty() ? DefaultCacheRoot() : *dir;
    auto list = ListCaches(root);
    if (!list.ok()) {
      *exit_code = ReportStatus("cache ls", list.status());
      return;
    }
    if (!*json_out) std::printf("%-20s %-16s %14s %9s %10s %10s  %s\n", "NAME", "KEY", "BYTES", "ENTRIES", "HITS",
                                "MISSES", "DATASET");
    for (const auto& c : *list) {
      if (*json_out) {
        nlohmann::json j = {{"name", c.session_id}, {"key", c.fingerprint},   {"bytes", c.counters.bytes},
                            {"entries", c.counters.entries}, {"hits", c.counters.hits}, {"misses", c.counters.misses},
                            {"disk_bytes", c.disk_bytes},    {"dataset", DatasetOf(c.meta)}};
        if (c.meta.is_object() && c.meta.contains("chain")) j["chain"] = c.meta["chain"];
        std::printf("%s\n", j.dump().c_str());
      } else {
        std::printf("%-20s %-16s %14llu %9llu %10llu %10llu  %s\n", c.session_id.c_str(), c.fingerprint.c_str(),
                    static_cast<unsigned long long>(c.counters.bytes),
                    static_cast<unsigned long long>(c.counters.entries),
                    static_cast<unsigned long long>(c.counters.hits),
                    static_cast<unsigned long long>(c.counters.misses), DatasetOf(c.meta).c_str());
      }
    }
    *exit_code = kExitOk;
  });
  auto* drop = cache->add_subcommand("drop", "Remove caches (their entries are freed at once)");
  auto names = std::make_shared<std::vector<std::string>>();
  auto all = std::make_shared<bool>(false);
  drop->add_option("name", *names, "Cache names (session ids) to remove");
  drop->add_flag("--all", *all, "Remove every cache under the folder");
  drop->add_option("--dir", *dir, "Folder of the caches (default $MINDRECORD_CACHE_DIR or /dev/shm/mindrecord-cache)");
  drop->callback([=] {
    const std::string root = dir->empty() ? DefaultCacheRoot() : *dir;
    if (*all == !names->empty()) {
      *exit_code = ReportStatus("cache drop", Status::InvalidArgument("give cache names or --all (not both)"));
      return;
    }
    std::vector<std::string> targets = *names;
    if (*all) {
      auto list = ListCaches(root);
      if (!list.ok()) {
        *exit_code = ReportStatus("cache drop", list.status());
        return;
      }
      for (const auto& c : *list)
        if (targets.empty() || targets.back() != c.session_id) targets.push_back(c.session_id);
    }
    *exit_code = kExitOk;
    for (const auto& n : targets) {
      Status st = DropCache(root, n);
      if (!st.ok()) {
        *exit_code = ReportStatus("cache drop", st);
        continue;
      }
      std::printf("dropped %s\n", n.c_str());
    }
  });
}

}  // namespace mindrecord::cli
