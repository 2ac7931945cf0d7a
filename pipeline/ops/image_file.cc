#include "pipeline/ops/image_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace mindrecord::ops {

Status CheckRegularFile(const std::string& filename, const char* op) {
  struct stat st;
  if (stat(filename.c_str(), &st) != 0) {
    const std::string prefix = std::string(op) + ": Invalid file path, " + filename;
    if (errno == ENOENT || errno == ENOTDIR) return Status::NotFound(prefix + " does not exist.");
    return Status::IOError(prefix + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return Status::InvalidArgument(std::string(op) + ": Invalid file path, " + filename + " is not a regular file.");
  return Status::OK();
}

Result<Tensor> ReadWholeFile(const std::string& filename, const char* op, FileSystem* fs) {
  MR_RETURN_IF_ERROR(CheckRegularFile(filename, op));
  auto file = fs->OpenRead(filename);
  if (!file.ok()) return file.status().WithContext(op);
  const uint64_t size = (*file)->size();
  if (size > static_cast<uint64_t>(INT64_MAX))  // a Shape dimension is int64
    return Status::InvalidArgument(std::string(op) + ": " + filename + " is too large");
  Tensor out = Tensor::Make(TensorType::kUInt8, {static_cast<int64_t>(size)});
  if (size > 0) {
    Status st = (*file)->ReadAt(0, size, reinterpret_cast<char*>(out.MutableData()));
    if (!st.ok()) return st.WithContext(op);
  }
  return out;
}

Status WriteWholeFile(const std::string& filename, const uint8_t* data, size_t size, const char* op,
                      FileSystem* fs) {
  // An existing path must be a regular file (MindSpore refuses a directory or
  // a device such as /dev/null); a missing one is created.
  struct stat st;
  if (stat(filename.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return Status::InvalidArgument(std::string(op) + ": Invalid file path, " + filename + " is not a regular file.");
  // Written beside it under a hidden name and renamed over it, so a failed
  // write leaves the file as it was, never a truncated one that looks whole.
  const std::string tmp = HiddenSibling(filename, ".mr-writing");
  const std::string failed = std::string(op) + ": Failed to write the file " + filename;
  auto file = fs->OpenWrite(tmp);
  if (!file.ok()) return file.status().WithContext(failed);
  Status w = size > 0 ? (*file)->WriteAt(0, std::string_view(reinterpret_cast<const char*>(data), size))
                      : Status::OK();
  Status c = (*file)->Close();
  if (w.ok() && c.ok()) w = fs->Rename(tmp, filename);
  if (w.ok() && c.ok()) return Status::OK();
  (void)fs->Remove(tmp);
  return (w.ok() ? c : w).WithContext(failed);
}

Status WriteFile(const std::string& filename, const Tensor& data, FileSystem* fs) {
  if (data.type() != TensorType::kUInt8)
    return Status::InvalidArgument(std::string("WriteFile: The type of the elements of data should be UINT8, ") +
                                   "but got " + TensorTypeName(data.type()) + ".");
  if (data.num_elements() > 0 && data.shape().size() != 1)
    return Status::InvalidArgument("WriteFile: The data has invalid dimensions. It should have only one dimension, "
                                   "but got " + std::to_string(data.shape().size()) + " dimensions.");
  return WriteWholeFile(filename, data.data(), data.size_bytes(), "WriteFile", fs);
}

}  // namespace mindrecord::ops
