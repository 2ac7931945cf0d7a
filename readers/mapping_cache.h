// Mapped shard files shared by the readers of one process. A fresh mapping
// starts with no page-table entries: every page a reader touches first
// costs a page fault (with fault-around, one per 16-64 KiB), and on a
// virtual machine a fault costs far more than the read itself (a 200 MB
// shard read as 200k random 1 KiB rows: 0.16-0.18 s through a fresh
// mapping, 0.026 s through one already touched). A dataset iterated epoch by
// epoch with a new reader per epoch (a new MindDataset iterator, a benchmark
// round, a DataLoader epoch) would fault its whole working set in again each
// time. Readers of the same unchanged file share one mapping instead, and
// the mappings handed out last are kept after their readers close, within a
// cap (kRetainedMappingBytes of file size, kRetainedMappings files).
//
// A mapping is shared only between readers that opened the same path with
// the same identity (device, inode, size, mtime, ctime; readers/
// verified_pages.h) whose ctime was at least kQuietSeconds old at open. A
// kept mapping holds its file open: every reader open first drops the kept
// mappings whose path no longer names the same file (DropStaleMappings:
// deleted, replaced or changed), so a deleted dataset's space is freed by the
// process's next open of any dataset at the latest (or
// ReleaseRetainedMappings, or exit). Kept
// mappings hold no memory of their own beyond page tables (page-cache pages
// stay reclaimable).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "mindrecord/file.h"
#include "readers/verified_pages.h"

namespace mindrecord {

inline constexpr uint64_t kRetainedMappingBytes = uint64_t{16} << 30;
inline constexpr size_t kRetainedMappings = 64;

// The file to read `path` (identity `id`) through: a mapping of the same
// unchanged file that another reader holds or held lately, or else `opened`
// (a mapped file just opened), which is then shared with later readers.
// `opened` is returned as it is when it is not mapped or `id` is not valid
// and quiet.
// Thread safety: safe to call from any thread.
std::shared_ptr<RandomAccessFile> SharedMapping(const std::string& path, const FileIdentity& id,
                                                std::shared_ptr<RandomAccessFile> opened);

// Drops the kept mappings whose path names another file now than when it was
// mapped (a stat per kept mapping; ShardReader::Open calls it once).
void DropStaleMappings();
// Drops the mappings kept for later readers (open readers keep theirs).
void ReleaseRetainedMappings();
// The cap on the kept mappings' file bytes (default kRetainedMappingBytes;
// 0 keeps none after their readers close). Applies from the next hand-out.
void SetMappingRetentionBytes(uint64_t bytes);

}  // namespace mindrecord
