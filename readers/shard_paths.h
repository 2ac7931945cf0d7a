// Which files make up a dataset opened through one of its shards. A file is
// what it is named: the opened file is always read as itself, never replaced
// by the name its header records, and siblings are found beside it.
//
// One shard: the opened file alone (a renamed or copied dataset reads its
// own bytes, not the original's). Several: the opened file takes the slot
// its header's shard_id names, and the siblings carry the opened name's
// prefix with the recorded names' suffixes ("e1" opened from a dataset
// written as d0, d1 -> e0, e1), so a renamed dataset is read whole and never
// mixed with the original's files.
#pragma once

#include <string>
#include <vector>

#include "mindrecord/header.h"

namespace mindrecord {

// Corruption naming `opened` when its header's shard_id lies outside its
// shard_addresses, a recorded name is not a plain file name, or the opened
// name does not end like the recorded name of its shard (so its siblings'
// names cannot be derived).
Result<std::vector<std::string>> ShardPathsFor(const std::string& opened, const ShardHeader& h);

// The name the shard's index records in SHARD_NAME: its name as written
// (shard_addresses[shard_id]), which renaming the files does not change.
std::string RecordedShardName(const ShardHeader& h);

}  // namespace mindrecord
