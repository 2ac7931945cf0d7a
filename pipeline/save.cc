#include "pipeline/save.h"

#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <map>
#include <memory>

#include "pipeline/async_rows_writer.h"
#include "pipeline/pipeline.h"

namespace mindrecord {

namespace {

// How one column becomes one field.
enum class Conversion : uint8_t {
  kSame,     // numbers of the field's own type
  kToInt32,  // int8 / int16 / bool / a uint8 scalar, widened
  kBytes,    // a uint8 array's bytes or a bytes value
  kString,
};

struct ColumnRule {
  std::string column;  // the pipeline's name
  Field field;
  TensorType type = TensorType::kUInt8;
  Conversion conversion = Conversion::kSame;
  bool scalar = true;
  Shape shape;  // the first row's shape (arrays: dims after the first must match it)
};

std::string SavedShapeText(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string FieldName(const std::string& column) {
  std::string out = column;
  for (char& c : out)
    if (std::ispunct(static_cast<unsigned char>(c))) c = '_';
  return out;
}

Result<ColumnRule> RuleFor(const std::string& column, const Tensor& t) {
  ColumnRule r;
  r.column = column;
  r.field.name = FieldName(column);
  r.type = t.type();
  r.shape = t.shape();
  const std::string what = "Dataset.save: column '" + column + "'";
  switch (t.type()) {
    case TensorType::kBytes:
      r.field.type = DataType::kBytes;  // a batch of bytes values too (as a uint8 array)
      r.conversion = Conversion::kBytes;
      r.scalar = false;
      return r;
    case TensorType::kString:
      if (t.shape().size() != 1) {
        return Status::InvalidArgument(what + ": a multi-dimensional string " + SavedShapeText(t.shape()) +
                                       " has no MindRecord field type (MindSpore's rule too)");
      }
      r.field.type = DataType::kString;
      r.conversion = Conversion::kString;
      return r;
    case TensorType::kStrings:
      return Status::InvalidArgument(what + ": an array of strings " + SavedShapeText(t.shape()) +
                                     " has no MindRecord field type (MindSpore's rule too)");
    default:
      break;
  }
  r.scalar = t.shape().empty();
  switch (t.type()) {
    case TensorType::kUInt8:
      if (r.scalar) {
        r.field.type = DataType::kInt32;
        r.conversion = Conversion::kToInt32;
      } else {
        r.field.type = DataType::kBytes;  // the array's bytes, its shape dropped (MindSpore's rule)
        r.conversion = Conversion::kBytes;
      }
      return r;
    case TensorType::kInt8:
    case TensorType::kInt16:
    case TensorType::kBool:
      r.field.type = DataType::kInt32;
      r.conversion = Conversion::kToInt32;
      break;
    case TensorType::kInt32: r.field.type = DataType::kInt32; break;
    case TensorType::kInt64: r.field.type = DataType::kInt64; break;
    case TensorType::kFloat32: r.field.type = DataType::kFloat32; break;
    case TensorType::kFloat64: r.field.type = DataType::kFloat64; break;
    case TensorType::kBytes:
    case TensorType::kString:
    case TensorType::kStrings: break;  // handled above
  }
  if (!r.scalar) {
    r.field.has_shape = true;
    r.field.shape.assign(r.shape.begin(), r.shape.end());
    r.field.shape[0] = -1;
    for (size_t d = 1; d < r.shape.size(); ++d) {
      if (r.shape[d] <= 0) {
        return Status::InvalidArgument(what + ": shape " + SavedShapeText(r.shape) +
                                       " has an empty dimension after the first; a MindRecord array field cannot");
      }
    }
  }
  return r;
}

template <typename T>
T Element(const uint8_t* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

int64_t IntElement(TensorType type, const uint8_t* p, size_t i) {
  switch (type) {
    case TensorType::kUInt8:
    case TensorType::kBytes: return p[i];
    case TensorType::kBool: return p[i] != 0;
    case TensorType::kInt8: return Element<int8_t>(p, i);
    case TensorType::kInt16: return Element<int16_t>(p, i);
    case TensorType::kInt32: return Element<int32_t>(p, i);
    default: return Element<int64_t>(p, i);
  }
}

// `t` as the value of rule `r`'s field; `where()` names the row (made only
// for an error: this runs for every value).
template <typename Where>
Result<Value> ValueFor(const ColumnRule& r, const Tensor& t, const Where& where) {
  const auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("Dataset.save: " + where() + ", column '" + r.column + "': " + why);
  };
  if (t.type() != r.type) {
    return bad(std::string("type ") + TensorTypeName(t.type()) + " where the first row has " +
               TensorTypeName(r.type) + " (the schema is taken from the first row)");
  }
  const std::string_view bytes(reinterpret_cast<const char*>(t.data()), t.size_bytes());
  if (r.conversion == Conversion::kString) {
    if (t.shape().size() == 1) return Value::String(std::string(bytes));
  } else if (r.conversion == Conversion::kBytes) {
    if (!t.shape().empty()) return Value::Bytes(std::string(bytes));
  } else {
    bool agrees = r.scalar ? t.shape().empty() : t.shape().size() == r.shape.size();
    for (size_t d = 1; agrees && d < r.shape.size(); ++d) agrees = t.shape()[d] == r.shape[d];
    if (agrees && r.scalar) {
      switch (r.field.type) {
        case DataType::kFloat32: return Value::Float(Element<float>(t.data(), 0));
        case DataType::kFloat64: return Value::Float(Element<double>(t.data(), 0));
        default: return Value::Int(IntElement(t.type(), t.data(), 0));
      }
    }
    if (agrees) {
      std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
      if (r.conversion == Conversion::kSame) return Value::Array(r.field.type, std::move(shape), std::string(bytes));
      const size_t n = static_cast<size_t>(t.num_elements());
      std::string data(n * sizeof(int32_t), '\0');
      for (size_t i = 0; i < n; ++i) {
        const int32_t v = static_cast<int32_t>(IntElement(t.type(), t.data(), i));
        std::memcpy(data.data() + i * sizeof(int32_t), &v, sizeof(v));
      }
      return Value::Array(DataType::kInt32, std::move(shape), std::move(data));
    }
  }
  std::string expected = r.scalar ? "[] (a scalar)" : SavedShapeText(r.shape);
  if (r.conversion == Conversion::kBytes) expected += " (any shape but a scalar)";
  else if (r.conversion == Conversion::kString) expected = "one string";
  else if (!r.scalar) expected += " (any first dimension)";
  return bad("shape " + SavedShapeText(t.shape()) + " where the first row has " + expected +
             " (the schema is taken from the first row)");
}

nlohmann::json UserSchema(const std::vector<ColumnRule>& rules) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& r : rules) {
    nlohmann::json f = {{"type", DataTypeName(r.field.type)}};
    if (r.field.has_shape) f["shape"] = r.field.shape;
    j[r.field.name] = f;
  }
  return j;
}

// Rows of this many values' bytes (or rows) go to the writer at once.
constexpr uint64_t kFlushBytes = 16ull << 20;
constexpr size_t kFlushRows = 1024;
// Rows converted ahead of the writer's thread, at most.
constexpr uint64_t kQueuedBytes = 32ull << 20;

}  // namespace

