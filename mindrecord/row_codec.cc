#include "mindrecord/row_codec.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "mindrecord/constants.h"
#include "mindrecord/int_packing.h"
#include "mindrecord/json_guard.h"
#include "mindrecord/limits.h"
#include "mindrecord/msgpack_reader.h"

namespace mindrecord {

using nlohmann::json;
using codec_internal::CheckIntRange;
using codec_internal::OutOfRange;
using codec_internal::RawMapReader;

RowCodec::RowCodec(const Schema* schema, std::string version)
    : schema_(schema), version_(std::move(version)) {
  packs_ = version_ != kVersion2 && schema_->has_integer_array();
  // The raw part's keys in the order nlohmann's std::map keeps them.
  sorted_raw_ = schema_->raw_fields();
  std::sort(sorted_raw_.begin(), sorted_raw_.end(),
            [&](int a, int b) { return schema_->fields()[a].name < schema_->fields()[b].name; });
}

namespace {

void PutBE64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBE64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

Result<Value> ScalarFromJson(const Field& f, const json& j) {
  switch (f.type) {
    case DataType::kInt32:
    case DataType::kInt64:
      if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return OutOfRange(f, std::to_string(j.get<uint64_t>()));
      }
      if (j.is_number_integer()) {
        MR_RETURN_IF_ERROR(CheckIntRange(f, j.get<int64_t>()));
        return Value::Int(j.get<int64_t>());
      }
      break;
    case DataType::kFloat32:
      if (j.is_number()) return Value::Float(static_cast<double>(static_cast<float>(j.get<double>())));
      break;
    case DataType::kFloat64:
      if (j.is_number()) return Value::Float(j.get<double>());
      break;
    case DataType::kString:
      if (j.is_string()) return Value::String(j.get<std::string>());
      if (j.is_number()) return Value::String(j.dump());
      break;
    default: break;
  }
  // replace: a stored string need not be valid UTF-8, and dump() would throw on it.
  return Status::Corruption("field '" + f.name + "' holds " + std::string(j.type_name()) + " " +
                            j.dump(-1, ' ', false, json::error_handler_t::replace) +
                            ", not a " + DataTypeName(f.type));
}

}  // namespace

// Fast path of DecodeRaw; returns false to defer to the general parser.
static bool DecodeRawFast(const Schema& schema, std::string_view raw, const std::vector<bool>& select, Row* out,
                          Status* error) {
  RawMapReader r(raw);
  uint32_t n;
  if (!r.MapSize(&n)) return false;
  size_t found = 0, wanted = 0;
  for (int id : schema.raw_fields()) wanted += select.empty() || select[id];
  std::vector<bool> seen(schema.fields().size(), false);
  for (uint32_t k = 0; k < n; ++k) {
    std::string_view key, sval;
    int64_t ival = 0;
    double fval = 0;
    if (!r.Str(&key)) return false;
    auto kind = r.Scalar(&ival, &fval, &sval);
    if (kind == RawMapReader::Kind::kOther) return false;
    int id = schema.FieldIndex(key);
    if (id >= 0 && seen[id]) {
      *error = Status::Corruption("raw row holds field '" + std::string(key) + "' twice");
      return true;
    }
    if (id >= 0) seen[id] = true;
    if (id < 0 || schema.fields()[id].is_blob() || (!select.empty() && !select[id])) continue;
    const Field& f = schema.fields()[id];
    ++found;
    switch (f.type) {
      case DataType::kInt32:
      case DataType::kInt64:
        if (kind != RawMapReader::Kind::kInt) return false;
        if (r.above_int64()) {
          *error = OutOfRange(f, std::to_string(static_cast<uint64_t>(ival)));
          return true;
        }
        if (Status st = CheckIntRange(f, ival); !st.ok()) {
          *error = st;
          return true;
        }
        out->Set(f.name, Value::Int(ival));
        break;
      case DataType::kFloat32:
      case DataType::kFloat64: {
        double d = kind == RawMapReader::Kind::kInt ? static_cast<double>(ival) : fval;
        if (kind == RawMapReader::Kind::kStr) return false;
        if (f.type == DataType::kFloat32) d = static_cast<double>(static_cast<float>(d));
        out->Set(f.name, Value::Float(d));
        break;
      }
      default:
        if (kind != RawMapReader::Kind::kStr) return false;
        out->Set(f.name, Value::String(std::string(sval)));
    }
  }
  if (!r.AtEnd()) return false;
  if (found != wanted) {
    *error = Status::Corruption("raw row lacks " + std::to_string(wanted - found) + " of its fields");
  }
  return true;
}

