#include "benchmarks/baselines/tfrecord_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "benchmarks/baselines/crc32c_hw.h"
#include "mindrecord/crc32c.h"

namespace mindrecord::bench {
namespace {

constexpr size_t kHeader = 12, kFooter = 4;

uint32_t Le32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Le64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(path + ": " + what + ": " + std::strerror(errno));
}
Status WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Errno("write failed", path);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}
Status PreadAll(int fd, char* out, size_t n, uint64_t off, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(off + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Errno("read failed", path);
    }
    if (got == 0) return Status::Corruption(path + ": unexpected end of file at offset " + std::to_string(off + done));
    done += static_cast<size_t>(got);
  }
  return Status::OK();
}
// Checks the 12-byte header at p; returns the data length.
Result<uint64_t> CheckHeader(const char* p, const std::string& where) {
  if (MaskCrc32c(FastCrc32c(p, 8)) != Le32(p + 8)) return Status::Corruption(where + ": length checksum mismatch");
  return Le64(p);
}
Status CheckData(const char* data, uint64_t len, const std::string& where) {
  if (MaskCrc32c(FastCrc32c(data, len)) != Le32(data + len)) return Status::Corruption(where + ": data checksum mismatch");
  return Status::OK();
}

}  // namespace

// ---- writer ----

Result<std::unique_ptr<TfRecordWriter>> TfRecordWriter::Create(const std::string& path, const std::string& index_path,
                                                               size_t buffer_size) {
  std::unique_ptr<TfRecordWriter> w(new TfRecordWriter());
  w->path_ = path;
  w->index_path_ = index_path;
  w->buffer_size_ = buffer_size;
  w->buf_.reserve(buffer_size);
  w->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (w->fd_ < 0) return Errno("cannot create", path);
  return w;
}

TfRecordWriter::~TfRecordWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status TfRecordWriter::Flush() {
  MR_RETURN_IF_ERROR(WriteAll(fd_, buf_.data(), buf_.size(), path_));
  buf_.clear();
  return Status::OK();
}

Status TfRecordWriter::Append(std::string_view record) {
  if (fd_ < 0) return Status::InvalidArgument(path_ + ": writer is closed");
  char hdr[kHeader];
  const uint64_t len = record.size();
  std::memcpy(hdr, &len, 8);
  const uint32_t hcrc = MaskCrc32c(FastCrc32c(hdr, 8)), dcrc = MaskCrc32c(FastCrc32c(record.data(), record.size()));
  std::memcpy(hdr + 8, &hcrc, 4);
  const uint64_t framed = kHeader + len + kFooter;
  if (buf_.size() + framed > buffer_size_) MR_RETURN_IF_ERROR(Flush());
  if (framed > buffer_size_) {  // large record: straight through
    MR_RETURN_IF_ERROR(WriteAll(fd_, hdr, kHeader, path_));
    MR_RETURN_IF_ERROR(WriteAll(fd_, record.data(), record.size(), path_));
    MR_RETURN_IF_ERROR(WriteAll(fd_, reinterpret_cast<const char*>(&dcrc), kFooter, path_));
  } else {
    buf_.append(hdr, kHeader);
    buf_.append(record);
    buf_.append(reinterpret_cast<const char*>(&dcrc), kFooter);
  }
  if (!index_path_.empty()) {
    char line[48];
    const int k = std::snprintf(line, sizeof(line), "%llu %llu\n", static_cast<unsigned long long>(offset_),
                                static_cast<unsigned long long>(framed));
    index_.append(line, static_cast<size_t>(k));
  }
  offset_ += framed;
  ++records_;
  return Status::OK();
}

Status TfRecordWriter::Close(bool sync) {
  if (fd_ < 0) return Status::OK();
  MR_RETURN_IF_ERROR(Flush());
  if (sync && ::fsync(fd_) != 0) return Errno("fsync failed", path_);
  ::close(fd_);
  fd_ = -1;
  if (index_path_.empty()) return Status::OK();
  int fd = ::open(index_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", index_path_);
  Status s = WriteAll(fd, index_.data(), index_.size(), index_path_);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Errno("fsync failed", index_path_);
  ::close(fd);
  return s;
}

// ---- sequential reader ----

Result<std::unique_ptr<TfRecordReader>> TfRecordReader::Open(const std::string& path, size_t buffer_size) {
  std::unique_ptr<TfRecordReader> r(new TfRecordReader());
  r->path_ = path;
  r->buf_.resize(buffer_size);
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) return Errno("cannot open", path);
  ::posix_fadvise(r->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return r;
}

TfRecordReader::~TfRecordReader() {
  if (fd_ >= 0) ::close(fd_);
}

// Makes at least `need` bytes available at pos_ (growing the buffer for large
// records); *eof when the file ends first.
Status TfRecordReader::Fill(size_t need, bool* eof) {
  *eof = false;
  if (end_ - pos_ >= need) return Status::OK();
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (need > buf_.size()) buf_.resize(need);
  while (end_ < need) {
    ssize_t got = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Errno("read failed", path_);
    }
    if (got == 0) {
      *eof = true;
      return Status::OK();
    }
    end_ += static_cast<size_t>(got);
    file_offset_ += static_cast<uint64_t>(got);
  }
  return Status::OK();
}

