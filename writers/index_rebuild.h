// `mindrecord index rebuild`: regenerates missing or damaged .db index files
// from the shard pages alone.
#pragma once

#include <string>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord {

struct RebuildReport {
  std::vector<std::string> rebuilt;  // index files written
  std::vector<std::string> kept;     // index files that already agreed with the pages
};

// For each shard of the dataset at `path`: walks the pages; when the shard's
// .db is missing, unreadable or disagrees with the pages (or `force`), writes
// a new one under a temporary name, fsyncs it and renames it into place.
// Damaged pages are an error: an index cannot be rebuilt from them.
Result<RebuildReport> RebuildIndex(const std::string& path, bool force = false);

}  // namespace mindrecord