namespace {

// msgpack writers producing exactly the bytes nlohmann's to_msgpack writes for
// the same json value (smallest integer encoding, float32 when lossless,
// fixstr / str8 / str16 / str32, fixmap / map16 / map32), without building a
// json object per row.
void PutBE(std::string* out, uint64_t v, int bytes) {
  char b[8];
  for (int i = 0; i < bytes; ++i) b[i] = static_cast<char>((v >> (8 * (bytes - 1 - i))) & 0xff);
  out->append(b, static_cast<size_t>(bytes));
}

void PackInt(std::string* out, int64_t v) {
  if (v >= 0) {
    const uint64_t u = static_cast<uint64_t>(v);
    if (u < 128) out->push_back(static_cast<char>(u));
    else if (u <= 0xff) { out->push_back(static_cast<char>(0xcc)); PutBE(out, u, 1); }
    else if (u <= 0xffff) { out->push_back(static_cast<char>(0xcd)); PutBE(out, u, 2); }
    else if (u <= 0xffffffffULL) { out->push_back(static_cast<char>(0xce)); PutBE(out, u, 4); }
    else { out->push_back(static_cast<char>(0xcf)); PutBE(out, u, 8); }
    return;
  }
  const uint64_t u = static_cast<uint64_t>(v);
  if (v >= -32) out->push_back(static_cast<char>(static_cast<int8_t>(v)));
  else if (v >= INT8_MIN) { out->push_back(static_cast<char>(0xd0)); PutBE(out, u, 1); }
  else if (v >= INT16_MIN) { out->push_back(static_cast<char>(0xd1)); PutBE(out, u, 2); }
  else if (v >= INT32_MIN) { out->push_back(static_cast<char>(0xd2)); PutBE(out, u, 4); }
  else { out->push_back(static_cast<char>(0xd3)); PutBE(out, u, 8); }
}

void PackFloat(std::string* out, double d) {
  if (d >= static_cast<double>(std::numeric_limits<float>::lowest()) &&
      d <= static_cast<double>(std::numeric_limits<float>::max()) && static_cast<double>(static_cast<float>(d)) == d) {
    const float f = static_cast<float>(d);
    uint32_t w;
    std::memcpy(&w, &f, 4);
    out->push_back(static_cast<char>(0xca));
    PutBE(out, w, 4);
  } else {
    uint64_t w;
    std::memcpy(&w, &d, 8);
    out->push_back(static_cast<char>(0xcb));
    PutBE(out, w, 8);
  }
}

void PackStr(std::string* out, std::string_view s) {
  const uint64_t n = s.size();
  if (n <= 31) out->push_back(static_cast<char>(0xa0 | n));
  else if (n <= 0xff) { out->push_back(static_cast<char>(0xd9)); PutBE(out, n, 1); }
  else if (n <= 0xffff) { out->push_back(static_cast<char>(0xda)); PutBE(out, n, 2); }
  else { out->push_back(static_cast<char>(0xdb)); PutBE(out, n, 4); }
  out->append(s);
}

}  // namespace

void RowCodec::EncodeRawPart(const Row& row, std::string* out) const {
  out->clear();
  const size_t n = sorted_raw_.size();
  if (n == 0) {
    out->assign("\x81\xa2id\x00", 5);  // {"id":0}
    return;
  }
  if (n <= 15) out->push_back(static_cast<char>(0x80 | n));
  else if (n <= 0xffff) { out->push_back(static_cast<char>(0xde)); PutBE(out, n, 2); }
  else { out->push_back(static_cast<char>(0xdf)); PutBE(out, n, 4); }
  for (int id : sorted_raw_) {
    const Field& f = schema_->fields()[id];
    const Value& v = row.Get(f.name);
    PackStr(out, f.name);
    switch (f.type) {
      case DataType::kInt32:
      case DataType::kInt64: PackInt(out, v.as_int()); break;
      case DataType::kFloat32: PackFloat(out, static_cast<double>(static_cast<float>(v.as_float()))); break;
      case DataType::kFloat64: PackFloat(out, v.as_float()); break;
      default: PackStr(out, v.bytes());
    }
  }
}

Result<EncodedParts> RowCodec::Encode(const Row& row) const { return EncodeImpl(row, nullptr); }

Result<EncodedParts> RowCodec::EncodeConsuming(Row& row) const { return EncodeImpl(row, &row); }

