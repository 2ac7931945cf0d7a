#include "pipeline/nodes/tfrecord_source.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "mindrecord/crc32c.h"
#include "mindrecord/limits.h"
#include "mindrecord/tfrecord_framing.h"
#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"
#include "writers/convert/tf_example.pb.h"

namespace mindrecord {

namespace {

constexpr uint64_t kHeader = kTfRecordHeader;
constexpr uint64_t kFooter = kTfRecordFooter;

// Each record of a TFRecord file as one row: its header, data and footer
// (start at the header), for ScanRows (row_scan_cache.h).
Status ScanTfRecords(const RandomAccessFile& file, FileRows* rows) {
  const uint64_t size = file.size();
  std::string buf;
  uint64_t buf_at = 0;  // file offset of buf[0]
  uint64_t records = 0;
  for (uint64_t off = 0; off < size; ++records) {
    auto bad = [&](const std::string& why) {
      return Status::Corruption(file.path() + ": record " + std::to_string(records) + " at byte " +
                                std::to_string(off) + ": " + why);
    };
    if (size - off < kHeader) return bad("truncated: " + std::to_string(size - off) + " bytes left, a header is 12");
    if (off < buf_at || off + kHeader > buf_at + buf.size()) {
      buf.resize(static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - off)));
      MR_RETURN_IF_ERROR(file.ReadAt(off, buf.size(), buf.data()));
      buf_at = off;
    }
    const char* hdr = buf.data() + (off - buf_at);
    uint64_t len;
    std::memcpy(&len, hdr, 8);
    if (!TfRecordCrcMatches(hdr, 8)) {
      auto c = off == 0 ? DetectTfRecordCompression(file) : Result<StreamCompression>(StreamCompression::kNone);
      if (c.ok() && *c != StreamCompression::kNone) {
        const std::string name = StreamCompressionName(*c);
        std::string upper = name;
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        return bad("the file starts as a " + name + " stream: read it with compression '" + name +
                   "' (TFRecordDataset's compression_type='" + upper + "')");
      }
      return bad("the length's checksum does not match (not a TFRecord file, or damaged)");
    }
    if (len > size - off - kHeader || size - off - kHeader - len < kFooter) {
      return bad("truncated: a record of " + std::to_string(len) + " bytes runs past the end of the file (" +
                 std::to_string(size) + " bytes)");
    }
    if (!rows->Add(off, kHeader + len + kFooter)) return rows->Full(file.path(), "records");
    off += kHeader + len + kFooter;
  }
  return Status::OK();
}

// Windows of the access points a source keeps for its compressed files, in
// all: a file's share (at most 1,024 points, 32 MiB) sets how far its span
// grows from 64 KiB.
constexpr uint64_t kInflateIndexBudget = uint64_t{64} << 20;

InflateScanOptions IndexOptions(size_t files) {
  InflateScanOptions o;
  const uint64_t points = kInflateIndexBudget / (32 << 10) / std::max<size_t>(files, 1);
  o.max_points = static_cast<size_t>(std::clamp<uint64_t>(points, 2, 1024));
  return o;
}

// The scan of `files.size()` files compressed as `c`, and its ScanRows key.
std::string TfRecordScanKey(StreamCompression c, size_t files) {
  if (c == StreamCompression::kNone) return "tfrecord";
  return std::string("tfrecord:") + StreamCompressionName(c) + ":" + std::to_string(IndexOptions(files).max_points);
}
ScanFn TfRecordScan(StreamCompression c, size_t files) {
  if (c == StreamCompression::kNone) return ScanTfRecords;
  const InflateScanOptions o = IndexOptions(files);
  return [c, o](const RandomAccessFile& f, FileRows* rows) -> Status {
    TfRecordFramer framer(f.path(), [rows, &f](uint64_t start, uint64_t n) {
      return rows->Add(start, n) ? Status::OK() : rows->Full(f.path(), "records");
    });
    MR_ASSIGN_OR_RETURN(rows->inflate, InflateScan(f, c, [&](const char* p, size_t n) { return framer.Feed(p, n); }, o));
    return framer.Finish();
  };
}

