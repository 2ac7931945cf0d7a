// mindrecord: inspect, read, copy and convert MindRecord datasets.
#include <cstdio>
#include <exception>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "cli/suggest.h"
#include "mindrecord/version.h"

int main(int argc, char** argv) {
  CLI::App app{"mindrecord: tools for MindRecord datasets (MindSpore's sharded dataset format)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mindrecord " MINDRECORD_VERSION);
  int exit_code = mindrecord::cli::kExitOk;
  mindrecord::cli::AddInspectCommand(app, &exit_code);
  mindrecord::cli::AddCatCommand(app, &exit_code);
  mindrecord::cli::AddCopyCommand(app, &exit_code);
  mindrecord::cli::AddAppendCommand(app, &exit_code);
  mindrecord::cli::AddConvertCommand(app, &exit_code);
  mindrecord::cli::AddVerifyCommand(app, &exit_code);
  mindrecord::cli::AddIndexCommand(app, &exit_code);
  mindrecord::cli::AddRecoverCommand(app, &exit_code);
  mindrecord::cli::AddExportCommand(app, &exit_code);
  mindrecord::cli::AddCacheCommand(app, &exit_code);
  if (const std::string msg = mindrecord::cli::UnknownVerb(app, argc, argv); !msg.empty()) {
    std::fprintf(stderr, "mindrecord: %s\n", msg.c_str());
    return mindrecord::cli::kExitUsage;
  }
  // Before the verb runs: its reading settings (--key-file, ...) for every
  // reader it opens.
  app.parse_complete_callback([] {
    const mindrecord::Status st = mindrecord::cli::ApplyReadCrypto(mindrecord::cli::ProcessReadCrypto());
    if (!st.ok()) throw CLI::ValidationError(st.message());
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    if (rc != 0) std::fputs(mindrecord::cli::OptionHints(app, argc, argv).c_str(), stderr);
    return rc == 0 ? 0 : mindrecord::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mindrecord: error: %s\n", e.what());
    return mindrecord::cli::kExitData;
  }
  return exit_code;
}