Result<EncodedParts> RowCodec::EncodeImpl(const Row& row, Row* consume) const {
  EncodedParts out;
  EncodeRawPart(row, &out.raw);

  const auto& blobs = schema_->blob_fields();
  if (blobs.empty()) {
    out.blob.assign(kDummyBlobSize, '\0');
    return out;
  }
  auto field_bytes = [&](int id, std::string* dst) {
    const Field& f = schema_->fields()[id];
    const std::string& b = row.Get(f.name).bytes();
    if (packs_ && f.has_shape && IsIntegerType(f.type)) {
      std::string p = PackIntegers(b, DataTypeSize(f.type));
      out.packing_saved += static_cast<int64_t>(b.size()) - static_cast<int64_t>(p.size());
      if (dst) PutBE64(dst, p.size());
      if (dst) *dst += p; else out.blob = std::move(p);
    } else {
      if (dst) {
        PutBE64(dst, b.size());
        *dst += b;
      } else if (Value* v = consume ? const_cast<Value*>(consume->Find(f.name)) : nullptr) {  // *consume is not const
        out.blob = std::move(v->mutable_bytes());
        v->mutable_bytes().clear();
      } else {
        out.blob = b;
      }
    }
  };
  if (blobs.size() == 1) {
    field_bytes(blobs[0], nullptr);
  } else {
    for (int id : blobs) field_bytes(id, &out.blob);
  }
  return out;
}

Status RowCodec::DecodeRaw(std::string_view raw, const std::vector<bool>& select, Row* out) const {
  const std::vector<int>& fields = schema_->raw_fields();
  if (fields.empty()) return Status::OK();
  if (!select.empty() && std::none_of(fields.begin(), fields.end(), [&](int id) { return select[id]; })) {
    return Status::OK();
  }
  // A raw row holds every raw field: one with fewer map entries is refused
  // before the work per schema field below, so a row's cost stays bounded by
  // its bytes (a header of 200,000 fields over a million empty rows made
  // `verify --deep` spend 65 us a row).
  if (!raw.empty()) {
    const uint8_t b = static_cast<uint8_t>(raw[0]);
    uint64_t n = UINT64_MAX;
    if (b >= 0x80 && b <= 0x8f) n = b & 0x0f;
    if (b == 0xde && raw.size() >= 3) n = (uint64_t{static_cast<uint8_t>(raw[1])} << 8) | static_cast<uint8_t>(raw[2]);
    if (b == 0xdf && raw.size() >= 5) {
      n = 0;
      for (int i = 1; i <= 4; ++i) n = (n << 8) | static_cast<uint8_t>(raw[i]);
    }
    if (n < fields.size()) {
      return Status::Corruption("raw row holds " + std::to_string(n) + " fields, the schema has " +
                                std::to_string(fields.size()));
    }
  }
  Status fast_error;
  if (DecodeRawFast(*schema_, raw, select, out, &fast_error)) return fast_error;
  // The general parser recurses and allocates per element: bound both first.
  MR_RETURN_IF_ERROR(CheckMsgpackShape(raw, "raw row", {kMaxRowNesting, kMaxRowElements}));
  json j = json::from_msgpack(raw.begin(), raw.end(), /*strict=*/true, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("raw row is not a valid msgpack map");
  for (int id : schema_->raw_fields()) {
    if (!select.empty() && !select[id]) continue;
    const Field& f = schema_->fields()[id];
    auto it = j.find(f.name);
    if (it == j.end()) return Status::Corruption("raw row has no field '" + f.name + "'");
    MR_ASSIGN_OR_RETURN(Value v, ScalarFromJson(f, *it));
    out->Set(f.name, std::move(v));
  }
  return Status::OK();
}

Status RowCodec::DecodeRawFields(std::string_view raw, const std::vector<std::string>& names, Row* out) const {
  std::vector<bool> select(schema_->fields().size(), false);
  for (const auto& n : names) {
    int id = schema_->FieldIndex(n);
    if (id < 0) return Status::InvalidArgument("no field '" + n + "'");
    select[id] = true;
  }
  return DecodeRaw(raw, select, out);
}

Status RowCodec::SplitBlob(std::string_view blob, std::vector<std::string_view>* parts) const {
  const auto& blobs = schema_->blob_fields();
  parts->clear();
  if (blobs.empty()) return Status::OK();
  if (blobs.size() == 1) {
    parts->push_back(blob);
    return Status::OK();
  }
  size_t pos = 0;
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (blob.size() - pos < 8) {
      return Status::Corruption("blob part ends inside the length of field '" + schema_->fields()[blobs[i]].name +
                                "'");
    }
    uint64_t len = GetBE64(blob.data() + pos);
    pos += 8;
    if (len > blob.size() - pos) {
      return Status::Corruption("blob field '" + schema_->fields()[blobs[i]].name + "' claims " +
                                std::to_string(len) + " bytes but only " + std::to_string(blob.size() - pos) +
                                " remain");
    }
    parts->push_back(blob.substr(pos, len));
    pos += len;
  }
  if (pos != blob.size()) {
    return Status::Corruption("blob part has " + std::to_string(blob.size() - pos) + " bytes after its last field");
  }
  return Status::OK();
}

