// TFRecord files of tf.train.Example -> one field per feature. The feature
// spec comes from --fields or is inferred from the first records: bytes_list
// -> bytes, int64_list -> int64, float_list -> float32; a feature holding one
// value everywhere is a scalar, otherwise an array of shape [-1], and a
// bytes_list of another length is a list: the values concatenated plus
// `<name>_lengths: int64 [-1]` (see ListLengthsField). A file compressed
// whole with gzip or zlib (TensorFlow's GZIP / ZLIB options) is found by its
// first bytes and read decompressed.
#include <cstring>
#include <map>
#include <memory>

#include "mindrecord/crc32c.h"
#include "mindrecord/inflated_file.h"
#include "mindrecord/limits.h"
#include "mindrecord/tfrecord_framing.h"
#include "writers/convert/sources.h"
#include "writers/convert/tf_example.pb.h"

namespace mindrecord::convert {
namespace {

struct RecordRef {
  uint64_t offset = 0;  // of the data, after the 12-byte length header
  uint64_t length = 0;
};

// The open file (its decompressed bytes when compressed), shared by the
// workers (RandomAccessFile reads are thread-safe).
struct TfFile {
  std::string path;
  std::shared_ptr<const RandomAccessFile> file;
  std::vector<RecordRef> records;
  std::vector<FieldSpec> specs;
  Status ReadAt(uint64_t off, size_t n, char* out) const { return file->ReadAt(off, n, out); }
};

// `st` (naming f.path first) reported for the file as ctx reports inputs.
Status BadFile(const TfFile& f, const Status& st, ConvertContext& ctx) {
  std::string m = st.message();
  if (m.rfind(f.path + ": ", 0) == 0) m.erase(0, f.path.size() + 2);
  return ctx.BadInput(f.path, Status(st.code(), m));
}

// A gzip or zlib file: inflated once, its records framed as they come out;
// then read through the access points the pass kept
// (mindrecord/inflated_file.h). A framing error stops the pass unless the
// records before it are to be kept (skip): their reads need the whole index.
// More records than MaxIndexedRows() stop it and the conversion.
Status ScanCompressed(TfFile& f, StreamCompression c, uint64_t limit, ConvertContext& ctx) {
  const bool keep_before = ctx.options().on_error == OnError::kSkip;
  Status framing, full;
  TfRecordFramer framer(f.path, [&](uint64_t start, uint64_t n) {
    if (f.records.size() >= limit) return full = TooManyIndexedRows(f.path, limit, "records");
    f.records.push_back({start + kTfRecordHeader, n - kTfRecordHeader - kTfRecordFooter});
    return Status::OK();
  });
  auto index = InflateScan(*f.file, c, [&](const char* p, size_t n) {
    if (framing.ok()) framing = framer.Feed(p, n);
    if (!full.ok()) return full;
    return keep_before ? Status::OK() : framing;
  });
  if (!full.ok()) return full;
  if (!index.ok()) {
    f.records.clear();  // not readable without the index
    return BadFile(f, index.status(), ctx);
  }
  f.file = std::make_shared<InflatedFile>(f.file, *index);
  if (framing.ok()) framing = framer.Finish();
  return framing.ok() ? Status::OK() : BadFile(f, framing, ctx);
}

// Walks the framing: uint64 length, masked CRC of it, data, masked CRC of data.
Status ScanRecords(TfFile& f, ConvertContext& ctx) {
  MR_ASSIGN_OR_RETURN(StreamCompression c, DetectTfRecordCompression(*f.file));
  MR_ASSIGN_OR_RETURN(const uint64_t limit, MaxIndexedRows());
  if (c != StreamCompression::kNone) return ScanCompressed(f, c, limit, ctx);
  const uint64_t size = f.file->size();
  uint64_t off = 0;
  while (off < size) {
    const std::string where = f.path + " record " + std::to_string(f.records.size()) + " (offset " + std::to_string(off) + ")";
    if (size - off < 12) {
      return ctx.BadInput(where, Status::Corruption("truncated record header"));
    }
    char hdr[12];
    MR_RETURN_IF_ERROR(f.ReadAt(off, 12, hdr));
    uint64_t len;
    std::memcpy(&len, hdr, 8);
    if (!TfRecordCrcMatches(hdr, 8)) {
      // The framing cannot be trusted past this point.
      return ctx.BadInput(where, Status::Corruption("length checksum mismatch (not a TFRecord file, or corrupt)"));
    }
    if (len > size - off - 12 || size - off - 12 - len < 4) {
      return ctx.BadInput(where, Status::Corruption("truncated: record of " + std::to_string(len) +
                                                    " bytes runs past the end of the file"));
    }
    if (f.records.size() >= limit) return TooManyIndexedRows(f.path, limit, "records");
    f.records.push_back({off + 12, len});
    off += 12 + len + 4;
  }
  return Status::OK();
}

Result<tf::Example> ReadExample(const TfFile& f, size_t i) {
  const RecordRef& r = f.records[i];
  if (r.length > kMaxDecompressedRowBytes) {
    return Status::Corruption("a record of " + std::to_string(r.length) + " bytes, longer than a row may be");
  }
  std::string buf(r.length + 4, '\0');
  MR_RETURN_IF_ERROR(f.ReadAt(r.offset, buf.size(), buf.data()));
  if (!TfRecordCrcMatches(buf.data(), r.length))
    return Status::Corruption("data checksum mismatch");
  tf::Example ex;
  if (!ex.ParseFromArray(buf.data(), static_cast<int>(r.length))) return Status::Corruption("not a tf.train.Example");
  return ex;
}

Status InferSpecs(TfFile& f, const ConvertOptions& o, ConvertContext& ctx) {
  struct Seen {
    int kind = -1;  // Feature::KindCase
    bool all_single = true;
  };
  std::map<std::string, Seen> seen;
  size_t n = std::min<size_t>(f.records.size(), std::max<uint32_t>(o.infer_records, 1));
  for (size_t i = 0; i < n; ++i) {
    auto ex = ReadExample(f, i);
    if (!ex.ok()) return ex.status().WithContext(f.path + " record " + std::to_string(i));
    for (const auto& [name, feat] : ex->features().feature()) {
      Seen& s = seen[name];
      int kind = feat.kind_case();
      if (kind == tf::Feature::KIND_NOT_SET) continue;
      if (s.kind >= 0 && s.kind != kind)
        return Status::Corruption(f.path + " record " + std::to_string(i) + ": feature '" + name + "' changes kind");
      s.kind = kind;
      int count = kind == tf::Feature::kBytesList ? feat.bytes_list().value_size()
                  : kind == tf::Feature::kFloatList ? feat.float_list().value_size() : feat.int64_list().value_size();
      if (count != 1) s.all_single = false;
    }
  }
  std::string note;
  for (const auto& [name, s] : seen) {
    if (s.kind < 0) continue;
    FieldSpec spec;
    spec.source_name = name;
    spec.field.name = SanitizeFieldName(name);
    if (s.kind == tf::Feature::kBytesList) {
      spec.field.type = DataType::kBytes;
      spec.byte_list = !s.all_single;
    } else {
      spec.field.type = s.kind == tf::Feature::kFloatList ? DataType::kFloat32 : DataType::kInt64;
      if (!s.all_single) {
        spec.field.has_shape = true;
        spec.field.shape = {-1};
      }
    }
    note += (note.empty() ? "" : ",") + name + ":" + DataTypeName(spec.field.type) +
            (spec.field.has_shape || spec.byte_list ? ":[-1]" : "");
    f.specs.push_back(std::move(spec));
  }
  if (f.specs.empty()) return Status::Corruption(f.path + ": no features in the first records");
  ctx.Note("tfrecord feature spec (inferred): --fields '" + note + "'");
  auto schema = Schema::Make(SpecFields(f.specs));
  if (!schema.ok()) return schema.status().WithContext(f.path + ": inferred feature spec");
  return Status::OK();
}

Result<Value> FeatureValue(const tf::Feature& feat, const Field& field) {
  auto want = [&](int kind, const char* name) -> Status {
    if (feat.kind_case() != kind) return Status::Corruption(std::string("expected a ") + name);
    return Status::OK();
  };
  switch (field.type) {
    case DataType::kBytes:
    case DataType::kString: {
      MR_RETURN_IF_ERROR(want(tf::Feature::kBytesList, "bytes_list"));
      if (feat.bytes_list().value_size() != 1)
        return Status::Corruption("expected one value, got " + std::to_string(feat.bytes_list().value_size()) +
                                  " (a list needs --fields NAME:bytes:[-1], or --infer-records reaching a record "
                                  "that holds a list)");
      const std::string& v = feat.bytes_list().value(0);
      return field.type == DataType::kBytes ? Value::Bytes(v) : Value::String(v);
    }
    case DataType::kInt32:
    case DataType::kInt64: {
      MR_RETURN_IF_ERROR(want(tf::Feature::kInt64List, "int64_list"));
      const auto& l = feat.int64_list().value();
      if (!field.has_shape) {
        if (l.size() != 1) return Status::Corruption("expected one value, got " + std::to_string(l.size()));
        return Value::Int(l[0]);
      }
      if (field.type == DataType::kInt64) return Value::ArrayOf<int64_t>(DataType::kInt64, {l.begin(), l.end()});
      std::vector<int32_t> v;
      for (int64_t x : l) {
        if (x < INT32_MIN || x > INT32_MAX) return Status::Corruption("value out of int32 range");
        v.push_back(static_cast<int32_t>(x));
      }
      return Value::ArrayOf<int32_t>(DataType::kInt32, v);
    }
    case DataType::kFloat32:
    case DataType::kFloat64: {
      MR_RETURN_IF_ERROR(want(tf::Feature::kFloatList, "float_list"));
      const auto& l = feat.float_list().value();
      if (!field.has_shape) {
        if (l.size() != 1) return Status::Corruption("expected one value, got " + std::to_string(l.size()));
        return Value::Float(l[0]);
      }
      if (field.type == DataType::kFloat32) return Value::ArrayOf<float>(DataType::kFloat32, {l.begin(), l.end()});
      return Value::ArrayOf<double>(DataType::kFloat64, std::vector<double>(l.begin(), l.end()));
    }
  }
  return Status::Internal("unknown field type");
}

// A bytes_list of any length: the values concatenated + their lengths.
Status SetByteList(const tf::Feature& feat, const Field& field, Row& row) {
  if (feat.kind_case() != tf::Feature::kBytesList && feat.kind_case() != tf::Feature::KIND_NOT_SET)
    return Status::Corruption("expected a bytes_list");
  std::string all;
  std::vector<int64_t> lengths;
  for (const std::string& v : feat.bytes_list().value()) {
    all += v;
    lengths.push_back(static_cast<int64_t>(v.size()));
  }
  row.Set(field.name, field.type == DataType::kBytes ? Value::Bytes(std::move(all)) : Value::String(std::move(all)));
  row.Set(ListLengthsField(field.name), Value::ArrayOf<int64_t>(DataType::kInt64, lengths));
  return Status::OK();
}

}  // namespace

PlanResult PlanTfRecord(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  auto f = std::make_shared<TfFile>();
  f->path = input;
  MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(input));
  f->file = std::move(file);
  MR_RETURN_IF_ERROR(ScanRecords(*f, ctx));
  if (f->records.empty()) return Status::NotFound(input + ": no records");
  if (!o.fields.empty()) {
    MR_ASSIGN_OR_RETURN(f->specs, ParseFieldSpecs(o.fields));
  } else {
    MR_RETURN_IF_ERROR(InferSpecs(*f, o, ctx));
  }
  SplitPlan plan;
  MR_ASSIGN_OR_RETURN(plan.schema, Schema::Make(SpecFields(f->specs), "tfrecord"));
  plan.num_items = f->records.size();
  plan.item_name = [f](size_t i) { return f->path + " record " + std::to_string(i); };
  plan.item_bytes = [f](size_t i) { return f->records[i].length; };
  plan.make_row = [f](size_t i) -> Result<Row> {
    MR_ASSIGN_OR_RETURN(tf::Example ex, ReadExample(*f, i));
    const auto& features = ex.features().feature();
    Row row;
    for (const FieldSpec& s : f->specs) {
      auto it = features.find(s.source_name);
      if (it == features.end()) return Status::Corruption("feature '" + s.source_name + "' is missing");
      if (s.byte_list) {
        Status st = SetByteList(it->second, s.field, row);
        if (!st.ok()) return st.WithContext("feature '" + s.source_name + "'");
        continue;
      }
      auto v = FeatureValue(it->second, s.field);
      if (!v.ok()) return v.status().WithContext("feature '" + s.source_name + "'");
      row.Set(s.field.name, std::move(v).value());
    }
    return row;
  };
  std::vector<SplitPlan> plans;
  plans.push_back(std::move(plan));
  return plans;
}

}  // namespace mindrecord::convert