// A scanned record (header, data, footer) as an Example: Corruption saying
// why when its data checksum fails or the data is no Example.
Status ParseRecord(const std::string& rec, tf::Example* ex) {
  const size_t len = rec.size() - kHeader - kFooter;
  const char* data = rec.data() + kHeader;
  if (!TfRecordCrcMatches(data, len)) return Status::Corruption("the data's checksum does not match (damaged)");
  ex->Clear();
  if (len > static_cast<size_t>(INT32_MAX) || !ex->ParseFromArray(data, static_cast<int>(len))) {
    return Status::Corruption("the data is not a tf.train.Example");
  }
  return Status::OK();
}

// A column's element type.
enum class ColType : uint8_t { kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat32, kString };

struct FeatureColumn {
  ColType type = ColType::kUInt8;
  bool has_shape = false;
  std::vector<int64_t> shape;  // dims; at most one -1
};

Result<ColType> ParseColType(const std::string& s) {
  static const std::map<std::string, ColType> kTypes = {
      {"uint8", ColType::kUInt8}, {"int8", ColType::kInt8},       {"int16", ColType::kInt16},
      {"int32", ColType::kInt32}, {"int64", ColType::kInt64},     {"float32", ColType::kFloat32},
      {"string", ColType::kString}};
  auto it = kTypes.find(s);
  if (it == kTypes.end()) {
    return Status::InvalidArgument("a 'tfrecord' source's column type is one of uint8, int8, int16, int32, int64, "
                                   "float32, string; got '" + s + "'");
  }
  return it->second;
}

TensorType ToTensorType(ColType t) {
  switch (t) {
    case ColType::kUInt8: return TensorType::kUInt8;
    case ColType::kInt8: return TensorType::kInt8;
    case ColType::kInt16: return TensorType::kInt16;
    case ColType::kInt32: return TensorType::kInt32;
    case ColType::kInt64: return TensorType::kInt64;
    case ColType::kFloat32: return TensorType::kFloat32;
    case ColType::kString: return TensorType::kString;
  }
  return TensorType::kUInt8;
}

// The shape `n` elements take in column `c`.
Result<Shape> ShapeOf(const FeatureColumn& c, int64_t n) {
  if (!c.has_shape) return Shape{n};
  std::vector<int64_t> dims = c.shape;
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      unknown = static_cast<int>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || n % known != 0) {
      return Status::InvalidArgument(std::to_string(n) + " element(s) do not fill shape " +
                                     nlohmann::json(c.shape).dump());
    }
    dims[static_cast<size_t>(unknown)] = n / known;
  } else if (known != n) {
    return Status::InvalidArgument(std::to_string(n) + " element(s), shape " + nlohmann::json(c.shape).dump() +
                                   " holds " + std::to_string(known));
  }
  return Shape(dims);
}

