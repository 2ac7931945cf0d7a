#include "mindrecord/header.h"

#include <algorithm>

#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/json_guard.h"
#include "mindrecord/json_number.h"
#include "mindrecord/limits.h"

namespace mindrecord {

using nlohmann::json;

Status ValidateSizes(uint64_t header_size, uint64_t page_size) {
  if (header_size < kMinHeaderSize || header_size > kMaxHeaderSize || header_size % 4 != 0) {
    return Status::InvalidArgument("header_size " + std::to_string(header_size) +
                                   " must be a multiple of 4 in [16 KiB, 128 MiB] (16384..134217728)");
  }
  if (page_size < kMinPageSize || page_size > kMaxPageSize || page_size % 4 != 0) {
    return Status::InvalidArgument("page_size " + std::to_string(page_size) +
                                   " must be a multiple of 4 in [32 KiB, 256 MiB] (32768..268435456)");
  }
  return Status::OK();
}

json PageInfo::ToJson() const {
  json p = extra.is_object() ? extra : json::object();
  p["end_row_id"] = end_row_id;
  p["page_id"] = page_id;
  p["page_size"] = used_bytes;
  p["page_type"] = is_blob ? kPageTypeBlob : kPageTypeRaw;
  p["page_type_id"] = page_type_id;
  json groups = json::array();
  // An empty list is written as one {"id":0,"offset":0} entry, as MindSpore does.
  for (const auto& [id, off] : row_groups) groups.push_back(json{{"id", id}, {"offset", off}});
  if (groups.empty()) groups.push_back(json{{"id", 0}, {"offset", 0}});
  p["row_group_ids"] = groups;
  p["shard_id"] = shard_id;
  p["start_row_id"] = start_row_id;
  return p;
}

namespace {

Status Bad(const std::string& what, const std::string& why) {
  return Status::Corruption(what + ": invalid header: " + why);
}

bool GetU64(const json& j, const char* key, uint64_t* out) {
  auto it = j.find(key);
  const auto v = it == j.end() ? std::nullopt : JsonUnsigned(*it);
  if (v) *out = *v;
  return v.has_value();
}

bool IsChecksumHex(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() == 16 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<PageInfo> ParsePage(const json& j, const std::string& what, size_t pos) {
  const std::string where = "page entry " + std::to_string(pos);
  if (!j.is_object()) return Bad(what, where + " is not an object");
  PageInfo p;
  uint64_t shard = 0;
  if (!GetU64(j, "page_id", &p.page_id) || !GetU64(j, "shard_id", &shard) ||
      !GetU64(j, "page_type_id", &p.page_type_id) || !GetU64(j, "start_row_id", &p.start_row_id) ||
      !GetU64(j, "end_row_id", &p.end_row_id) || !GetU64(j, "page_size", &p.used_bytes)) {
    return Bad(what, where + " lacks one of page_id, shard_id, page_type_id, start_row_id, end_row_id, page_size");
  }
  if (shard > UINT32_MAX) return Bad(what, where + " has shard_id " + std::to_string(shard) + ", beyond 32 bits");
  p.shard_id = static_cast<uint32_t>(shard);
  auto type = j.find("page_type");
  if (type == j.end() || !type->is_string()) return Bad(what, where + " has no page_type");
  if (*type == kPageTypeBlob) {
    p.is_blob = true;
  } else if (*type == kPageTypeRaw) {
    p.is_blob = false;
  } else {
    return Bad(what, where + " has unknown page_type " + type->dump());
  }
  auto groups = j.find("row_group_ids");
  if (groups == j.end() || !groups->is_array()) return Bad(what, where + " has no row_group_ids list");
  if (!p.is_blob) {
    for (const auto& g : *groups) {
      uint64_t id = 0, off = 0;
      if (!g.is_object() || !GetU64(g, "id", &id) || !GetU64(g, "offset", &off)) {
        return Bad(what, where + " has a malformed row group");
      }
      p.row_groups.emplace_back(id, off);
    }
  }
  static const char* kKnown[] = {"page_id", "shard_id", "page_type", "page_type_id", "start_row_id",
                                 "end_row_id", "page_size", "row_group_ids"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) p.extra[it.key()] = it.value();
  }
  // Readers verify a page whose checksum is a string; any other value must
  // not pass for "no checksum".
  auto sum = p.extra.find(kPageChecksumKey);
  if (sum != p.extra.end() && !IsChecksumHex(*sum)) {
    return Bad(what, where + " has checksum " + sum->dump() + ", not 16 lowercase hex digits");
  }
  return p;
}

}  // namespace

Result<ShardHeader> ShardHeader::Parse(std::string_view text, const std::string& what) {
  MR_RETURN_IF_ERROR(CheckJsonShape(text, what + ": header", {kMaxHeaderJsonDepth, kMaxHeaderJsonElements}));
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption(what + ": header JSON does not parse");
  if (!j.is_object()) return Bad(what, "header JSON is not an object");
  ShardHeader h;
  auto ver = j.find("version");
  if (ver == j.end() || !ver->is_string()) return Bad(what, "no \"version\"");
  h.version = ver->get<std::string>();
  if (h.version != kVersion2 && h.version != kVersion3 && !IsCompressedVersion(h.version)) {
    return Status::NotSupported(what + ": unsupported MindRecord version '" + h.version +
                                "' (this build reads 2.0, 3.0, " + kVersion3Lz4 + " and " + kVersion3Zstd + ")");
  }
  if (!GetU64(j, "header_size", &h.header_size) || !GetU64(j, "page_size", &h.page_size)) {
    return Bad(what, "header_size / page_size missing or not unsigned integers");
  }
  if (h.header_size < 8 || h.page_size == 0 || h.page_size > kMaxPageSize || h.header_size > kMaxHeaderSize) {
    return Bad(what, "header_size " + std::to_string(h.header_size) + " / page_size " +
                         std::to_string(h.page_size) + " out of range");
  }
  auto sch = j.find("schema");
  if (sch == j.end() || !sch->is_array() || sch->size() != 1) {
    return Bad(what, "\"schema\" must be a list with exactly one schema");
  }
  auto schema = Schema::FromHeaderJson((*sch)[0]);
  if (!schema.ok()) return schema.status().WithContext(what);
  h.schema = std::move(schema).value();

  auto idx = j.find("index_fields");
  if (idx == j.end() || idx->is_null()) {
    h.index_fields_null = true;
  } else if (idx->is_array()) {
    for (const auto& e : *idx) {
      auto name = e.is_object() ? e.find("index_field") : e.end();
      if (!e.is_object() || name == e.end() || !name->is_string()) return Bad(what, "malformed index_fields entry");
      h.index_fields.push_back(name->get<std::string>());
    }
    Status st = h.schema.ValidateIndexFields(h.index_fields);
    if (!st.ok()) return Bad(what, st.message());
  } else {
    return Bad(what, "\"index_fields\" must be a list or null");
  }

  auto addrs = j.find("shard_addresses");
  if (addrs == j.end() || !addrs->is_array() || addrs->empty() || addrs->size() > kMaxShardCount) {
    return Bad(what, "\"shard_addresses\" must be a list of 1..1000 file names");
  }
  for (const auto& a : *addrs) {
    if (!a.is_string() || a.get<std::string>().empty()) return Bad(what, "shard_addresses holds a non-string");
    h.shard_addresses.push_back(a.get<std::string>());
  }
  uint64_t sid = 0;
  if (!GetU64(j, "shard_id", &sid) || sid >= h.shard_addresses.size()) {
    return Bad(what, "\"shard_id\" missing or not an index into shard_addresses");
  }
  h.shard_id = static_cast<uint32_t>(sid);
  if (j.contains("compression_size")) GetU64(j, "compression_size", &h.compression_size);

  auto pages = j.find("page");
  if (pages == j.end() || !pages->is_array()) return Bad(what, "\"page\" must be a list");
  uint64_t next_row = 0;
  for (size_t i = 0; i < pages->size(); ++i) {
    MR_ASSIGN_OR_RETURN(PageInfo p, ParsePage((*pages)[i], what, i));
    if (p.page_id != i) {
      return Bad(what, "page entry " + std::to_string(i) + " has page_id " + std::to_string(p.page_id) +
                           " (page ids must run 0, 1, 2, ...)");
    }
    if (p.shard_id != h.shard_id) {
      return Bad(what, "page " + std::to_string(i) + " belongs to shard " + std::to_string(p.shard_id) +
                           ", not " + std::to_string(h.shard_id));
    }
    if (p.used_bytes > h.page_size) {
      return Bad(what, "page " + std::to_string(i) + " uses " + std::to_string(p.used_bytes) +
                           " bytes, more than page_size " + std::to_string(h.page_size));
    }
    if (p.is_blob) {
      if (p.start_row_id != next_row || p.end_row_id < p.start_row_id) {
        return Bad(what, "blob page " + std::to_string(i) + " holds rows [" + std::to_string(p.start_row_id) + ", " +
                             std::to_string(p.end_row_id) + "), expected to start at row " +
                             std::to_string(next_row));
      }
      // Every row of a blob page takes at least its 8-byte length prefix.
      if (p.end_row_id - p.start_row_id > p.used_bytes / 8) {
        return Bad(what, "blob page " + std::to_string(i) + " claims " + std::to_string(p.end_row_id - p.start_row_id) +
                             " rows in " + std::to_string(p.used_bytes) + " used bytes");
      }
      next_row = p.end_row_id;
    } else {
      uint64_t prev = 0;
      for (size_t g = 0; g < p.row_groups.size(); ++g) {
        uint64_t off = p.row_groups[g].second;
        if (off > p.used_bytes || (g > 0 && off < prev)) {
          return Bad(what, "raw page " + std::to_string(i) + " has row group offset " + std::to_string(off) +
                               " outside its " + std::to_string(p.used_bytes) + " used bytes");
        }
        prev = off;
      }
    }
    h.pages.push_back(std::move(p));
  }
  static const char* kKnown[] = {"header_size", "index_fields", "page", "page_size", "compression_size", "schema",
                                 "shard_addresses", "shard_id", "statistics", "version"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) h.extra[it.key()] = it.value();
  }
  return h;
}

