#include "mindrecord/row_view.h"

#include <algorithm>
#include <functional>

#include "mindrecord/int_packing.h"
#include "mindrecord/msgpack_reader.h"
#include "mindrecord/row_codec.h"

namespace mindrecord {

using codec_internal::CheckIntRange;
using codec_internal::OutOfRange;
using codec_internal::RawMapReader;

const std::shared_ptr<const void> RowView::kNoMapping;

Value FieldView::ToValue() const {
  switch (kind) {
    case Value::Kind::kInt: return Value::Int(i);
    case Value::Kind::kFloat: return Value::Float(f);
    case Value::Kind::kString: return Value::String(std::string(data));
    case Value::Kind::kBytes: return Value::Bytes(std::string(data));
    case Value::Kind::kArray: return Value::Array(field->type, shape, std::string(data));
    case Value::Kind::kNull: break;
  }
  return Value();
}

const FieldView* RowView::Find(std::string_view name) const {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), name,
                             [](const FieldView& f, std::string_view n) { return f.field->name < n; });
  return it != fields_.end() && it->field->name == name ? &*it : nullptr;
}

uint64_t RowView::value_bytes() const {
  uint64_t n = 0;
  for (const FieldView& f : fields_) n += f.data.size() + 8;
  return n;
}

Row RowView::ToRow() const {
  Row row;
  for (const FieldView& f : fields_) {
    if (f.kind != Value::Kind::kNull) row.Set(f.field->name, f.ToValue());
  }
  return row;
}

void RowView::Select(const Schema& schema, const std::vector<int>& field_ids) {
  const auto& all = schema.fields();
  fields_.clear();
  slot_of_.assign(all.size(), -1);
  seen_.assign(all.size(), 0);
  raw_selected_ = blob_selected_ = 0;
  auto add = [&](int id) {
    slot_of_[id] = static_cast<int>(fields_.size());
    FieldView v;
    v.field = &all[id];
    fields_.push_back(std::move(v));
    (all[id].is_blob() ? blob_selected_ : raw_selected_)++;
  };
  if (field_ids.empty()) {
    for (size_t id = 0; id < all.size(); ++id) add(static_cast<int>(id));
  } else {
    for (int id : field_ids) add(id);
  }
  owned_.resize(fields_.size());
}

void RowView::Begin(const std::shared_ptr<const void>* mapping, std::string_view mapped_file, uint64_t stored_bytes) {
  for (FieldView& f : fields_) {
    f.kind = Value::Kind::kNull;
    f.data = {};
    f.mapped = false;
  }
  mapping_ = mapping && *mapping ? mapping : &kNoMapping;
  mapped_file_ = mapping_ == &kNoMapping ? std::string_view() : mapped_file;
  stored_bytes_ = stored_bytes;
}

Status RowCodec::DecodeRawView(std::string_view raw, bool mapped, RowView* out) const {
  if (out->raw_selected_ == 0) return Status::OK();
  // The fast path, as DecodeRawFast: keys are usually in schema order, so the
  // expected key is tried before a lookup.
  RawMapReader r(raw);
  uint32_t n;
  bool fast = r.MapSize(&n);
  if (fast) {
    // Fields met so far: bits of one word for up to 64 fields, else bytes.
    const bool small = out->seen_.size() <= 64;
    uint64_t seen_bits = 0;
    if (!small) std::fill(out->seen_.begin(), out->seen_.end(), 0);
    auto seen = [&](int id) { return small ? (seen_bits >> id) & 1 : out->seen_[id] != 0; };
    auto mark = [&](int id) {
      if (small) seen_bits |= uint64_t{1} << id;
      else out->seen_[id] = 1;
    };
    size_t found = 0;
    for (uint32_t k = 0; k < n && fast; ++k) {
      std::string_view key, sval;
      int64_t ival = 0;
      double fval = 0;
      if (!r.Str(&key)) {
        fast = false;
        break;
      }
      const auto kind = r.Scalar(&ival, &fval, &sval);
      if (kind == RawMapReader::Kind::kOther) {
        fast = false;
        break;
      }
      int id = k < sorted_raw_.size() && schema_->fields()[sorted_raw_[k]].name == key ? sorted_raw_[k]
                                                                                        : schema_->FieldIndex(key);
      if (id < 0) continue;
      if (seen(id)) return Status::Corruption("raw row holds field '" + std::string(key) + "' twice");
      mark(id);
      const Field& f = schema_->fields()[id];
      FieldView* slot = out->Slot(id);
      if (slot == nullptr || f.is_blob()) continue;
      ++found;
      switch (f.type) {
        case DataType::kInt32:
        case DataType::kInt64:
          if (kind != RawMapReader::Kind::kInt) {
            fast = false;
            break;
          }
          if (r.above_int64()) return OutOfRange(f, std::to_string(static_cast<uint64_t>(ival)));
          MR_RETURN_IF_ERROR(CheckIntRange(f, ival));
          slot->kind = Value::Kind::kInt;
          slot->i = ival;
          break;
        case DataType::kFloat32:
        case DataType::kFloat64: {
          if (kind == RawMapReader::Kind::kStr) {
            fast = false;
            break;
          }
          double d = kind == RawMapReader::Kind::kInt ? static_cast<double>(ival) : fval;
          if (f.type == DataType::kFloat32) d = static_cast<double>(static_cast<float>(d));
          slot->kind = Value::Kind::kFloat;
          slot->f = d;
          break;
        }
        default:
          if (kind != RawMapReader::Kind::kStr) {
            fast = false;
            break;
          }
          slot->kind = Value::Kind::kString;
          slot->data = sval;
          slot->mapped = mapped;
      }
    }
    if (fast && r.AtEnd()) {
      if (found != out->raw_selected_) {
        return Status::Corruption("raw row lacks " + std::to_string(out->raw_selected_ - found) + " of its fields");
      }
      return Status::OK();
    }
  }
  // Any other msgpack shape: the general parser, through a Row.
  std::vector<bool> select(schema_->fields().size(), false);
  for (const FieldView& v : out->fields_) select[v.field - schema_->fields().data()] = !v.field->is_blob();
  Row row;
  MR_RETURN_IF_ERROR(DecodeRaw(raw, select, &row));
  for (size_t s = 0; s < out->fields_.size(); ++s) {
    FieldView& slot = out->fields_[s];
    if (slot.field->is_blob()) continue;
    const Value* v = row.Find(slot.field->name);
    if (v == nullptr) return Status::Corruption("raw row has no field '" + slot.field->name + "'");
    slot.kind = v->kind();
    slot.i = v->as_int();
    slot.f = v->as_float();
    out->owned_[s] = v->bytes();
    slot.data = out->owned_[s];
    slot.mapped = false;
  }
  return Status::OK();
}

