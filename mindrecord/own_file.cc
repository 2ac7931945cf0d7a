#include "mindrecord/own_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mindrecord {

bool IsPlainBaseName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

const char* FileKindName(unsigned mode) {
  if (S_ISREG(mode)) return "regular file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISLNK(mode)) return "symbolic link";
  return "special file";
}

Result<OwnFileIdentity> StatOwnFile(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IOError(path + ": stat: " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    return Status::Corruption(path + ": is a symbolic link; recovery writes only the dataset's own regular files");
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::Corruption(path + ": is a " + FileKindName(st.st_mode) + ", not a regular file");
  }
  return OwnFileIdentity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                      static_cast<uint64_t>(st.st_size)};
}

Result<uint64_t> RegularFileSizeOrClose(int fd, const std::string& path) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Status::IOError(path + ": stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Status::Corruption(path + ": is a " + std::string(FileKindName(st.st_mode)) +
                              ", not a regular file; a dataset file must be a regular file");
  }
  return static_cast<uint64_t>(st.st_size);
}

Status CheckNotSpecialFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::OK();  // the open that follows names the error
  if (S_ISREG(st.st_mode)) return Status::OK();
  return Status::Corruption(path + ": is a " + std::string(FileKindName(st.st_mode)) +
                            ", not a regular file; a dataset file must be a regular file");
}

}  // namespace mindrecord
