// Reading a shard's header from its file: the length prefix, the JSON, its
// checksum, and the bounds of every page against the file size.
#pragma once

#include "mindrecord/file.h"
#include "mindrecord/header.h"

namespace mindrecord {

// Errors name the file and what is wrong (too short, length past the end,
// JSON that does not parse, checksum mismatch, a page past the end).
Result<ShardHeader> ReadShardHeader(const RandomAccessFile& file, bool verify_checksum);

// Shards of one dataset agree on header_size, page_size, version, schema,
// index fields and shard_addresses (the last only when `same_dataset`: files
// listed from several datasets need not); Corruption naming `b_path`
// otherwise.
Status CheckShardsAgree(const ShardHeader& a, const ShardHeader& b, const std::string& a_path,
                        const std::string& b_path, bool same_dataset = true);

}  // namespace mindrecord