Status RowCodec::DecodeBlobView(std::string_view blob, bool mapped, RowView* out) const {
  const auto& blobs = schema_->blob_fields();
  if (blobs.empty() || out->blob_selected_ == 0) return Status::OK();
  auto field = [&](int id, std::string_view bytes) -> Status {
    FieldView* slot = out->Slot(id);
    if (slot == nullptr) return Status::OK();
    const Field& f = *slot->field;
    if (!f.has_shape) {
      slot->kind = Value::Kind::kBytes;
      slot->data = bytes;
      slot->mapped = mapped;
      return Status::OK();
    }
    const size_t esize = DataTypeSize(f.type);
    if (packs_ && IsIntegerType(f.type)) {
      auto unpacked = UnpackIntegers(bytes, esize);
      if (!unpacked.ok()) return unpacked.status().WithContext("field '" + f.name + "'");
      std::string& own = out->owned_[slot - out->fields_.data()];
      own = std::move(unpacked).value();
      slot->data = own;
      slot->mapped = false;
    } else {
      if (bytes.size() % esize != 0) {
        return Status::Corruption("field '" + f.name + "' has " + std::to_string(bytes.size()) +
                                  " bytes, not a whole number of " + DataTypeName(f.type) + " elements");
      }
      slot->data = bytes;
      slot->mapped = mapped;
    }
    MR_RETURN_IF_ERROR(
        codec_internal::ResolveShape(f, static_cast<int64_t>(slot->data.size() / esize), &slot->shape));
    slot->kind = Value::Kind::kArray;
    return Status::OK();
  };
  if (blobs.size() == 1) return field(blobs[0], blob);
  // The framing of every field is checked first, selected or not, as
  // SplitBlob does (so damage is reported as DecodeBlob reports it); then
  // the selected fields are decoded.
  auto frame = [&](const std::function<Status(int id, std::string_view bytes)>& each) -> Status {
    size_t pos = 0;
    for (int id : blobs) {
      const std::string& name = schema_->fields()[id].name;
      if (blob.size() - pos < 8) return Status::Corruption("blob part ends inside the length of field '" + name + "'");
      uint64_t len = 0;
      for (int b = 0; b < 8; ++b) len = (len << 8) | static_cast<uint8_t>(blob[pos + b]);
      pos += 8;
      if (len > blob.size() - pos) {
        return Status::Corruption("blob field '" + name + "' claims " + std::to_string(len) + " bytes but only " +
                                  std::to_string(blob.size() - pos) + " remain");
      }
      MR_RETURN_IF_ERROR(each(id, blob.substr(pos, len)));
      pos += len;
    }
    if (pos != blob.size()) {
      return Status::Corruption("blob part has " + std::to_string(blob.size() - pos) + " bytes after its last field");
    }
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(frame([](int, std::string_view) { return Status::OK(); }));
  return frame(field);
}

}  // namespace mindrecord
