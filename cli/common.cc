#include <cctype>
#include <cstdio>

#include "cli/command.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::cli {

std::string WithOptionHint(const std::string& message) {
  // MindSpore's messages name its Python settings; the options that set them here.
  if (message.find("is not encrypted") != std::string::npos) return message + " [command line: without --key-file]";
  if (message.find("set_enc_key") != std::string::npos || message.find("dec_mode is valid") != std::string::npos) {
    return message + " [command line: --key-file FILE, --dec-mode MODE]";
  }
  if (message.find("set_hash_mode") != std::string::npos || message.find("hash mode") != std::string::npos) {
    return message + " [command line: --hash-mode MODE]";
  }
  return message;
}

int ReportStatus(const char* verb, const Status& status) {
  if (status.ok()) return kExitOk;
  std::fprintf(stderr, "mindrecord %s: error: %s\n", verb, WithOptionHint(status.message()).c_str());
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitData;
}

void ReportWarnings(const char* verb, const ShardReader& r) {
  for (const auto& w : r.warnings()) std::fprintf(stderr, "mindrecord %s: warning: %s\n", verb, w.c_str());
}

Status MoveRows(const ShardReader& r, ShardWriter* w, bool reencode) {
  constexpr size_t kBatchRows = 4096;
  constexpr size_t kBatchBytes = 64 << 20;
  if (reencode) {
    // Bounded by the rows' decoded bytes too: 4,096 rows of a dataset whose
    // values inflate (up to 256 MiB a row) could take a terabyte.
    std::vector<Row> rows;
    size_t bytes = 0;
    for (uint64_t id = 0; id < r.num_rows(); ++id) {
      MR_ASSIGN_OR_RETURN(Row row, r.ReadRow(id));
      bytes += row.value_bytes();
      rows.push_back(std::move(row));
      if (rows.size() >= kBatchRows || bytes >= kBatchBytes || id + 1 == r.num_rows()) {
        MR_RETURN_IF_ERROR(w->WriteRows(std::move(rows)));
        rows.clear();
        bytes = 0;
      }
    }
    return Status::OK();
  }
  std::vector<EncodedRow> batch;
  size_t bytes = 0;
  for (uint64_t id = 0; id < r.num_rows(); ++id) {
    MR_ASSIGN_OR_RETURN(EncodedRow row, r.ReadEncoded(id));
    bytes += row.raw.size() + row.blob.size();
    batch.push_back(std::move(row));
    if (batch.size() >= kBatchRows || bytes >= kBatchBytes) {
      MR_RETURN_IF_ERROR(w->WriteEncoded(std::move(batch)));
      batch.clear();
      bytes = 0;
    }
  }
  if (!batch.empty()) MR_RETURN_IF_ERROR(w->WriteEncoded(std::move(batch)));
  return Status::OK();
}

void AddRemoteOptions(CLI::App* cmd, RemoteOptions* out) {
  cmd->add_option("--endpoint", out->endpoint,
                  "S3 endpoint for s3:// paths, e.g. http://127.0.0.1:9000 (default: $AWS_ENDPOINT_URL, the AWS "
                  "profile's endpoint_url, else AWS)")
      ->option_text("URL");
  cmd->add_option("--cache-dir", out->cache_dir,
                  "Remote datasets: the local page cache folder (default: $XDG_CACHE_HOME/mindrecord or "
                  "~/.cache/mindrecord)")
      ->option_text("DIR");
  cmd->add_option_function<std::string>(
         "--cache-size",
         [out](const std::string& text) {
           size_t used = 0;
           unsigned long long n = 0;
           try {
             n = std::stoull(text, &used);
           } catch (const std::exception&) {
             throw CLI::ValidationError("--cache-size", "'" + text + "' is not a byte count (e.g. 512M, 4G)");
           }
           std::string unit = text.substr(used);
           if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
           if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) unit.pop_back();
           const std::string units = "KMGT";
           int shift = 0;
           if (unit.size() == 1 && units.find(static_cast<char>(std::toupper(unit[0]))) != std::string::npos) {
             shift = 10 * (1 + static_cast<int>(units.find(static_cast<char>(std::toupper(unit[0])))));
           } else if (!unit.empty()) {
             throw CLI::ValidationError("--cache-size", "'" + text + "': the unit must be K, M, G or T");
           }
           if (shift && n > (~0ull >> shift)) throw CLI::ValidationError("--cache-size", "'" + text + "' is too large");
           out->cache_bytes = n << shift;
         },
         "Remote datasets: most bytes the page cache keeps on disk (default 4G; 0: no disk cache)")
      ->option_text("BYTES");
}

}  // namespace mindrecord::cli
