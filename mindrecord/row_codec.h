// Row encoding: a row's raw part (msgpack map of the non-blob fields, keys
// sorted, as nlohmann's to_msgpack writes it) and blob part (one blob field:
// its bytes; several: each as uint64 big-endian length + bytes in blob_fields
// order; none: 4 zero bytes; v3.0 packs integer arrays).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/row_view.h"
#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord {

struct EncodedParts {
  std::string raw;
  std::string blob;
  int64_t packing_saved = 0;  // unpacked minus packed bytes of integer arrays
};

// A row already in its on-disk form: the msgpack raw part, the blob part
// (framed as on disk, integer arrays already packed for v3.0, never
// compressed: ShardWriter compresses per its options), and the values of the
// index fields. ShardReader::ReadEncoded gives it and ShardWriter::
// WriteEncoded takes it: `copy` moves rows without re-encoding.
struct EncodedRow {
  std::string raw;
  std::string blob;
  Row index_values;
  int64_t packing_saved = 0;  // bytes the v3.0 integer packing saved in `blob`
};

// Thread safety: stateless after construction; const methods may run on many
// threads at once.
class RowCodec {
 public:
  RowCodec(const Schema* schema, std::string version);

  // The row must already be valid for the schema (Schema::ValidateRow).
  Result<EncodedParts> Encode(const Row& row) const;
  // As Encode, but a lone blob field stored as it is (bytes, or a float
  // array) is moved out of `row` instead of copied; its value is left empty.
  Result<EncodedParts> EncodeConsuming(Row& row) const;

  // Decodes the selected fields (`select[i]` for schema field i; empty: all).
  // Unselected raw fields are skipped, unselected blob fields not unpacked.
  Status DecodeRaw(std::string_view raw, const std::vector<bool>& select, Row* out) const;
  Status DecodeBlob(std::string_view blob, const std::vector<bool>& select, Row* out) const;
  // As DecodeRaw / DecodeBlob, into the selected slots of `out` (see
  // RowView::Select) without copying: strings, bytes and arrays point into
  // `raw` / `blob`, and their FieldView::mapped is `mapped`. Integer arrays
  // packed by v3.0 are unpacked into the view's own buffers (mapped false).
  Status DecodeRawView(std::string_view raw, bool mapped, RowView* out) const;
  Status DecodeBlobView(std::string_view blob, bool mapped, RowView* out) const;
  // Decodes only the named scalar fields from the raw part (index values).
  Status DecodeRawFields(std::string_view raw, const std::vector<std::string>& names, Row* out) const;
  // Bytes the v3.0 packing saved in an encoded blob (for copies that keep it).
  int64_t PackingSaved(std::string_view blob) const;

  bool packs_integers() const { return packs_; }

  // A blob part's per-field byte ranges (blob_fields order), and the inverse.
  // Schemas without blob fields have no parts.
  Status SplitBlob(std::string_view blob, std::vector<std::string_view>* parts) const;
  void JoinBlob(const std::vector<std::string>& parts, std::string* out) const;

 private:
  Result<Value> DecodeBlobField(int field_id, std::string_view bytes) const;
  Result<EncodedParts> EncodeImpl(const Row& row, Row* consume) const;
  // The msgpack raw part, written directly (the bytes nlohmann's to_msgpack
  // gives for the map of the raw fields).
  void EncodeRawPart(const Row& row, std::string* out) const;

  const Schema* schema_;
  std::string version_;
  bool packs_;
  std::vector<int> sorted_raw_;  // raw field ids, by name
};

}  // namespace mindrecord
