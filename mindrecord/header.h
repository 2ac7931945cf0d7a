// The shard header: the JSON document at the start of every shard file, and
// the page table it carries. Parse, validate, serialize (key order and spacing
// exactly as MindSpore writes them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"

namespace mindrecord {

struct PageInfo {
  uint64_t page_id = 0;
  uint32_t shard_id = 0;
  bool is_blob = true;          // BLOB_DATA or RAW_DATA
  uint64_t page_type_id = 0;
  uint64_t start_row_id = 0;    // blob pages: this shard's rows [start, end)
  uint64_t end_row_id = 0;
  uint64_t used_bytes = 0;      // "page_size" in the JSON: bytes used in the slot
  // Raw pages: (row group id, offset within the page). Blob pages are written
  // with [{"id":0,"offset":0}].
  std::vector<std::pair<uint64_t, uint64_t>> row_groups;
  nlohmann::json extra = nlohmann::json::object();  // keys of our extensions, kept as read

  nlohmann::json ToJson() const;
};

struct ShardHeader {
  std::string version = "3.0";
  uint64_t header_size = 0;
  uint64_t page_size = 0;
  Schema schema;
  bool index_fields_null = false;           // "index_fields": null
  std::vector<std::string> index_fields;
  std::vector<PageInfo> pages;              // this shard's pages, by page_id
  std::vector<std::string> shard_addresses;
  uint32_t shard_id = 0;
  uint64_t compression_size = 0;            // v3.0 only
  nlohmann::json extra = nlohmann::json::object();  // top-level keys of our extensions
  uint64_t json_bytes = 0;  // the JSON text's length as read from a file (0: not read)

  // Parses and validates the JSON text of a header (not the length prefix).
  // `what` names the file in messages.
  static Result<ShardHeader> Parse(std::string_view json_text, const std::string& what);
  // Compact JSON, v3.0 key order or v2.0 sorted keys, per `version`.
  std::string Serialize() const;
  // Rows in this shard (from the blob pages).
  uint64_t num_rows() const;
  // File offset of page `page_id`'s slot.
  uint64_t PageOffset(uint64_t page_id) const { return header_size + page_id * page_size; }
};

// Validates header_size / page_size against the format's limits.
Status ValidateSizes(uint64_t header_size, uint64_t page_size);

}  // namespace mindrecord
