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

}  // namespace

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
