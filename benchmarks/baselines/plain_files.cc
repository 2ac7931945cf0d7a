#include "benchmarks/baselines/plain_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace mindrecord::bench {

std::string PlainFilePath(const std::string& root, uint64_t index, int64_t label, const std::string& ext) {
  char rel[64];
  std::snprintf(rel, sizeof(rel), "/class_%02lld/%07llu", static_cast<long long>(label % 100),
                static_cast<unsigned long long>(index));
  return root + rel + ext;
}

Status WriteWholeFile(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) return Status::IOError(path + ": cannot create: " + std::strerror(errno));
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      ::close(fd);
      return Status::IOError(path + ": write failed: " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  ::close(fd);
  return Status::OK();
}

Status ReadWholeFile(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Status::IOError(path + ": cannot stat: " + std::strerror(errno));
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    ssize_t got = ::read(fd, out->data() + done, out->size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  if (done != out->size()) return Status::IOError(path + ": short read");
  return Status::OK();
}

std::vector<std::string> ListFiles(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec))
    if (e.is_regular_file()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Result<uint64_t> CatFiles(const std::vector<std::string>& paths) {
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  for (const auto& p : paths) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(p + ": cannot open: " + std::strerror(errno));
    for (;;) {
      ssize_t got = ::read(fd, buf.data(), buf.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      total += static_cast<uint64_t>(got);
    }
    ::close(fd);
  }
  return total;
}

}  // namespace mindrecord::bench
