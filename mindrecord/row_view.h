// RowView: a row read without copying its bytes. Each selected field is a
// FieldView whose bytes (strings, bytes, array elements) point at the row's
// bytes where they lie: in a mapped shard's pages (ShardReader in mmap mode),
// or in the reader's buffers for this row (pread and direct reads, compressed
// rows, v3.0-packed integer arrays, which must be unpacked).
// ShardReader::ScanViews and ShardReader::ReadRowViews hand them out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/schema.h"
#include "mindrecord/value.h"

namespace mindrecord {

// One field of a RowView.
struct FieldView {
  const Field* field = nullptr;  // the schema's field (name, type, shape)
  Value::Kind kind = Value::Kind::kNull;  // kInt, kFloat, kString, kBytes or kArray once decoded
  int64_t i = 0;                 // kInt
  double f = 0;                  // kFloat
  // kString / kBytes: the contents; kArray: the elements, little-endian,
  // field->type each (the address need not be aligned to the element size).
  std::string_view data;
  std::vector<int64_t> shape;    // kArray: the row's shape (a -1 of the schema resolved)
  // True when `data` lies in a mapped shard's pages, verified (checksum)
  // before it was handed out: it stays valid while RowView::mapping() (or the
  // reader) lives. False: it is valid until the callback that got the row
  // returns.
  bool mapped = false;

  const std::string& name() const { return field->name; }
  // A Value holding a copy of the field.
  Value ToValue() const;
};

// Thread safety: a value type filled by one reader call at a time; const
// access from many threads is safe while nobody refills it.
class RowView {
 public:
  RowView() = default;
  RowView(const RowView&) = delete;
  RowView& operator=(const RowView&) = delete;

  // The selected fields in ascending schema order (the order of
  // Projection::field_ids; all fields when no projection was given).
  size_t size() const { return fields_.size(); }
  const FieldView& operator[](size_t i) const { return fields_[i]; }
  const std::vector<FieldView>& fields() const { return fields_; }
  // nullptr when `name` is not selected.
  const FieldView* Find(std::string_view name) const;
  // Owns the mapping that `mapped` fields point into: holding a copy keeps
  // their bytes valid after the reader is destroyed (Tensor::Wrap, numpy
  // arrays). Null when the row's shard is not mapped.
  const std::shared_ptr<const void>& mapping() const { return *mapping_; }
  // The whole mapped shard file the `mapped` fields lie in (empty when the
  // row's shard is not mapped): lets a caller cut views of one object over
  // it (e.g. Python memoryview slices) instead of making one per field.
  std::string_view mapped_file() const { return mapped_file_; }
  // Bytes the row's parts take in the file, length prefixes included
  // (ShardReader::StoredBytes of the same row and projection).
  uint64_t stored_bytes() const { return stored_bytes_; }
  // Bytes its values hold, as Row::value_bytes() counts them (what read-ahead
  // caps count).
  uint64_t value_bytes() const;
  // A Row holding copies of the fields.
  Row ToRow() const;

  // ---- for the readers that fill it ------------------------------------
  // Selects `field_ids` (ascending) of `schema`; empty: all fields.
  void Select(const Schema& schema, const std::vector<int>& field_ids);
  // Starts a row: every field back to kNull, `mapping` its shard's owner
  // (nullptr or a null pointer: not mapped) and `mapped_file` its bytes.
  void Begin(const std::shared_ptr<const void>* mapping, std::string_view mapped_file, uint64_t stored_bytes);
  // Buffers owned by the view and reused from row to row, for a part that
  // had to be decompressed first.
  std::string& raw_buffer() { return raw_buf_; }
  std::string& blob_buffer() { return blob_buf_; }

 private:
  friend class RowCodec;  // fills the slots
  FieldView* Slot(int field_id) { return slot_of_[field_id] < 0 ? nullptr : &fields_[slot_of_[field_id]]; }

  std::vector<FieldView> fields_;
  std::vector<int> slot_of_;         // per schema field: index in fields_, or -1
  std::vector<std::string> owned_;   // per slot: unpacked arrays, strings of the general msgpack parser
  std::vector<uint8_t> seen_;        // per schema field: met in this row's raw part
  size_t raw_selected_ = 0;          // selected non-blob fields
  size_t blob_selected_ = 0;         // selected blob fields
  std::string raw_buf_, blob_buf_;
  const std::shared_ptr<const void>* mapping_ = &kNoMapping;
  std::string_view mapped_file_;
  uint64_t stored_bytes_ = 0;
  static const std::shared_ptr<const void> kNoMapping;
};

}  // namespace mindrecord