void RowCodec::JoinBlob(const std::vector<std::string>& parts, std::string* out) const {
  out->clear();
  if (parts.size() == 1 && schema_->blob_fields().size() == 1) {
    *out = parts[0];
    return;
  }
  for (const auto& p : parts) {
    PutBE64(out, p.size());
    *out += p;
  }
}

Result<Value> RowCodec::DecodeBlobField(int field_id, std::string_view bytes) const {
  const Field& f = schema_->fields()[field_id];
  if (!f.has_shape) return Value::Bytes(std::string(bytes));
  const size_t esize = DataTypeSize(f.type);
  std::string data;
  if (packs_ && IsIntegerType(f.type)) {
    auto unpacked = UnpackIntegers(bytes, esize);
    if (!unpacked.ok()) return unpacked.status().WithContext("field '" + f.name + "'");
    data = std::move(unpacked).value();
  } else {
    if (bytes.size() % esize != 0) {
      return Status::Corruption("field '" + f.name + "' has " + std::to_string(bytes.size()) +
                                " bytes, not a whole number of " + DataTypeName(f.type) + " elements");
    }
    data.assign(bytes);
  }
  std::vector<int64_t> shape;
  MR_RETURN_IF_ERROR(codec_internal::ResolveShape(f, static_cast<int64_t>(data.size() / esize), &shape));
  return Value::Array(f.type, std::move(shape), std::move(data));
}

Status codec_internal::ResolveShape(const Field& f, int64_t n, std::vector<int64_t>* out) {
  std::vector<int64_t>& shape = *out;
  shape = f.shape;
  int64_t known = 1;
  int unknown_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) unknown_at = static_cast<int>(i); else known *= shape[i];
  }
  if (unknown_at >= 0) {
    if (n % known != 0) {
      return Status::Corruption("field '" + f.name + "' has " + std::to_string(n) +
                                " elements, which does not fit its shape");
    }
    shape[unknown_at] = n / known;
  } else if (known != n) {
    return Status::Corruption("field '" + f.name + "' has " + std::to_string(n) + " elements, its shape needs " +
                              std::to_string(known));
  }
  return Status::OK();
}

Status RowCodec::DecodeBlob(std::string_view blob, const std::vector<bool>& select, Row* out) const {
  const auto& blobs = schema_->blob_fields();
  if (blobs.empty()) return Status::OK();
  bool any = select.empty();
  for (int id : blobs) any = any || select[id];
  if (!any) return Status::OK();
  std::vector<std::string_view> parts;
  MR_RETURN_IF_ERROR(SplitBlob(blob, &parts));
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (!select.empty() && !select[blobs[i]]) continue;
    MR_ASSIGN_OR_RETURN(Value v, DecodeBlobField(blobs[i], parts[i]));
    out->Set(schema_->fields()[blobs[i]].name, std::move(v));
  }
  return Status::OK();
}

int64_t RowCodec::PackingSaved(std::string_view blob) const {
  if (!packs_) return 0;
  std::vector<std::string_view> parts;
  if (!SplitBlob(blob, &parts).ok()) return 0;
  int64_t saved = 0;
  const auto& blobs = schema_->blob_fields();
  for (size_t i = 0; i < blobs.size(); ++i) {
    const Field& f = schema_->fields()[blobs[i]];
    if (!f.has_shape || !IsIntegerType(f.type) || parts[i].size() < 4) continue;
    const auto* p = reinterpret_cast<const uint8_t*>(parts[i].data());
    uint64_t n = (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) | (uint64_t{p[2]} << 8) | p[3];
    saved += static_cast<int64_t>(n * DataTypeSize(f.type)) - static_cast<int64_t>(parts[i].size());
  }
  return saved;
}

}  // namespace mindrecord
