// Derives every row's locator from a shard's pages alone, without its index:
// walks each blob page's length-prefixed rows and each raw page's row groups.
// Used by `verify` (to check the index) and `index rebuild`.
#pragma once

#include <vector>

#include "index/index_writer.h"
#include "mindrecord/file.h"
#include "mindrecord/header.h"

namespace mindrecord {

// Locators for rows 0..num_rows-1 of the shard. Any length that overruns its
// page, a row group naming no blob page, rows missing or seen twice, or
// trailing bytes are Corruption naming the file and page.
Result<std::vector<RowLocator>> WalkPages(const RandomAccessFile& file, const ShardHeader& header);

}  // namespace mindrecord