Result<SaveResult> SavePlan(const Plan& plan, const std::string& path, const SaveOptions& options) {
  struct stat st{};
  if (path.empty()) return Status::InvalidArgument("Dataset.save: the file name is empty");
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("Dataset.save: " + path + " is a directory; give the path of the file to write");
  }
  MR_ASSIGN_OR_RETURN(auto pipe, Pipeline::Open(plan));
  SaveResult result;
  std::vector<ColumnRule> rules;
  std::unique_ptr<ShardWriter> writer;
  std::unique_ptr<AsyncRowsWriter> async;  // destroyed before the writer
  std::vector<Row> pending;
  uint64_t pending_bytes = 0;
  const auto flush = [&]() -> Status {
    if (pending.empty()) return Status::OK();
    MR_RETURN_IF_ERROR(async->Write(std::move(pending), pending_bytes));
    pending = {};
    pending.reserve(kFlushRows);
    pending_bytes = 0;
    return Status::OK();
  };
  Batch b;
  uint64_t batches = 0;
  std::vector<Tensor> cells;
  for (;;) {
    MR_ASSIGN_OR_RETURN(bool more, pipe->Next(&b));
    if (!more) break;
    const size_t rows = options.batched ? 1 : b.size();
    for (size_t i = 0; i < rows; ++i) {
      const auto where = [&] {
        return options.batched ? "batch " + std::to_string(batches)
                               : "row " + std::to_string(result.rows) + " (row id " + std::to_string(b.row_ids[i]) + ")";
      };
      cells.clear();
      for (const auto& col : b.columns) {
        if (!options.batched) {
          cells.push_back(col.is_list() ? col.list[i] : col.data.Subtensor(static_cast<int64_t>(i)));
        } else if (col.is_list()) {
          return Status::InvalidArgument("Dataset.save: " + where() + ", column '" + col.name +
                                         "': its rows differ in shape, so the batch is no one array (pad it with "
                                         "pad_info, or save before batch())");
        } else {
          cells.push_back(col.data);
        }
      }
      if (!writer) {
        std::map<std::string, std::string> names;  // field -> column
        std::vector<Field> fields;
        for (size_t c = 0; c < cells.size(); ++c) {
          MR_ASSIGN_OR_RETURN(ColumnRule r, RuleFor(b.columns[c].name, cells[c]));
          auto [it, fresh] = names.emplace(r.field.name, r.column);
          if (!fresh) {
            return Status::InvalidArgument("Dataset.save: columns '" + it->second + "' and '" + r.column +
                                           "' both become field '" + r.field.name +
                                           "' (punctuation becomes '_'); rename one");
          }
          fields.push_back(r.field);
          rules.push_back(std::move(r));
        }
        auto schema = Schema::Make(std::move(fields));
        if (!schema.ok()) return schema.status().WithContext("Dataset.save");
        result.schema = UserSchema(rules);
        MR_ASSIGN_OR_RETURN(writer, ShardWriter::Create(path, *schema, options.writer));
        async = std::make_unique<AsyncRowsWriter>(writer.get(), kQueuedBytes);
      }
      Row row;
      for (size_t c = 0; c < cells.size(); ++c) {
        MR_ASSIGN_OR_RETURN(Value v, ValueFor(rules[c], cells[c], where));
        pending_bytes += v.bytes().size() + 8;
        row.Set(rules[c].field.name, std::move(v));
      }
      pending.push_back(std::move(row));
      ++result.rows;
      if (pending.size() >= kFlushRows || pending_bytes >= kFlushBytes) MR_RETURN_IF_ERROR(flush());
    }
    ++batches;
  }
  if (!writer) {
    return Status::InvalidArgument("Dataset.save: the dataset has no rows, so there is no schema to write " + path +
                                   " with");
  }
  MR_RETURN_IF_ERROR(flush());
  MR_RETURN_IF_ERROR(async->Finish());
  async.reset();
  MR_RETURN_IF_ERROR(writer->Commit());
  result.files = ShardFileNames(path, options.writer.shard_count, options.writer.pad_shard_suffix);
  return result;
}

}  // namespace mindrecord