Result<Tensor> FeatureTensor(const tf::Feature& f, const FeatureColumn& c) {
  const char* kinds[] = {"no value", "bytes_list", "float_list", "int64_list"};
  auto wrong = [&](int kind, const char* want) {
    return Status::InvalidArgument(std::string("the feature is a ") + kinds[kind] + ", a column of this type needs " +
                                   want);
  };
  const int kind = f.has_bytes_list() ? 1 : f.has_float_list() ? 2 : f.has_int64_list() ? 3 : 0;
  switch (c.type) {
    case ColType::kString: {
      if (kind != 1) return wrong(kind, "a bytes_list");
      if (f.bytes_list().value_size() != 1) {
        return Status::InvalidArgument("a string column holds one value, the feature has " +
                                       std::to_string(f.bytes_list().value_size()));
      }
      if (c.has_shape && !c.shape.empty() && !(c.shape.size() == 1 && (c.shape[0] == 1 || c.shape[0] == -1))) {
        return Status::InvalidArgument("a string column's shape is [] or [1]");
      }
      const std::string& s = f.bytes_list().value(0);
      if (!IsUtf8(s)) return Status::InvalidArgument("the string column's value is not UTF-8 text");
      return Tensor::FromString(TensorType::kString, s);
    }
    case ColType::kUInt8:
    case ColType::kInt8:
      if (kind == 1) {
        const auto& list = f.bytes_list();
        int64_t pad = 0;
        for (const auto& v : list.value()) pad = std::max<int64_t>(pad, static_cast<int64_t>(v.size()));
        if (c.has_shape && c.shape.size() >= 2 && c.shape[0] == -1) {
          int64_t rest = 1;
          for (size_t i = 1; i < c.shape.size(); ++i) {
            if (c.shape[i] < 0) return Status::InvalidArgument("a shape holds at most one -1");
            rest *= c.shape[i];
          }
          if (rest < pad) {
            return Status::InvalidArgument("a value of " + std::to_string(pad) + " bytes does not fit shape " +
                                           nlohmann::json(c.shape).dump());
          }
          pad = rest;
        }
        // Padding multiplies a record's bytes: the tensor may not outgrow a row.
        if (pad > 0 && static_cast<uint64_t>(list.value_size()) > kMaxDecompressedRowBytes / static_cast<uint64_t>(pad)) {
          return Status::InvalidArgument(std::to_string(list.value_size()) + " values padded to " + std::to_string(pad) +
                                         " bytes each are more than a row may hold (" +
                                         std::to_string(kMaxDecompressedRowBytes) + " bytes)");
        }
        MR_ASSIGN_OR_RETURN(Shape shape, ShapeOf(c, pad * list.value_size()));
        Tensor t = Tensor::Make(ToTensorType(c.type), shape);
        uint8_t* out = t.MutableData();
        if (t.size_bytes() > 0) std::memset(out, 0, t.size_bytes());
        for (int i = 0; i < list.value_size(); ++i) {
          std::memcpy(out + i * pad, list.value(i).data(), list.value(i).size());
        }
        return t;
      }
      if (kind != 3) return wrong(kind, "a bytes_list or an int64_list");
      [[fallthrough]];
    case ColType::kInt16:
    case ColType::kInt32:
    case ColType::kInt64: {
      if (kind != 3) return wrong(kind, "an int64_list");
      const auto& list = f.int64_list();
      MR_ASSIGN_OR_RETURN(Shape shape, ShapeOf(c, list.value_size()));
      Tensor t = Tensor::Make(ToTensorType(c.type), shape);
      uint8_t* out = t.MutableData();
      for (int i = 0; i < list.value_size(); ++i) {
        const int64_t v = list.value(i);
        switch (c.type) {
          case ColType::kUInt8: out[i] = static_cast<uint8_t>(v); break;
          case ColType::kInt8: reinterpret_cast<int8_t*>(out)[i] = static_cast<int8_t>(v); break;
          case ColType::kInt16: reinterpret_cast<int16_t*>(out)[i] = static_cast<int16_t>(v); break;
          case ColType::kInt32: reinterpret_cast<int32_t*>(out)[i] = static_cast<int32_t>(v); break;
          default: reinterpret_cast<int64_t*>(out)[i] = v; break;
        }
      }
      return t;
    }
    case ColType::kFloat32: {
      if (kind != 2) return wrong(kind, "a float_list");
      const auto& list = f.float_list();
      MR_ASSIGN_OR_RETURN(Shape shape, ShapeOf(c, list.value_size()));
      Tensor t = Tensor::Make(TensorType::kFloat32, shape);
      if (list.value_size() > 0) std::memcpy(t.MutableData(), list.value().data(), t.size_bytes());
      return t;
    }
  }
  return Status::Internal("unknown column type");
}

class TfRecordSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(std::vector<std::string> files, std::vector<std::string> names,
                                              std::vector<FeatureColumn> cols, StreamCompression c) {
    const size_t n = files.size();
    std::unique_ptr<TfRecordSource> s(new TfRecordSource(std::move(files), std::move(names)));
    s->cols_ = std::move(cols);
    MR_RETURN_IF_ERROR(s->Scan(TfRecordScanKey(c, n), TfRecordScan(c, n)));
    return std::unique_ptr<Source>(std::move(s));
  }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    tf::Example ex;
    return ReadEach(ids, fn, [&](uint64_t id, std::vector<Tensor>* cols) { return Row(id, &ex, cols); });
  }

 private:
  TfRecordSource(std::vector<std::string> files, std::vector<std::string> names)
      : FileRowsSource(std::move(files), "record", std::move(names)) {}

  Status Row(uint64_t id, tf::Example* ex, std::vector<Tensor>* cols) const {
    MR_ASSIGN_OR_RETURN(std::string rec, RowBytes(id));
    if (rec.size() < kHeader + kFooter) return Status::Internal(Where(id) + ": shorter than its framing");
    Status st = ParseRecord(rec, ex);
    if (!st.ok()) return Status::Corruption(Where(id) + ": " + st.message());
    const auto& features = ex->features().feature();
    for (size_t c = 0; c < cols_.size(); ++c) {
      auto it = features.find(columns()[c]);
      if (it == features.end()) {
        return Status::InvalidArgument(Where(id) + ": the Example has no feature '" + columns()[c] + "'");
      }
      auto t = FeatureTensor(it->second, cols_[c]);
      if (!t.ok()) {
        return Status(t.status().code(), Where(id) + ", column '" + columns()[c] + "': " + t.status().message());
      }
      cols->push_back(std::move(t).value());
    }
    return Status::OK();
  }

  std::vector<FeatureColumn> cols_;
};

}  // namespace

Result<std::vector<uint64_t>> CountTfRecords(const std::vector<std::string>& files, StreamCompression c) {
  MR_ASSIGN_OR_RETURN(auto scans, ScanSourceFiles(files, TfRecordScanKey(c, files.size()), TfRecordScan(c, files.size())));
  std::vector<uint64_t> out;
  for (const auto& rows : scans) out.push_back(rows->start.size());
  return out;
}

