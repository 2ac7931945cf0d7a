// The folder `mindrecord export` writes into, and nowhere else: files are
// created by name inside it (openat, no '/' in a name) without following
// links, and an existing file is kept unless overwriting was asked for.
#pragma once

#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord::cli {

// Thread safety: not thread-safe; one writer.
class OutFolder {
 public:
  // Creates `path` (and its parents) when missing; a `path` that is a
  // symbolic link or not a folder is refused.
  static Result<OutFolder> Open(const std::string& path, bool overwrite);
  OutFolder(OutFolder&& o) noexcept;
  OutFolder& operator=(OutFolder&&) = delete;
  ~OutFolder();

  // Writes `bytes` as file `name` of the folder. InvalidArgument for a name
  // that is not a plain file name; an existing file (without overwrite) or a
  // link in its place is an error naming it.
  Status Write(const std::string& name, std::string_view bytes);
  const std::string& path() const { return path_; }
  uint64_t files_written() const { return files_; }

 private:
  OutFolder(std::string path, int fd, bool overwrite) : path_(std::move(path)), fd_(fd), overwrite_(overwrite) {}
  std::string path_;
  int fd_ = -1;
  bool overwrite_ = false;
  uint64_t files_ = 0;
};

}  // namespace mindrecord::cli
