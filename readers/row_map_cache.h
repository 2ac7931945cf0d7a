// Row maps shared by the readers of one process. Walking a group's length
// prefixes touches one spot per row (for ~100 KB images, one page fault and
// cache miss per row): a reader opened per epoch, per benchmark run or per
// DataLoader worker would redo the walk of every page it touches. Readers of
// the same unchanged file share one RowMap instead, so the walk is done once
// per process while any reader of the file is open, or was lately: the maps
// handed out last are kept after their readers close (kRetainedMapBytes at
// most), so a dataset iterated epoch after epoch, each epoch with a new
// reader, walks its pages once.
//
// A map is shared only between readers that opened the same path with the
// same identity (device, inode, size, mtime, ctime; readers/verified_pages.h)
// whose ctime was at least kQuietSeconds old at open, so a file changed since
// never gets another's offsets. Each reader still verifies every page it reads
// (or finds it verified before): only where rows lie is shared, never
// whether their bytes are sound.
#pragma once

#include <memory>
#include <string>

#include "mindrecord/header.h"
#include "readers/row_map.h"
#include "readers/verified_pages.h"

namespace mindrecord {

// Default bytes of row maps kept for readers opened later, beyond those open
// readers hold (4 bytes per walked row and part: 64 MiB keep 8M rows'
// offsets).
inline constexpr uint64_t kRetainedMapBytes = uint64_t{64} << 20;

// The RowMap of shard `path` (identity `id`, header `header`): one another
// reader shares or shared lately, or a new one (RowMap::Build's errors), made
// shareable when `id` is valid and quiet. Maps live as long as their last
// reader, and the most recently handed out ones also while their bytes
// (counted at each hand-out) stay within the retention cap
// (SetRowMapRetentionBytes; the newest map is always kept).
// Thread safety: safe to call from any thread.
Result<std::shared_ptr<RowMap>> SharedRowMap(const std::string& path, const FileIdentity& id,
                                             const ShardHeader& header);

// Stops handing out `map` to readers opened later (e.g. after it adopted
// offsets from one reader's SQLite index). Readers holding it keep it.
void UnshareRowMap(const RowMap* map);

// Drops the maps kept for later readers (open readers keep theirs).
void ReleaseRetainedRowMaps();
// The retention cap in bytes (default kRetainedMapBytes; 0 keeps only the
// newest map). Applies from the next hand-out.
void SetRowMapRetentionBytes(uint64_t bytes);

}  // namespace mindrecord