Result<bool> TfRecordReader::Next(std::string_view* record) {
  bool eof;
  MR_RETURN_IF_ERROR(Fill(kHeader, &eof));
  if (eof) {
    if (end_ == pos_) return false;
    return Status::Corruption(path_ + ": truncated record header at offset " + std::to_string(offset()));
  }
  const std::string where = path_ + " offset " + std::to_string(offset());
  MR_ASSIGN_OR_RETURN(uint64_t len, CheckHeader(buf_.data() + pos_, where));
  if (len > (uint64_t{1} << 40)) return Status::Corruption(where + ": implausible record length " + std::to_string(len));
  MR_RETURN_IF_ERROR(Fill(kHeader + len + kFooter, &eof));
  if (eof) return Status::Corruption(where + ": truncated record of " + std::to_string(len) + " bytes");
  const char* data = buf_.data() + pos_ + kHeader;
  MR_RETURN_IF_ERROR(CheckData(data, len, where));
  *record = std::string_view(data, len);
  pos_ += kHeader + len + kFooter;
  return true;
}

// ---- index ----

Result<std::vector<RecordLocation>> ReadIndexFile(const std::string& index_path) {
  int fd = ::open(index_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", index_path);
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(chunk, static_cast<size_t>(got));
  }
  ::close(fd);
  std::vector<RecordLocation> out;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    RecordLocation loc;
    auto r = std::from_chars(p, end, loc.offset);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ' ')
      return Status::Corruption(index_path + ": bad line " + std::to_string(out.size() + 1));
    r = std::from_chars(r.ptr + 1, end, loc.size);
    if (r.ec != std::errc() || loc.size < kHeader + kFooter)
      return Status::Corruption(index_path + ": bad line " + std::to_string(out.size() + 1));
    p = r.ptr;
    while (p < end && (*p == '\n' || *p == '\r')) ++p;
    out.push_back(loc);
  }
  return out;
}

Result<std::vector<RecordLocation>> ScanIndex(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  std::vector<RecordLocation> out;
  uint64_t off = 0;
  Status s;
  while (s.ok() && off < static_cast<uint64_t>(size)) {
    const std::string where = path + " offset " + std::to_string(off);
    if (static_cast<uint64_t>(size) - off < kHeader + kFooter) {
      s = Status::Corruption(where + ": truncated record");
      break;
    }
    char hdr[kHeader];
    s = PreadAll(fd, hdr, kHeader, off, path);
    if (!s.ok()) break;
    auto len = CheckHeader(hdr, where);
    if (!len.ok()) {
      s = len.status();
      break;
    }
    if (*len > static_cast<uint64_t>(size) - off - kHeader - kFooter) {
      s = Status::Corruption(where + ": record runs past the end of the file");
      break;
    }
    out.push_back({off, kHeader + *len + kFooter});
    off += kHeader + *len + kFooter;
  }
  ::close(fd);
  if (!s.ok()) return s;
  return out;
}

// ---- positional reader ----

Result<std::unique_ptr<TfRecordRandomReader>> TfRecordRandomReader::Open(const std::string& path,
                                                                         std::vector<RecordLocation> index) {
  std::unique_ptr<TfRecordRandomReader> r(new TfRecordRandomReader());
  r->path_ = path;
  r->index_ = std::move(index);
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) return Errno("cannot open", path);
  return r;
}

TfRecordRandomReader::~TfRecordRandomReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::string_view> UnframeRecord(std::string_view framed, const std::string& where) {
  if (framed.size() < kHeader + kFooter) return Status::Corruption(where + ": record shorter than its framing");
  MR_ASSIGN_OR_RETURN(uint64_t len, CheckHeader(framed.data(), where));
  if (len != framed.size() - kHeader - kFooter)
    return Status::Corruption(where + ": length " + std::to_string(len) + " disagrees with the index size " +
                              std::to_string(framed.size()));
  MR_RETURN_IF_ERROR(CheckData(framed.data() + kHeader, len, where));
  return framed.substr(kHeader, len);
}

Result<std::string_view> TfRecordRandomReader::Read(size_t i, std::string* scratch) const {
  if (i >= index_.size()) return Status::InvalidArgument(path_ + ": record " + std::to_string(i) + " out of range");
  const RecordLocation& loc = index_[i];
  scratch->resize(loc.size);
  MR_RETURN_IF_ERROR(PreadAll(fd_, scratch->data(), loc.size, loc.offset, path_));
  return UnframeRecord(*scratch, path_ + " record " + std::to_string(i));
}

}  // namespace mindrecord::bench
