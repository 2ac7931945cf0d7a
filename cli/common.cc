#include <cstdio>

#include "cli/command.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::cli {

int ReportStatus(const char* verb, const Status& status) {
  if (status.ok()) return kExitOk;
  std::fprintf(stderr, "mindrecord %s: error: %s\n", verb, status.message().c_str());
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

}  // namespace mindrecord::cli
