#include "pipeline/nodes/mat_file.h"

#include <matio.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "mindrecord/file.h"

namespace mindrecord {

namespace {

void QuietMatioLog(int, char*) {}

struct MatCloser {
  void operator()(mat_t* m) const { Mat_Close(m); }
};
struct MatVarFreer {
  void operator()(matvar_t* v) const { Mat_VarFree(v); }
};

template <typename T>
void AppendValues(const void* data, size_t n, std::vector<double>* out) {
  const auto* p = static_cast<const T*>(data);
  for (size_t i = 0; i < n; ++i) out->push_back(static_cast<double>(p[i]));
}

bool NumericClassId(int cls) {
  switch (cls) {
    case MAT_C_DOUBLE: case MAT_C_SINGLE: case MAT_C_INT8: case MAT_C_UINT8: case MAT_C_INT16: case MAT_C_UINT16:
    case MAT_C_INT32: case MAT_C_UINT32: case MAT_C_INT64: case MAT_C_UINT64:
      return true;
    default:
      return false;
  }
}

bool NumericClass(const matvar_t* v) { return NumericClassId(v->class_type); }

// Appends the n values of a dense numeric variable's data.
Status DenseValues(const matvar_t* v, size_t n, std::vector<double>* out, const std::string& where) {
  if (n > 0 && (v->data == nullptr || v->nbytes < n * Mat_SizeOfClass(v->class_type)))
    return Status::Corruption(where + ": its data is shorter than its dimensions");
  switch (v->class_type) {
    case MAT_C_DOUBLE: AppendValues<double>(v->data, n, out); break;
    case MAT_C_SINGLE: AppendValues<float>(v->data, n, out); break;
    case MAT_C_INT8: AppendValues<int8_t>(v->data, n, out); break;
    case MAT_C_UINT8: AppendValues<uint8_t>(v->data, n, out); break;
    case MAT_C_INT16: AppendValues<int16_t>(v->data, n, out); break;
    case MAT_C_UINT16: AppendValues<uint16_t>(v->data, n, out); break;
    case MAT_C_INT32: AppendValues<int32_t>(v->data, n, out); break;
    case MAT_C_UINT32: AppendValues<uint32_t>(v->data, n, out); break;
    case MAT_C_INT64: AppendValues<int64_t>(v->data, n, out); break;
    case MAT_C_UINT64: AppendValues<uint64_t>(v->data, n, out); break;
    default: return Status::Corruption(where + " is not a real numeric array");
  }
  return Status::OK();
}

// A dense or sparse real 2-D (or dense N-D) variable as a MatArray.
Result<MatArray> ArrayOf(const matvar_t* v, uint64_t* budget, const std::string& where) {
  if (v == nullptr) return Status::Corruption(where + " is missing");
  if (v->isComplex) return Status::Corruption(where + " is complex");
  MatArray a;
  uint64_t n = 1;
  for (int d = 0; d < v->rank; ++d) {
    const uint64_t k = v->dims[d];
    if (k != 0 && n > *budget / k) return Status::Corruption(where + " holds more values than a row may");
    n *= k;
    a.dims.push_back(static_cast<int64_t>(k));
  }
  *budget -= n;
  if (v->class_type == MAT_C_SPARSE) {
    const auto* sp = static_cast<const mat_sparse_t*>(v->data);
    if (v->rank != 2 || sp == nullptr) return Status::Corruption(where + " is a malformed sparse matrix");
    const uint64_t rows = v->dims[0], cols = v->dims[1];
    if (sp->njc != cols + 1 || sp->jc == nullptr || (sp->nir > 0 && sp->ir == nullptr))
      return Status::Corruption(where + " is a malformed sparse matrix");
    a.values.assign(static_cast<size_t>(n), 0.0);
    const bool logical = v->isLogical || v->data_type == MAT_T_UINT8 || sp->data == nullptr;
    for (uint64_t j = 0; j < cols; ++j) {
      const uint32_t from = sp->jc[j], to = sp->jc[j + 1];
      if (from > to || to > sp->nir || (!logical && to > sp->ndata))
        return Status::Corruption(where + " is a malformed sparse matrix");
      for (uint32_t k = from; k < to; ++k) {
        if (sp->ir[k] >= rows) return Status::Corruption(where + " is a malformed sparse matrix");
        double value = 1;
        if (!logical && v->data_type == MAT_T_DOUBLE) value = static_cast<const double*>(sp->data)[k];
        a.values[static_cast<size_t>(j * rows + sp->ir[k])] = value;
      }
    }
    return a;
  }
  if (!NumericClass(v)) return Status::Corruption(where + " is not a numeric array");
  MR_RETURN_IF_ERROR(DenseValues(v, static_cast<size_t>(n), &a.values, where));
  return a;
}


// libmatio sizes its allocations by what a file declares (dimensions,
// field counts, element lengths) before it reads the data. Every variable's
// header is checked first (a rank of at most 32, a name of at most 64
// bytes), and the variable to be read is walked whole: each sub-element
// within its parent, arrays' data as long as their dimensions say, at most
// `max_values` elements counted over the whole tree.
constexpr uint32_t kMiInt8 = 1, kMiInt32 = 5, kMiUint32 = 6, kMiMatrix = 14, kMiCompressed = 15;

// A data element at `pos` of `b` (whole within [pos, end)): its type, data
// and the position after it (padded to 8 bytes; small elements: 8 bytes).
struct MatElement {
  uint32_t type = 0;
  size_t data = 0, bytes = 0, next = 0;
};

bool NextElement(const std::string& b, size_t pos, size_t end, MatElement* e) {
  if (end > b.size() || pos + 8 > end) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  uint32_t type = MatLe32(p + pos);
  if (type >> 16) {
    e->bytes = type >> 16;
    e->type = type & 0xffff;
    e->data = pos + 4;
    e->next = pos + 8;
    return e->bytes <= 4;
  }
  e->type = type;
  e->bytes = MatLe32(p + pos + 4);
  e->data = pos + 8;
  if (e->bytes > end - e->data) return false;
  e->next = e->data + (e->bytes + 7) / 8 * 8;
  if (e->next > end) e->next = end;  // the last element of a variable may be unpadded
  return true;
}

// Checks the miMATRIX element at `pos`; `values` counts elements declared.
bool CheckMatrix(const std::string& b, size_t pos, size_t end, uint64_t max_values, uint64_t* values, int depth) {
  MatElement m, flags, dims, name;
  if (depth > 8 || !NextElement(b, pos, end, &m) || m.type != kMiMatrix) return false;
  if (m.bytes == 0) return true;  // an empty cell or field
  const size_t mend = m.data + m.bytes;
  if (!NextElement(b, m.data, mend, &flags) || flags.type != kMiUint32 || flags.bytes != 8) return false;
  if (!NextElement(b, flags.next, mend, &dims) || dims.type != kMiInt32 || dims.bytes % 4 || dims.bytes == 0 ||
      dims.bytes > 4 * 32)
    return false;
  if (!NextElement(b, dims.next, mend, &name) || name.type != kMiInt8 || name.bytes > 64) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  uint64_t count = 1;
  for (size_t d = 0; d < dims.bytes / 4; ++d) {
    const auto n = static_cast<int32_t>(MatLe32(p + dims.data + 4 * d));
    if (n < 0 || (n != 0 && count > max_values / static_cast<uint64_t>(n))) return false;
    count *= static_cast<uint64_t>(n);
  }
  const uint8_t cls = p[flags.data];
  const bool complex = p[flags.data + 1] & 0x08;
  size_t at = name.next;
  if (cls == MAT_C_CELL || cls == MAT_C_STRUCT) {
    uint64_t children = count;
    if (cls == MAT_C_STRUCT) {
      MatElement len, names;
      if (!NextElement(b, at, mend, &len) || len.type != kMiInt32 || len.bytes != 4) return false;
      const uint32_t field_len = MatLe32(p + len.data);
      if (!NextElement(b, len.next, mend, &names) || names.type != kMiInt8 || field_len == 0 || field_len > 64 ||
          names.bytes % field_len != 0)
        return false;
      const uint64_t fields = names.bytes / field_len;
      if (fields != 0 && children > max_values / fields) return false;
      children *= fields;
      at = names.next;
    }
    if (children > max_values - std::min(*values, max_values)) return false;
    *values += children;
    for (uint64_t k = 0; k < children; ++k) {
      MatElement child;
      if (!NextElement(b, at, mend, &child) || !CheckMatrix(b, at, mend, max_values, values, depth + 1)) return false;
      at = child.next;
    }
    return true;
  }
  if (count > max_values - std::min(*values, max_values)) return false;
  *values += count;
  if (cls == MAT_C_SPARSE) {
    // libmatio reads ir and jc as 32-bit whatever their tags say, and sizes
    // the values by jc's last entry: both must be what MATLAB writes (32-bit
    // integers, jc one longer than the columns, rising from 0 to at most the
    // number of row indices), and nzmax within the budget.
    MatElement ir, jc, pr;
    const auto int32s = [](const MatElement& e) { return (e.type == kMiInt32 || e.type == kMiUint32) && e.bytes % 4 == 0; };
    if (dims.bytes != 8 || MatLe32(p + flags.data + 4) > max_values || !NextElement(b, at, mend, &ir) ||
        !NextElement(b, ir.next, mend, &jc) || !int32s(ir) || !int32s(jc))
      return false;
    const uint64_t cols = MatLe32(p + dims.data + 4), entries = ir.bytes / 4;
    if (jc.bytes / 4 != cols + 1) return false;
    uint32_t prev = 0;
    for (uint64_t k = 0; k <= cols; ++k) {
      const uint32_t v = MatLe32(p + jc.data + 4 * k);
      if ((k == 0 && v != 0) || v < prev || v > entries) return false;
      prev = v;
    }
    return jc.next >= mend || NextElement(b, jc.next, mend, &pr);
  }
  if (!NumericClassId(cls) && cls != MAT_C_CHAR) return false;
  MatElement real;
  if (!NextElement(b, at, mend, &real)) return false;
  if (complex) {
    MatElement imag;
    if (!NextElement(b, real.next, mend, &imag)) return false;
  }
  return real.bytes <= 8 * count;
}

// Checks the file's variables before libmatio reads `name` from it.
Status CheckMatFile(const std::string& path, const std::string& name, uint64_t max_values) {
  MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(path, false));
  if (file->size() < 128) return Status::Corruption(path + ": not a MATLAB .mat file");
  std::string head(128, '\0');
  MR_RETURN_IF_ERROR(file->ReadAt(0, 128, head.data()));
  if (head[126] != 'I' || head[127] != 'M')
    return Status::Corruption(path + ": not a little-endian MATLAB 5 .mat file (MATLAB 7.3 / HDF5 files are not read)");
  const uint64_t kMaxElementBytes = uint64_t{1} << 30;
  uint64_t offset = 128;
  bool found = false;
  while (offset + 8 <= file->size()) {
    unsigned char tag[8];
    MR_RETURN_IF_ERROR(file->ReadAt(offset, 8, reinterpret_cast<char*>(tag)));
    const uint32_t type = MatLe32(tag);
    const uint64_t bytes = MatLe32(tag + 4);
    const std::string where = path + ": the variable at byte " + std::to_string(offset);
    if (bytes > file->size() - offset - 8) return Status::Corruption(where + " runs past the end of the file");
    if (type != kMiCompressed && type != kMiMatrix) return Status::Corruption(where + " is not a MATLAB array");
    // The element's header first (its first kilobytes, inflated when
    // compressed), the whole element only for the variable asked for.
    auto element_bytes = [&](bool whole) -> Result<std::string> {
      const uint64_t n = whole ? bytes : std::min<uint64_t>(bytes, 64 << 10);
      if (n > kMaxElementBytes) return Status::Corruption(where + " is larger than 1 GiB");
      std::string raw(static_cast<size_t>(n), '\0');
      MR_RETURN_IF_ERROR(file->ReadAt(offset + 8, raw.size(), raw.data()));
      if (type == kMiMatrix) return std::string(reinterpret_cast<const char*>(tag), 8) + raw;
      return InflateMatElement(raw, whole ? static_cast<size_t>(kMaxElementBytes) : 4096, where, !whole);
    };
    MR_ASSIGN_OR_RETURN(std::string element, element_bytes(false));
    MR_ASSIGN_OR_RETURN(MatArrayHeader header, ParseMatArrayHeader(element, where));
    if (header.name == name) {
      MR_ASSIGN_OR_RETURN(element, element_bytes(true));
      uint64_t values = 0;
      if (!CheckMatrix(element, 0, element.size(), max_values, &values, 0))
        return Status::Corruption(path + ": variable '" + name + "' is malformed or declares more than " +
                                  std::to_string(max_values) + " values");
      found = true;
    }
    offset += 8 + (type == kMiCompressed ? bytes : (bytes + 7) / 8 * 8);
  }
  if (!found) return Status::Corruption(path + ": variable '" + name + "' is missing");
  return Status::OK();
}

}  // namespace

