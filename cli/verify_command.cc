// `mindrecord verify PATH [--json] [--deep]`.
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "readers/verifier.h"

namespace mindrecord::cli {

void AddVerifyCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("verify", "Check a dataset: shards, headers, checksums, pages, index, rows");
  AddReadCryptoOptions(sub);
  auto path = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto deep = std::make_shared<bool>(false);
  sub->add_option("path", *path, "Any shard file of the dataset")->required();
  sub->add_flag("--json", *as_json, "Print one JSON object");
  sub->add_flag("--deep", *deep, "Also decode every row against the schema");
  auto remote = std::make_shared<RemoteOptions>();
  AddRemoteOptions(sub, remote.get());
  sub->callback([=] {
    VerifyOptions o;
    o.deep = *deep;
    o.remote = *remote;
    VerifyReport rep = Verify(*path, o);
    if (*as_json) {
      std::cout << rep.ToJson().dump(2) << "\n";
    } else {
      for (const auto& p : rep.problems) std::printf("problem: %s\n", WithOptionHint(p).c_str());
      std::printf("%s: %llu shards, %llu rows, %llu pages (%llu with checksums)%s: %s\n", path->c_str(),
                  static_cast<unsigned long long>(rep.shards), static_cast<unsigned long long>(rep.rows),
                  static_cast<unsigned long long>(rep.pages), static_cast<unsigned long long>(rep.pages_checksummed),
                  *deep ? (", " + std::to_string(rep.rows_decoded) + " rows decoded").c_str() : "",
                  rep.ok() ? "clean" : (std::to_string(rep.problems.size()) + " problems").c_str());
    }
    *exit_code = rep.ok() ? kExitOk : kExitData;
  });
}

}  // namespace mindrecord::cli
