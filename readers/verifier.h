// `mindrecord verify`: checks a dataset end to end and lists every problem
// found rather than stopping at the first.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "readers/remote_options.h"

namespace mindrecord {

struct VerifyOptions {
  // Also decode every row against the schema.
  bool deep = false;
  // A dataset named by URL: endpoint and page cache. Its .db files are
  // fetched whole (verify checks them against the pages).
  RemoteOptions remote;
};

struct VerifyReport {
  std::vector<std::string> problems;  // each names the file and what is wrong
  uint64_t shards = 0;
  uint64_t rows = 0;
  uint64_t pages = 0;
  uint64_t pages_checksummed = 0;  // pages whose checksum was present and checked
  bool header_checksums = false;   // every shard header carried a checksum
  uint64_t rows_decoded = 0;       // with deep
  bool ok() const { return problems.empty(); }
  nlohmann::json ToJson() const;
};

// Checks: every shard present and consistent; headers parse, validate and
// match their checksums; every page checksum and piece table (when present:
// a table is recomputed from its page); the pages walk
// cleanly; every index row agrees with the pages (offsets, lengths, row
// group, row ids) and row counts agree; with `deep`, every row decodes.
// Works on files without checksums (MindSpore's), checking structure.
VerifyReport Verify(const std::string& path, const VerifyOptions& options = {});

}  // namespace mindrecord
