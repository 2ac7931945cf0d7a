// Row decoding: the msgpack raw part, the blob framing (one field, several
// with big-endian lengths, the dummy blob) and v3.0 integer unpacking, against
// the schemas of the compat files plus one with int64 / 2-D arrays.
// First byte: bits 0-1 schema, bit 2 version 3.0 (else 2.0), bit 3 blob part
// (else raw part), bit 4 decode every other field only. The rest is the part.
#include <string_view>
#include <vector>

#include "mindrecord/row_codec.h"
#include "mindrecord/schema.h"
#include "tests/fuzz/compat_schemas.h"
#include "tests/fuzz/fuzz_target.h"

MINDRECORD_FUZZ_TARGET(row_codec) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  const mindrecord::Schema& schema = mindrecord::fuzz::Schemas()[sel & 3];
  mindrecord::RowCodec codec(&schema, (sel & 4) ? "3.0" : "2.0");
  std::string_view part(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<bool> select;
  if (sel & 16) {
    select.resize(schema.fields().size());
    for (size_t i = 0; i < select.size(); i += 2) select[i] = true;
  }
  mindrecord::Row row;
  if (sel & 8) {
    (void)codec.DecodeBlob(part, select, &row);
    (void)codec.PackingSaved(part);
  } else {
    (void)codec.DecodeRaw(part, select, &row);
    mindrecord::Row index_values;
    (void)codec.DecodeRawFields(part, schema.DefaultIndexFields(), &index_values);
  }
  return 0;
}
