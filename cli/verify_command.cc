// `mindrecord verify PATH [--json] [--deep]` and
// `mindrecord index rebuild PATH [--force]`.
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "readers/verifier.h"
#include "writers/index_rebuild.h"

namespace mindrecord::cli {

void AddVerifyCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("verify", "Check a dataset: shards, headers, checksums, pages, index, rows");
  auto path = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto deep = std::make_shared<bool>(false);
  sub->add_option("path", *path, "Any shard file of the dataset")->required();
  sub->add_flag("--json", *as_json, "Print one JSON object");
  sub->add_flag("--deep", *deep, "Also decode every row against the schema");
  sub->callback([=] {
    VerifyOptions o;
    o.deep = *deep;
    VerifyReport rep = Verify(*path, o);
    if (*as_json) {
      std::cout << rep.ToJson().dump(2) << "\n";
    } else {
      for (const auto& p : rep.problems) std::printf("problem: %s\n", p.c_str());
      std::printf("%s: %llu shards, %llu rows, %llu pages (%llu with checksums)%s: %s\n", path->c_str(),
                  static_cast<unsigned long long>(rep.shards), static_cast<unsigned long long>(rep.rows),
                  static_cast<unsigned long long>(rep.pages), static_cast<unsigned long long>(rep.pages_checksummed),
                  *deep ? (", " + std::to_string(rep.rows_decoded) + " rows decoded").c_str() : "",
                  rep.ok() ? "clean" : (std::to_string(rep.problems.size()) + " problems").c_str());
    }
    *exit_code = rep.ok() ? kExitOk : kExitData;
  });
}

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
