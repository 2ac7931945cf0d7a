// Small datasets of the IdNameImg schema (tests/util/test_rows.h) and
// appends interrupted before their commit, for the recovery and untrusted-
// folder tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mindrecord/constants.h"
#include "mindrecord/value.h"

namespace mindrecord::testing {

// n rows with ids first, first+1, ...: name "n", a 100-byte image, v = [id].
std::vector<Row> IdNameImgRows(int n, int first = 0);

struct SmallDatasetOptions {
  uint32_t shards = 1;
  uint64_t header_size = kMinHeaderSize;
  bool checksums = true;
  bool overwrite = false;
  std::string compression;  // a --compression spec ("zstd:3"); empty: none
};

// Writes and commits `rows` (smallest page size); returns the shard paths.
// Failures are test failures.
std::vector<std::string> WriteIdNameImg(const std::string& path, const std::vector<Row>& rows,
                                        const SmallDatasetOptions& options = {});

// An append of `rows` to the dataset of `shard` that exits after writing its
// journals and rows, before its commit (as if killed): a hot journal.
void InterruptedAppend(const std::string& shard, const std::vector<Row>& rows);

}  // namespace mindrecord::testing
