// Page walk: a whole shard file image through ReadShardHeader (length
// prefix, JSON, page bounds, checksums) and WalkPages (row locators from the
// pages alone), then every derived row's parts decoded.
#include <string_view>

#include "mindrecord/row_codec.h"
#include "readers/header_io.h"
#include "readers/page_walker.h"
#include "tests/fuzz/mem_file.h"
#include "tests/fuzz/fuzz_target.h"

MINDRECORD_FUZZ_TARGET(page_walker) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  mindrecord::fuzz::MemFile file(bytes, "fuzz.mindrecord");
  for (bool verify : {true, false}) {
    auto header = mindrecord::ReadShardHeader(file, verify);
    if (!header.ok()) continue;
    auto locators = mindrecord::WalkPages(file, *header);
    if (!locators.ok()) continue;
    mindrecord::RowCodec codec(&header->schema, header->version);
    for (const auto& loc : *locators) {
      // WalkPages promises locators inside their pages and the file.
      const uint64_t raw = header->PageOffset(loc.raw_page) + loc.raw_begin + 8;
      const uint64_t blob = header->PageOffset(loc.blob_page) + loc.blob_begin + 8;
      if (loc.raw_end < loc.raw_begin + 8 || loc.blob_end < loc.blob_begin + 8 ||
          header->PageOffset(loc.raw_page) + loc.raw_end > size || header->PageOffset(loc.blob_page) + loc.blob_end > size)
        __builtin_trap();
      mindrecord::Row row;
      (void)codec.DecodeRaw(bytes.substr(raw, loc.raw_end - loc.raw_begin - 8), {}, &row);
      (void)codec.DecodeBlob(bytes.substr(blob, loc.blob_end - loc.blob_begin - 8), {}, &row);
    }
    break;
  }
  return 0;
}