uint32_t MatLe32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}


Result<std::string> InflateMatElement(const std::string& in, size_t cap, const std::string& where, bool prefix) {
  std::string out;
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Status::Internal("zlib: inflateInit failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > cap) {
      inflateEnd(&z);
      if (prefix) {
        out.resize(cap);
        return out;
      }
      return Status::Corruption(where + " inflates to more than " + std::to_string(cap) + " bytes");
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END && rc != Z_BUF_ERROR && !(prefix && rc == Z_DATA_ERROR && !out.empty()))
    return Status::Corruption(where + " does not inflate");
  return out;
}


Result<MatArrayHeader> ParseMatArrayHeader(const std::string& b, const std::string& where) {
  MatElement flags, dims, name;
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  if (b.size() < 8 || MatLe32(p) != kMiMatrix) return Status::Corruption(where + ": not a MATLAB array element");
  const size_t end = b.size();
  if (!NextElement(b, 8, end, &flags) || flags.type != kMiUint32 || flags.bytes != 8 ||
      !NextElement(b, flags.next, end, &dims) || dims.type != kMiInt32 || dims.bytes % 4 || dims.bytes == 0 ||
      dims.bytes > 4 * 32 || !NextElement(b, dims.next, end, &name) || name.type != kMiInt8 || name.bytes > 64)
    return Status::Corruption(where + ": its header is malformed");
  MatArrayHeader h;
  h.cls = p[flags.data];
  h.complex = (p[flags.data + 1] & 0x08) != 0;
  for (size_t d = 0; d < dims.bytes / 4; ++d) {
    const auto v = static_cast<int32_t>(MatLe32(p + dims.data + 4 * d));
    if (v < 0) return Status::Corruption(where + ": a negative dimension");
    h.dims.push_back(v);
  }
  h.name.assign(b.data() + name.data, name.bytes);
  // The real part's tag (its data may lie past the bytes given).
  if (name.next + 8 > end) return Status::Corruption(where + ": its header is cut short");
  uint32_t type = MatLe32(p + name.next);
  if (type >> 16) {
    h.data_type = type & 0xffff;
    h.data_bytes = type >> 16;
    h.data_offset = name.next + 4;
  } else {
    h.data_type = type;
    h.data_bytes = MatLe32(p + name.next + 4);
    h.data_offset = name.next + 8;
  }
  return h;
}