namespace {

// The first record of `file` (header, data, footer); Corruption naming the
// file when it has none.
Result<std::string> FirstRecord(const std::string& file, StreamCompression c) {
  const auto none = [&] { return Status::Corruption(file + ": holds no record to take the columns from"); };
  const auto too_long = [&] { return Status::InvalidArgument(file + ": its first record is too long"); };
  if (c == StreamCompression::kNone) {
    MR_ASSIGN_OR_RETURN(const uint64_t limit, MaxIndexedRows());
    MR_ASSIGN_OR_RETURN(auto rows, ScanRows(file, TfRecordScanKey(c, 1), TfRecordScan(c, 1), 0, limit));
    if (rows->start.empty()) return none();
    MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(file));
    const uint64_t n = rows->length[0];
    if (n > kMaxDecompressedRowBytes) return too_long();
    std::string rec(n, '\0');
    MR_RETURN_IF_ERROR(f->ReadAt(rows->start[0], n, rec.data()));
    return rec;
  }
  // Inflated only as far as the first record's end.
  MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(file));
  std::string rec;
  uint64_t need = kHeader;
  bool sized = false;
  const Status st = InflateScan(*f, c, [&](const char* p, size_t n) -> Status {
                      while (n > 0 && rec.size() < need) {
                        const size_t m = static_cast<size_t>(std::min<uint64_t>(n, need - rec.size()));
                        rec.append(p, m);
                        p += m;
                        n -= m;
                        if (!sized && rec.size() == kHeader) {
                          uint64_t len;
                          std::memcpy(&len, rec.data(), 8);
                          if (!TfRecordCrcMatches(rec.data(), 8)) {
                            return Status::Corruption(file + ": record 0 at byte 0 of the decompressed stream: the "
                                                      "length's checksum does not match (not a TFRecord file, or damaged)");
                          }
                          if (len > kMaxDecompressedRowBytes) return too_long();
                          need = kHeader + len + kFooter;
                          sized = true;
                        }
                      }
                      return sized && rec.size() == need ? Status::Cancelled("read") : Status::OK();
                    }).status();
  if (st.code() == StatusCode::kCancelled) return rec;
  MR_RETURN_IF_ERROR(st);
  if (rec.empty()) return none();
  return Status::Corruption(file + ": record 0 at byte 0 of the decompressed stream: truncated");
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> TfRecordColumns(const std::string& file, StreamCompression c) {
  MR_ASSIGN_OR_RETURN(std::string rec, FirstRecord(file, c));
  tf::Example ex;
  if (!ParseRecord(rec, &ex).ok()) {
    return Status::Corruption(file + ": record 0 at byte 0: damaged, or not a tf.train.Example");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, feature] : ex.features().feature()) {
    const char* type = feature.has_bytes_list()   ? "uint8"
                       : feature.has_float_list() ? "float32"
                       : feature.has_int64_list() ? "int64"
                                                  : nullptr;
    if (type == nullptr) {
      return Status::Corruption(file + ": record 0's feature '" + name + "' holds no bytes_list, float_list or "
                                "int64_list");
    }
    out.emplace_back(name, type);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::unique_ptr<Source>> OpenTfRecordSource(const nlohmann::json& node) {
  const auto args = node.value("args", nlohmann::json::object());
  const auto bad = [](const std::string& m) { return Status::InvalidArgument("a 'tfrecord' source: " + m); };
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(args, "tfrecord"));
  auto names = node.at("columns").get<std::vector<std::string>>();
  if (!args.contains("types") || !args["types"].is_array() || args["types"].size() != names.size()) {
    return bad("args.types must name one type per column");
  }
  if (!args.contains("shapes") || !args["shapes"].is_array() || args["shapes"].size() != names.size()) {
    return bad("args.shapes must give one shape (or null) per column");
  }
  std::vector<FeatureColumn> cols(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (!args["types"][i].is_string()) return bad("args.types must hold type names");
    MR_ASSIGN_OR_RETURN(cols[i].type, ParseColType(args["types"][i].get<std::string>()));
    const auto& s = args["shapes"][i];
    if (s.is_null()) continue;
    if (!s.is_array() || s.size() > 5) return bad("a shape is null or a list of at most 5 dimensions");
    int unknown = 0;
    uint64_t known = 1;  // bounded by a row's bytes, so products of dimensions do not overflow
    for (const auto& d : s) {
      if (!d.is_number_integer() || d.get<int64_t>() < -1) {
        return bad("column '" + names[i] + "': a dimension is -1 or a size, got " + d.dump());
      }
      const int64_t v = d.get<int64_t>();
      unknown += v == -1;
      if (v >= 0) {
        if (v > 0 && known > kMaxDecompressedRowBytes / static_cast<uint64_t>(v)) {
          return bad("column '" + names[i] + "': shape " + s.dump() + " holds more elements than a row may");
        }
        known *= static_cast<uint64_t>(v);
      }
      cols[i].shape.push_back(v);
    }
    if (unknown > 1) return bad("column '" + names[i] + "': a shape holds at most one -1");
    cols[i].has_shape = true;
  }
  StreamCompression compression = StreamCompression::kNone;
  if (args.contains("compression")) {
    if (!args["compression"].is_string()) return bad("args.compression must be '', 'gzip' or 'zlib'");
    MR_ASSIGN_OR_RETURN(compression, ParseStreamCompression(args["compression"].get<std::string>()));
  }
  MR_ASSIGN_OR_RETURN(auto src,
                      TfRecordSource::Open(std::move(files), std::move(names), std::move(cols), compression));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the TFRecord files hold " + std::to_string(src->num_rows()) + " records now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
