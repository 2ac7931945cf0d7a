#include "writers/shard_part.h"

#include <cstring>

#include "index/index_reader.h"
#include "mindrecord/checksum.h"
#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/json_number.h"
#include "readers/header_io.h"

namespace mindrecord {

nlohmann::json PartTotals::ToJson() const {
  return {{"packing_saved", packing_saved}, {"raw_bytes", raw_bytes}, {"stored_bytes", stored_bytes}};
}

Result<PartTotals> PartTotals::FromJson(const nlohmann::json& j) {
  const auto member = [&](const char* key) { return j.is_object() ? j.value(key, nlohmann::json()) : nlohmann::json(); };
  const auto saved = JsonInt64(member("packing_saved"));
  const auto raw = JsonUnsigned(member("raw_bytes")), stored = JsonUnsigned(member("stored_bytes"));
  if (!saved || !raw || !stored) {
    return Status::InvalidArgument("shard totals are not {packing_saved, raw_bytes, stored_bytes}: " + j.dump());
  }
  return PartTotals{*saved, *raw, *stored};
}

std::string ShardPartPath(const std::string& final_shard) {
  return HiddenSibling(final_shard, kPartSuffix);
}

namespace {

// The length of the header as stored: its prefix and JSON.
Result<uint64_t> StoredHeaderBytes(const RandomAccessFile& f) {
  uint64_t len = 0;
  MR_RETURN_IF_ERROR(f.ReadAt(0, kLengthPrefix, reinterpret_cast<char*>(&len)));
  return kLengthPrefix + len;
}

}  // namespace

Result<CheckedShard> VerifyShardFile(const std::string& path, const std::string& shard_name, FileSystem* fs) {
  CheckedShard out;
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
  MR_ASSIGN_OR_RETURN(out.header, ReadShardHeader(*f, /*verify_checksum=*/true));
  const ShardHeader& h = out.header;
  if (!h.extra.contains(kHeaderChecksumKey)) {
    return Status::Corruption(path + ": the header has no checksum, so the shard cannot be verified");
  }
  std::string buf;
  for (const PageInfo& p : h.pages) {
    auto sum = p.extra.find(kPageChecksumKey);
    if (sum == p.extra.end() || !sum->is_string()) {
      return Status::Corruption(path + ": page " + std::to_string(p.page_id) + " has no checksum");
    }
    buf.resize(p.used_bytes);
    MR_RETURN_IF_ERROR(f->ReadAt(h.PageOffset(p.page_id), buf.size(), buf.data()));
    if (ChecksumHex(Xxh3(buf)) != sum->get<std::string>()) {
      return Status::Corruption(path + ": page " + std::to_string(p.page_id) + " (offset " +
                                std::to_string(h.PageOffset(p.page_id)) + ") fails its checksum");
    }
  }
  {
    MR_ASSIGN_OR_RETURN(auto index, IndexReader::Open(path + kIndexSuffix, shard_name, /*legacy_quoted_strings=*/false));
    MR_RETURN_IF_ERROR(index->LoadLocators(h.num_rows()).status());
  }
  auto compression = h.extra.find(kCompressionKey);
  if (compression != h.extra.end()) {
    MR_RETURN_IF_ERROR(ReadBlobByteCounts(*compression, path, &out.totals.raw_bytes, &out.totals.stored_bytes));
  }
  auto part = h.extra.find(kPartKey);
  if (part == h.extra.end()) {
    out.info = nullptr;
    out.totals.packing_saved = static_cast<int64_t>(h.compression_size);
    return out;
  }
  const auto saved = part->is_object() && part->contains("packing_saved")
                         ? JsonInt64((*part)["packing_saved"]) : std::nullopt;
  if (!saved) return Status::Corruption(path + ": the part info " + part->dump() + " holds no packing_saved");
  out.info = *part;
  out.totals.packing_saved = *saved;
  out.info.erase("packing_saved");
  return out;
}

Status FinishShardPart(const std::string& final_shard, const PartTotals& dataset, FileSystem* fs) {
  const std::string part = ShardPartPath(final_shard);
  ShardHeader h;
  uint64_t old_bytes = 0;
  {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(part));
    MR_ASSIGN_OR_RETURN(h, ReadShardHeader(*f, /*verify_checksum=*/true));
    MR_ASSIGN_OR_RETURN(old_bytes, StoredHeaderBytes(*f));
  }
  h.compression_size = dataset.packing_saved > 0 ? static_cast<uint64_t>(dataset.packing_saved) : 0;
  auto compression = h.extra.find(kCompressionKey);
  if (compression != h.extra.end()) {
    (*compression)["raw_bytes"] = dataset.raw_bytes;
    (*compression)["stored_bytes"] = dataset.stored_bytes;
  }
  h.extra.erase(kPartKey);
  const bool sealed = h.extra.contains(kHeaderChecksumKey);
  if (sealed) h.extra[kHeaderChecksumKey] = std::string(16, '0');
  std::string json = h.Serialize();
  if (sealed) SealHeaderChecksum(&json);
  std::string head(kLengthPrefix, '\0');
  const uint64_t len = json.size();
  std::memcpy(head.data(), &len, kLengthPrefix);
  head += json;
  if (head.size() > h.header_size) {
    return Status::InvalidArgument(part + ": the shard header needs " + std::to_string(head.size()) +
                                   " bytes but header_size is " + std::to_string(h.header_size));
  }
  if (head.size() < old_bytes) head.resize(old_bytes, '\0');  // zeros over the longer part header
  {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenUpdate(part));
    MR_RETURN_IF_ERROR(f->WriteAt(0, head));
    MR_RETURN_IF_ERROR(f->Sync());
    MR_RETURN_IF_ERROR(f->Close());
  }
  MR_RETURN_IF_ERROR(fs->Rename(part + kIndexSuffix, final_shard + kIndexSuffix));
  MR_RETURN_IF_ERROR(fs->Rename(part, final_shard));
  return fs->SyncDir(DirName(final_shard));
}

}  // namespace mindrecord
