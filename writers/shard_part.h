// Shard parts: the shards of one dataset written by several processes (a
// distributed conversion). Each process writes its shards with ShardWriter
// (WriterOptions::only_shard) and commits each as a part: complete, fsynced
// files under hidden names beside the final shard S (".S.mr-part" and
// ".S.mr-part.db"), whose header holds the shard's own totals and the
// writer's part info (header key kPartKey). Parts survive a crash of any
// process, so a rerun keeps the ones it can verify. Once every part of the
// dataset exists, FinishShardPart turns each into its shard: the header gets
// the dataset's totals and loses the part info (the bytes a single writer of
// all shards would have written), then index and data are renamed into place.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: the functions below are reentrant; concurrent calls must
// concern different shards.

// What a shard contributes to the values every header of its dataset holds.
struct PartTotals {
  int64_t packing_saved = 0;  // bytes the v3.0 integer packing saved (compression_size), signed
  uint64_t raw_bytes = 0;     // compressed datasets: blob bytes before compression
  uint64_t stored_bytes = 0;  // ... and as stored

  PartTotals& operator+=(const PartTotals& o) {
    packing_saved += o.packing_saved;
    raw_bytes += o.raw_bytes;
    stored_bytes += o.stored_bytes;
    return *this;
  }
  nlohmann::json ToJson() const;
  static Result<PartTotals> FromJson(const nlohmann::json& j);
};

// ".S.mr-part" in the folder of `final_shard` S; its index is that + ".db".
std::string ShardPartPath(const std::string& final_shard);

// A verified part or shard.
struct CheckedShard {
  ShardHeader header;
  nlohmann::json info;  // a part's info (kPartKey); null for a final shard
  PartTotals totals;    // a part's own totals; a final shard's header values (the dataset's)
};

// Checks the shard file `path` and its index `path`.db end to end: the header
// and its checksum, every page against its checksum (a file without our
// checksums is refused: it cannot be verified), and the index holding
// exactly the header's rows under the name `shard_name`. Errors name the
// file and what is wrong.
Result<CheckedShard> VerifyShardFile(const std::string& path, const std::string& shard_name, FileSystem* fs);

// Turns the part of `final_shard` into the shard: rewrites its header with
// `dataset` (the sum of every part's totals) in place of its own and without
// the part info, fsyncs it, then renames index and data to their final
// names (replacing files there) and fsyncs the folder.
Status FinishShardPart(const std::string& final_shard, const PartTotals& dataset, FileSystem* fs);

}  // namespace mindrecord
