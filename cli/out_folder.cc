#include "cli/out_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mindrecord::cli {

namespace {
std::string Errno(int e) { return std::strerror(e); }
}  // namespace

Result<OutFolder> OutFolder::Open(const std::string& path, bool overwrite) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) std::filesystem::create_directories(path, ec);
  if (ec) return Status::IOError(path + ": cannot create the output folder: " + ec.message());
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP || e == ENOTDIR) {
      return Status::InvalidArgument(path + ": the output folder must be a folder, not a link or a file");
    }
    return Status::IOError(path + ": cannot open the output folder: " + Errno(e));
  }
  return OutFolder(path, fd, overwrite);
}

OutFolder::OutFolder(OutFolder&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), overwrite_(o.overwrite_), files_(o.files_) {
  o.fd_ = -1;
}

OutFolder::~OutFolder() {
  if (fd_ >= 0) close(fd_);
}

Status OutFolder::Write(const std::string& name, std::string_view bytes) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Status::InvalidArgument("'" + name + "' cannot name a file in " + path_);
  }
  const std::string shown = path_ + "/" + name;
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (overwrite_ ? O_TRUNC : O_EXCL);
  const int fd = openat(fd_, name.c_str(), flags, 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == EEXIST) return Status::AlreadyExists(shown + ": exists (--overwrite replaces files)");
    if (e == ELOOP) return Status::InvalidArgument(shown + ": is a symbolic link; export writes only inside " + path_);
    return Status::IOError(shown + ": cannot create: " + Errno(e));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      close(fd);
      return Status::IOError(shown + ": write: " + Errno(e));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Status::IOError(shown + ": close: " + Errno(errno));
  ++files_;
  return Status::OK();
}

}  // namespace mindrecord::cli
