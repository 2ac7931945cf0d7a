// A RandomAccessFile over bytes in memory, for targets that read a shard
// image without touching the disk.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "mindrecord/file.h"

namespace mindrecord::fuzz {

class MemFile : public RandomAccessFile {
 public:
  MemFile(std::string_view bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  Status ReadAt(uint64_t offset, size_t n, char* out) const override {
    if (offset > bytes_.size() || n > bytes_.size() - offset)
      return Status::Corruption(path_ + ": short read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " (file size " + std::to_string(bytes_.size()) + ")");
    if (n) std::memcpy(out, bytes_.data() + offset, n);
    return Status::OK();
  }
  uint64_t size() const override { return bytes_.size(); }
  const std::string& path() const override { return path_; }

 private:
  std::string_view bytes_;
  std::string path_;
};

}  // namespace mindrecord::fuzz
