// Commit record of a new dataset: "<first shard>.mr-commit" lists the
// (temporary, final) names of its complete, fsynced files. Once the record is
// durable the commit is decided; the renames that follow are redone by the
// next opener if the writer dies among them.
//
// The record is read as untrusted input: its names must be plain names in
// the record's own folder, each temporary must be the very regular file the
// writer recorded (device, inode, size), one final name must be the first
// shard's, and the whole record is checked before the first rename. A record
// that does not match is reported and left alone.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

std::string CommitRecordPath(const std::string& first_shard);

// Records `renames` (paths in first_shard's folder) durably.
Status WriteCommitRecord(const std::string& first_shard,
                         const std::vector<std::pair<std::string, std::string>>& renames, FileSystem* fs);

// Checks the record, removes the append journals the replaced shards had
// (they belong to the files being replaced), renames what the record lists
// (skipping what was already renamed), then removes the record. OK when
// there is none.
Status FinishCommit(const std::string& first_shard, FileSystem* fs);

// `mindrecord recover --discard`: removes the commit record beside
// `first_shard` without applying it (the caller holds the dataset lock).
// True when there was one.
Result<bool> DiscardCommitRecord(const std::string& first_shard, FileSystem* fs);

}  // namespace mindrecord