std::string ShardHeader::Serialize() const {
  json idx;
  if (index_fields_null) {
    idx = nullptr;
  } else {
    idx = json::array();
    for (const auto& f : index_fields) idx.push_back(json{{"index_field", f}, {"schema_id", 0}});
  }
  json page_list = json::array();
  for (const auto& p : pages) page_list.push_back(p.ToJson());
  json schema_list = json::array({schema.ToHeaderJson()});

  if (version == kVersion2) {
    json all = extra.is_object() ? extra : json::object();  // sorted keys, as v2.0 writers did
    all["header_size"] = header_size;
    all["index_fields"] = idx;
    all["page"] = page_list;
    all["page_size"] = page_size;
    all["schema"] = schema_list;
    all["shard_addresses"] = shard_addresses;
    all["shard_id"] = shard_id;
    all["statistics"] = nullptr;
    all["version"] = version;
    return all.dump();
  }
  // v3.0: MindSpore's top-level order; our extension keys go last.
  std::string out = "{";
  auto add = [&](const char* key, const json& v) {
    if (out.size() > 1) out += ',';
    out += json(key).dump();
    out += ':';
    out += v.dump();
  };
  add("header_size", header_size);
  add("index_fields", idx);
  add("page", page_list);
  add("page_size", page_size);
  add("compression_size", compression_size);
  add("schema", schema_list);
  add("shard_addresses", shard_addresses);
  add("shard_id", shard_id);
  add("statistics", nullptr);
  add("version", version);
  if (extra.is_object()) {
    for (auto it = extra.begin(); it != extra.end(); ++it) add(it.key().c_str(), it.value());
  }
  out += '}';
  return out;
}

uint64_t ShardHeader::num_rows() const {
  uint64_t rows = 0;
  for (const auto& p : pages) {
    if (p.is_blob) rows = p.end_row_id;
  }
  return rows;
}

}  // namespace mindrecord
