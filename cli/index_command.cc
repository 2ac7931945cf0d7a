// `mindrecord index rebuild PATH [--force]`: regenerates missing or damaged
// .db files from the pages (writers/index_rebuild.h).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "writers/index_rebuild.h"

namespace mindrecord::cli {

void AddIndexCommand(CLI::App& app, int* exit_code) {
  auto* index = app.add_subcommand("index", "Maintain the SQLite index files");
  index->require_subcommand(1);
  auto* rebuild = index->add_subcommand("rebuild", "Regenerate missing or damaged .db files from the pages");
  auto path = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  rebuild->add_option("path", *path, "Any shard file of the dataset")->required();
  rebuild->add_flag("--force", *force, "Rewrite every index file, even those that agree with the pages");
  rebuild->callback([=] {
    auto rep = RebuildIndex(*path, *force);
    if (!rep.ok()) {
      *exit_code = ReportStatus("index rebuild", rep.status());
      return;
    }
    for (const auto& f : rep->rebuilt) std::printf("rebuilt %s\n", f.c_str());
    for (const auto& f : rep->kept) std::printf("kept    %s\n", f.c_str());
    *exit_code = kExitOk;
  });
}

}  // namespace mindrecord::cli
