#include "pipeline/nodes/mat_file.h"

#include <matio.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

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

bool NumericClass(const matvar_t* v) {
  switch (v->class_type) {
    case MAT_C_DOUBLE: case MAT_C_SINGLE: case MAT_C_INT8: case MAT_C_UINT8: case MAT_C_INT16: case MAT_C_UINT16:
    case MAT_C_INT32: case MAT_C_UINT32: case MAT_C_INT64: case MAT_C_UINT64:
      return true;
    default:
      return false;
  }
}

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

}  // namespace

Result<std::vector<MatArray>> ReadMatStructField(const std::string& path, const std::string& name,
                                                 const std::string& field, uint64_t max_values, uint64_t max_bytes) {
  static std::once_flag quiet;
  std::call_once(quiet, [] { Mat_LogInitFunc("mindrecord", &QuietMatioLog); });
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::NotFound(path + " is missing");
  std::unique_ptr<mat_t, MatCloser> mat(Mat_Open(path.c_str(), MAT_ACC_RDONLY));
  if (!mat) return Status::Corruption(path + ": not a MATLAB .mat file");
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
  static std::once_flag quiet;
  std::call_once(quiet, [] { Mat_LogInitFunc("mindrecord", &QuietMatioLog); });
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::NotFound(path + " is missing");
  std::unique_ptr<mat_t, MatCloser> mat(Mat_Open(path.c_str(), MAT_ACC_RDONLY));
  if (!mat) return Status::Corruption(path + ": not a MATLAB .mat file");
  const std::string where = path + ": variable '" + name + "'";
  std::unique_ptr<matvar_t, MatVarFreer> info(Mat_VarReadInfo(mat.get(), name.c_str()));
  if (!info) return Status::Corruption(where + " is missing or unreadable");
  if (info->isComplex || info->class_type == MAT_C_SPARSE || info->class_type == MAT_C_CELL ||
      info->class_type == MAT_C_STRUCT || info->class_type == MAT_C_CHAR || info->class_type == MAT_C_EMPTY ||
      info->class_type == MAT_C_OBJECT || info->class_type == MAT_C_FUNCTION || info->class_type == MAT_C_OPAQUE)
    return Status::Corruption(where + " is not a real numeric array");
  MatArray out;
  uint64_t count = 1;
  for (int d = 0; d < info->rank; ++d) {
    const uint64_t n = info->dims[d];
    if (n != 0 && count > max_values / n) return Status::Corruption(where + " holds more than " +
                                                                     std::to_string(max_values) + " values");
    count *= n;
    out.dims.push_back(static_cast<int64_t>(n));
  }
  info.reset();
  std::unique_ptr<matvar_t, MatVarFreer> var(Mat_VarRead(mat.get(), name.c_str()));
  if (!var || (count > 0 && var->data == nullptr)) return Status::Corruption(where + ": its data does not read");
  uint64_t read_count = 1;
  for (int d = 0; d < var->rank; ++d) read_count *= var->dims[d];
  if (read_count != count || var->isComplex) return Status::Corruption(where + ": its data does not match its header");
  const size_t n = static_cast<size_t>(count);
  if (var->nbytes < n * static_cast<size_t>(Mat_SizeOfClass(var->class_type)))
    return Status::Corruption(where + ": its data is shorter than its dimensions");
  out.values.reserve(n);
  switch (var->class_type) {
    case MAT_C_DOUBLE: AppendValues<double>(var->data, n, &out.values); break;
    case MAT_C_SINGLE: AppendValues<float>(var->data, n, &out.values); break;
    case MAT_C_INT8: AppendValues<int8_t>(var->data, n, &out.values); break;
    case MAT_C_UINT8: AppendValues<uint8_t>(var->data, n, &out.values); break;
    case MAT_C_INT16: AppendValues<int16_t>(var->data, n, &out.values); break;
    case MAT_C_UINT16: AppendValues<uint16_t>(var->data, n, &out.values); break;
    case MAT_C_INT32: AppendValues<int32_t>(var->data, n, &out.values); break;
    case MAT_C_UINT32: AppendValues<uint32_t>(var->data, n, &out.values); break;
    case MAT_C_INT64: AppendValues<int64_t>(var->data, n, &out.values); break;
    case MAT_C_UINT64: AppendValues<uint64_t>(var->data, n, &out.values); break;
    default: return Status::Corruption(where + " is not a real numeric array");
  }
  return out;
}

}  // namespace mindrecord
