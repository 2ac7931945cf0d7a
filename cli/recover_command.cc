// `mindrecord recover PATH [--roll-back | --discard]` (readers/recover.h):
// the user's decision about an interrupted append or commit that opening the
// dataset reported and left alone.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "readers/recover.h"

namespace mindrecord::cli {

void AddRecoverCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "recover", "Finish or undo an interrupted append or commit that opening a dataset reported and left alone");
  auto path = std::make_shared<std::string>();
  auto roll_back = std::make_shared<bool>(false);
  auto discard = std::make_shared<bool>(false);
  cmd->add_option("path", *path, "Any shard file of the dataset")->required();
  auto* rb = cmd->add_flag("--roll-back", *roll_back,
                           "Roll back the interrupted append although the shards are other files than those "
                           "journaled (a folder copied while the append ran)");
  auto* dc = cmd->add_flag("--discard", *discard,
                           "Remove the dataset's append journals and commit record without applying them, keeping "
                           "its files as they are");
  rb->excludes(dc);
  cmd->callback([=] {
    const RecoverMode mode = *roll_back ? RecoverMode::kRollBack
                             : *discard ? RecoverMode::kDiscard
                                        : RecoverMode::kAsOpen;
    auto done = Recover(*path, mode);
    if (!done.ok()) {
      *exit_code = ReportStatus("recover", done.status());
      return;
    }
    for (const auto& line : *done) std::printf("%s\n", line.c_str());
    *exit_code = kExitOk;
  });
}

}  // namespace mindrecord::cli