// `path` opened for reading variable `name` once its sizes are checked.
static Result<std::unique_ptr<mat_t, MatCloser>> OpenCheckedMat(const std::string& path, const std::string& name,
                                                                uint64_t max_values) {
  static std::once_flag quiet;
  std::call_once(quiet, [] { Mat_LogInitFunc("mindrecord", &QuietMatioLog); });
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::NotFound(path + " is missing");
  MR_RETURN_IF_ERROR(CheckMatFile(path, name, max_values));
  std::unique_ptr<mat_t, MatCloser> mat(Mat_Open(path.c_str(), MAT_ACC_RDONLY));
  if (!mat) return Status::Corruption(path + ": not a MATLAB .mat file");
  return mat;
}

Result<std::vector<MatArray>> ReadMatStructField(const std::string& path, const std::string& name,
                                                 const std::string& field, uint64_t max_values, uint64_t max_bytes) {
  MR_ASSIGN_OR_RETURN(auto mat, OpenCheckedMat(path, name, max_values));
  const std::string where = path + ": " + name + "." + field;
  {
    std::unique_ptr<matvar_t, MatVarFreer> info(Mat_VarReadInfo(mat.get(), name.c_str()));
    if (!info || info->class_type != MAT_C_STRUCT) return Status::Corruption(path + ": no struct variable '" + name + "'");
    if (Mat_VarGetSize(info.get()) > max_bytes)
      return Status::Corruption(path + ": variable '" + name + "' is larger than " + std::to_string(max_bytes) +
                                " bytes");
  }
  std::unique_ptr<matvar_t, MatVarFreer> var(Mat_VarRead(mat.get(), name.c_str()));
  if (!var || var->class_type != MAT_C_STRUCT) return Status::Corruption(path + ": struct '" + name + "' does not read");
  matvar_t* f = Mat_VarGetStructFieldByName(var.get(), field.c_str(), 0);
  if (f == nullptr) return Status::Corruption(where + " is missing");
  uint64_t budget = max_values;
  std::vector<MatArray> out;
  if (f->class_type == MAT_C_CELL) {
    uint64_t cells = 1;
    for (int d = 0; d < f->rank; ++d) cells *= f->dims[d];
    if (cells > 4096) return Status::Corruption(where + " has more than 4096 cells");
    for (uint64_t i = 0; i < cells; ++i) {
      MR_ASSIGN_OR_RETURN(MatArray a, ArrayOf(Mat_VarGetCell(f, static_cast<int>(i)), &budget,
                                              where + "{" + std::to_string(i + 1) + "}"));
      out.push_back(std::move(a));
    }
  } else {
    MR_ASSIGN_OR_RETURN(MatArray a, ArrayOf(f, &budget, where));
    out.push_back(std::move(a));
  }
  return out;
}

Result<MatArray> ReadMatArray(const std::string& path, const std::string& name, uint64_t max_values) {
  MR_ASSIGN_OR_RETURN(auto mat, OpenCheckedMat(path, name, max_values));
  const std::string where = path + ": variable '" + name + "'";
  std::unique_ptr<matvar_t, MatVarFreer> var(Mat_VarRead(mat.get(), name.c_str()));
  if (!var) return Status::Corruption(where + " is missing or unreadable");
  if (!NumericClass(var.get())) return Status::Corruption(where + " is not a real numeric array");
  uint64_t budget = max_values;
  return ArrayOf(var.get(), &budget, where);
}

}  // namespace mindrecord
