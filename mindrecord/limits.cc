#include "mindrecord/limits.h"

#include <cerrno>
#include <cstdlib>

namespace mindrecord {

Result<uint64_t> MaxIndexedRows() {
  const char* v = std::getenv(kMaxIndexedRowsVariable);
  if (v == nullptr || *v == '\0') return kDefaultMaxIndexedRows;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end != '\0' || errno == ERANGE || n == 0) {
    return Status::InvalidArgument(std::string(kMaxIndexedRowsVariable) + "='" + v +
                                   "': the most rows a scan indexes must be a positive integer");
  }
  return static_cast<uint64_t>(n);
}

Status TooManyIndexedRows(const std::string& path, uint64_t limit, const std::string& rows) {
  return Status::NotSupported(path + ": more than " + std::to_string(limit) + " " + rows +
                              " to index in memory, the most one scan keeps (about 20 bytes a row; " +
                              kMaxIndexedRowsVariable + " sets another limit)");
}

}  // namespace mindrecord
