// The `mindrecord` executable's verbs. Each Add*Command registers a CLI11
// subcommand whose callback stores its exit code in *exit_code.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "mindrecord/status.h"
#include "readers/remote_options.h"

namespace mindrecord {
class ShardReader;
class ShardWriter;
}  // namespace mindrecord

namespace mindrecord::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;  // bad arguments
inline constexpr int kExitData = 2;   // data or I/O error

// Prints "mindrecord <verb>: error: <message>" to stderr for a failed status
// and returns the exit code: kExitUsage for InvalidArgument, else kExitData.
int ReportStatus(const char* verb, const Status& status);
// `message` with the options that give what a MindSpore message asks for in
// Python (its set_enc_key / set_hash_mode settings: --key-file, ...).
std::string WithOptionHint(const std::string& message);
// Prints "mindrecord <verb>: warning: <message>" to stderr for each of the
// reader's warnings (a shard whose .db is missing).
void ReportWarnings(const char* verb, const ShardReader& r);

// Writes every row of `r` to `w` in row-id order, in batches bounded by rows
// and bytes: moved in their encoded form, or decoded and re-encoded when
// `reencode` (the layouts differ, e.g. 2.0 vs 3.0).
Status MoveRows(const ShardReader& r, ShardWriter* w, bool reencode);

// `--write-mode auto|direct|buffered` on a command writing a new dataset
// (WriterOptions::direct_writes): direct writes pages with O_DIRECT where the
// file system takes it, buffered goes through the page cache; auto is the
// command's measured default, *direct_writes as it is when this is called.
inline void AddWriteModeOption(CLI::App* cmd, bool* direct_writes) {
  const bool auto_direct = *direct_writes;  // the command's default, what auto picks
  const std::string auto_is = auto_direct ? "direct where the file system takes it" : "buffered";
  cmd->add_option_function<std::string>(
         "--write-mode",
         [direct_writes, auto_direct](const std::string& mode) {
           *direct_writes = mode == "direct" || (mode == "auto" && auto_direct);
         },
         "auto (default: " + auto_is + "); direct: pages written with O_DIRECT from background threads where the "
         "file system takes it; buffered: through the page cache, flushed in the background every 32 MiB "
         "(same bytes either way)")
      ->check(CLI::IsMember({"auto", "direct", "buffered"}))
      ->option_text("auto|direct|buffered");
}

// `--endpoint URL`, `--cache-dir DIR` and `--cache-size BYTES` (K/M/G/T
// suffixes, powers of 1024; 0: no disk cache) on a verb that reads a dataset
// which may be named by URL (https://, http://, s3://BUCKET/KEY): they fill
// `*out`, the reader's RemoteOptions.
void AddRemoteOptions(CLI::App* cmd, RemoteOptions* out);

void AddInspectCommand(CLI::App& app, int* exit_code);
void AddCatCommand(CLI::App& app, int* exit_code);
void AddCopyCommand(CLI::App& app, int* exit_code);
void AddAppendCommand(CLI::App& app, int* exit_code);
void AddConvertCommand(CLI::App& app, int* exit_code);
void AddVerifyCommand(CLI::App& app, int* exit_code);
void AddIndexCommand(CLI::App& app, int* exit_code);
void AddRecoverCommand(CLI::App& app, int* exit_code);
void AddExportCommand(CLI::App& app, int* exit_code);
void AddCacheCommand(CLI::App& app, int* exit_code);

}  // namespace mindrecord::cli
