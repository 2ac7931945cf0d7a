#include "mindrecord/file.h"

#include "mindrecord/background_sync.h"
#include "mindrecord/constants.h"
#include "mindrecord/direct_file.h"
#include "mindrecord/own_file.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace mindrecord {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

class PosixReadFile : public RandomAccessFile {
 public:
  // A mapped file is read through the mapping only: its descriptor is
  // closed at once (readers keep mappings alive after they close,
  // readers/mapping_cache.h, and a dataset of many shards would otherwise
  // hold a descriptor per shard).
  PosixReadFile(std::string path, int fd, uint64_t size, const char* map)
      : path_(std::move(path)), fd_(fd), size_(size), map_(map) {
    if (map_) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~PosixReadFile() override {
    if (map_) munmap(const_cast<char*>(map_), size_);
    if (fd_ >= 0) close(fd_);
  }
  void AdviseHugePages() const override {
#ifdef MADV_HUGEPAGE
    if (map_) (void)madvise(const_cast<char*>(map_), size_, MADV_HUGEPAGE);
#endif
  }
  void ReleaseMapped(uint64_t offset, uint64_t n) const override {
    if (!map_ || n == 0 || offset >= size_) return;
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t first = offset - offset % page, end = std::min(offset + n, size_);
    (void)madvise(const_cast<char*>(map_) + first, end - first, MADV_DONTNEED);
  }
  Status ReadAt(uint64_t offset, size_t n, char* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corruption(path_ + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end of the file (" + std::to_string(size_) +
                                " bytes)");
    }
    if (map_) {
      std::memcpy(out, map_ + offset, n);
      return Status::OK();
    }
    size_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(path_ + ": read at offset " + std::to_string(offset + done) + ": " + ErrnoText(errno));
      }
      if (r == 0) {
        return Status::Corruption(path_ + ": unexpected end of file at offset " + std::to_string(offset + done));
      }
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }
  const char* MappedData() const override { return map_; }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  const char* map_;
};

class PosixWritableFile : public WritableFile {
 public:
  // `direct_fd`: the same file opened O_DIRECT (-1: none), with `alignment`.
  PosixWritableFile(std::string path, int fd, int direct_fd = -1, size_t alignment = 0)
      : path_(std::move(path)), fd_(fd), direct_fd_(direct_fd), alignment_(direct_fd >= 0 ? alignment : 0) {}
  ~PosixWritableFile() override {
    background_.reset();  // its flush uses fd_
    if (fd_ >= 0) close(fd_);
    if (direct_fd_ >= 0) close(direct_fd_);
  }
  size_t direct_alignment() const override { return alignment_; }
  Status WriteDirect(uint64_t offset, const char* buf, size_t n) override {
    if (direct_fd_ < 0) return WritableFile::WriteDirect(offset, buf, n);
    return WriteAll(direct_fd_, "direct write", offset, buf, n);
  }
  Status WriteAt(uint64_t offset, std::string_view data) override {
    MR_RETURN_IF_ERROR(WriteAll(fd_, "write", offset, data.data(), data.size()));
    NoteWritten(data.size());
    return Status::OK();
  }
  Status WriteAtV(uint64_t offset, const std::vector<std::string_view>& pieces) override {
    std::vector<iovec> iov;
    iov.reserve(pieces.size());
    uint64_t total = 0;
    for (std::string_view p : pieces) {
      if (p.empty()) continue;
      iov.push_back({const_cast<char*>(p.data()), p.size()});
      total += p.size();
    }
    size_t first = 0;  // iov[first..] is what is left, iov[first] possibly advanced
    uint64_t done = 0;
    while (first < iov.size()) {
      const int n = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
      ssize_t r = pwritev(fd_, iov.data() + first, n, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(path_ + ": write at offset " + std::to_string(offset + done) + ": " + ErrnoText(errno));
      }
      if (r == 0) return Status::IOError(path_ + ": write at offset " + std::to_string(offset + done) + " wrote nothing");
      done += static_cast<uint64_t>(r);
      for (size_t left = static_cast<size_t>(r); left > 0 && first < iov.size();) {
        if (left >= iov[first].iov_len) {
          left -= iov[first].iov_len;
          ++first;
        } else {
          iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
          iov[first].iov_len -= left;
          left = 0;
        }
      }
    }
    NoteWritten(total);
    return Status::OK();
  }
  Status ReadAt(uint64_t offset, size_t n, char* out) override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return Status::IOError(path_ + ": read back at offset " + std::to_string(offset + done) + " failed");
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }
  Status ZeroRange(uint64_t offset, uint64_t length) override {
    if (length == 0) return Status::OK();
    // Whole blocks in the range are freed, partial ones zeroed, the size kept.
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(length)) == 0) {
      return Status::OK();
    }
    return WritableFile::ZeroRange(offset, length);  // no hole punching here: write the zeros
  }
  Status Truncate(uint64_t size) override {
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return Status::IOError(path_ + ": truncate to " + std::to_string(size) + " bytes: " + ErrnoText(errno));
    }
    return Status::OK();
  }
  Status Sync() override {
    if (background_) {
      Status st = background_->Finish();
      background_.reset();
      MR_RETURN_IF_ERROR(st);
    }
    if (fdatasync(fd_) != 0) return Status::IOError(path_ + ": fsync: " + ErrnoText(errno));
    return Status::OK();
  }
  Status Close() override {
    background_.reset();  // waits for a flush in flight, which uses fd_
    if (direct_fd_ >= 0) {
      int rc = close(direct_fd_);
      direct_fd_ = -1;
      alignment_ = 0;
      if (rc != 0) return Status::IOError(path_ + ": close: " + ErrnoText(errno));
    }
    if (fd_ >= 0) {
      int rc = close(fd_);
      fd_ = -1;
      if (rc != 0) return Status::IOError(path_ + ": close: " + ErrnoText(errno));
    }
    return Status::OK();
  }
  const std::string& path() const override { return path_; }

 private:
  // All n bytes at `offset` through `fd` (retrying short writes and EINTR).
  Status WriteAll(int fd, const char* what, uint64_t offset, const char* buf, size_t n) {
    size_t done = 0;
    while (done < n) {
      ssize_t r = pwrite(fd, buf + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(path_ + ": " + what + " of " + std::to_string(n - done) + " bytes at offset " +
                               std::to_string(offset + done) + ": " + ErrnoText(errno));
      }
      if (r == 0) {
        return Status::IOError(path_ + ": " + what + " at offset " + std::to_string(offset + done) + " wrote nothing");
      }
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }
  void NoteWritten(uint64_t bytes) {
#ifdef __linux__
    // Start writeback every few MiB, and flush in the background every few
    // more (BackgroundSync), so the final fsync finds little left to write
    // (the disk works while the writer goes on). Advisory: errors are
    // reported by Sync().
    unsynced_ += bytes;
    if (unsynced_ >= kWritebackBytes) {
      (void)sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
      unsynced_ = 0;
    }
    written_ += bytes;
    if (!background_tried_ && written_ >= BackgroundSync::kSyncBytes) {
      // Large files only: small ones never start a thread.
      background_tried_ = true;
      background_ = BackgroundSync::Start(fd_, path_);
      if (background_) background_->Note(written_);
    } else if (background_) {
      background_->Note(bytes);
    }
#else
    (void)bytes;
#endif
  }

  static constexpr uint64_t kWritebackBytes = 8 << 20;
  uint64_t written_ = 0;  // bytes written buffered so far
  bool background_tried_ = false;
  std::unique_ptr<BackgroundSync> background_;  // flushes in the background; null: none (yet)
  std::string path_;
  int fd_;
  int direct_fd_;     // O_DIRECT descriptor of the same file; -1: none
  size_t alignment_;  // its alignment; 0: no direct writes
  uint64_t unsynced_ = 0;  // bytes written since writeback was last started
};

// The direct-I/O alignment of `fd` (opened O_DIRECT): statx(STATX_DIOALIGN)
// where the kernel reports it, never less than 4096; 0 when the file system
// takes no direct writes (statx says so, or an aligned probe write at offset 0
// fails). The probe leaves zeros at [0, alignment): callers truncate.
size_t ProbeDirectWrites(int fd) {
  size_t alignment = 4096;
#ifdef STATX_DIOALIGN
  struct statx sx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    if (sx.stx_dio_offset_align == 0) return 0;
    alignment = std::max<size_t>({alignment, sx.stx_dio_offset_align, sx.stx_dio_mem_align});
  }
#endif
  void* p = nullptr;
  if (posix_memalign(&p, alignment, alignment) != 0) return 0;
  std::memset(p, 0, alignment);
  ssize_t r;
  do {
    r = pwrite(fd, p, alignment, 0);
  } while (r < 0 && errno == EINTR);
  std::free(p);
  return r == static_cast<ssize_t>(alignment) ? alignment : 0;
}

class PosixFileSystem : public FileSystem {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path, bool use_mmap) override {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (refused below);
    // regular files ignore the flag.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": open: " + ErrnoText(errno));
    }
    MR_ASSIGN_OR_RETURN(const uint64_t size, RegularFileSizeOrClose(fd, path));
    const char* map = nullptr;
    if (use_mmap && size > 0) {
      void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
      if (p != MAP_FAILED) map = static_cast<const char*>(p);
    }
    return std::unique_ptr<RandomAccessFile>(new PosixReadFile(path, fd, size, map));
  }
  Result<std::unique_ptr<RandomAccessFile>> OpenDirect(const std::string& path) override {
    MR_ASSIGN_OR_RETURN(auto f, DirectFile::Open(path));
    return std::unique_ptr<RandomAccessFile>(std::move(f));
  }
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError(path + ": create: " + ErrnoText(errno));
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
  Result<std::unique_ptr<WritableFile>> OpenWriteDirect(const std::string& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError(path + ": create: " + ErrnoText(errno));
    // Refused (EINVAL: e.g. tmpfs before Linux 6.6) or unusable: no direct writes.
    int direct_fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_DIRECT);
    size_t alignment = direct_fd >= 0 ? ProbeDirectWrites(direct_fd) : 0;
    if (direct_fd >= 0 && alignment == 0) {
      close(direct_fd);
      direct_fd = -1;
    }
    if (ftruncate(fd, 0) != 0) {  // drops the probe's block
      const int e = errno;
      close(fd);
      if (direct_fd >= 0) close(direct_fd);
      return Status::IOError(path + ": truncate: " + ErrnoText(e));
    }
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd, direct_fd, alignment));
  }
  Result<std::unique_ptr<WritableFile>> OpenUpdate(const std::string& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": open for update: " + ErrnoText(errno));
    }
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
  Result<std::unique_ptr<WritableFile>> OpenUpdateNoFollow(const std::string& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
      const int e = errno;
      if (e == ENOENT) return Status::NotFound(path + ": no such file");
      if (e == ELOOP) return Status::Corruption(path + ": is a symbolic link; it is not written through");
      return Status::IOError(path + ": open for update: " + ErrnoText(e));
    }
    MR_RETURN_IF_ERROR(RegularFileSizeOrClose(fd, path).status());
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
  Status Rename(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) {
      return Status::IOError("rename " + from + " -> " + to + ": " + ErrnoText(errno));
    }
    return Status::OK();
  }
  Status Remove(const std::string& path) override {
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return Status::IOError(path + ": remove: " + ErrnoText(errno));
    return Status::OK();
  }
  bool Exists(const std::string& path) override {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
  }
  Status SyncDir(const std::string& dir) override { return SyncPath(dir); }
  Status SyncPath(const std::string& path) override {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(path + ": open for fsync: " + ErrnoText(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0) return Status::IOError(path + ": fsync: " + ErrnoText(e));
    return Status::OK();
  }
};

}  // namespace

Status WritableFile::WriteDirect(uint64_t offset, const char*, size_t n) {
  return Status::NotSupported(path() + ": direct write of " + std::to_string(n) + " bytes at offset " +
                              std::to_string(offset) + ": this file takes no direct writes");
}

Status WritableFile::WriteAtV(uint64_t offset, const std::vector<std::string_view>& pieces) {
  std::string joined;
  size_t n = 0;
  for (std::string_view p : pieces) n += p.size();
  joined.reserve(n);
  for (std::string_view p : pieces) joined.append(p);
  return WriteAt(offset, joined);
}

Status WritableFile::ZeroRange(uint64_t offset, uint64_t length) {
  std::string buf;
  for (uint64_t off = offset, end = offset + length; off < end; off += buf.size()) {
    buf.assign(std::min<uint64_t>(kMiB, end - off), '\0');
    MR_RETURN_IF_ERROR(ReadAt(off, buf.size(), buf.data()));
    if (buf.find_first_not_of('\0') != std::string::npos) {
      MR_RETURN_IF_ERROR(WriteAt(off, std::string(buf.size(), '\0')));
    }
  }
  return Status::OK();
}

FileSystem* FileSystem::Default() {
  static PosixFileSystem fs;
  return &fs;
}

class FaultyWritableFile : public WritableFile {
 public:
  FaultyWritableFile(FaultInjectingFileSystem* fs, std::unique_ptr<WritableFile> base)
      : fs_(fs), base_(std::move(base)) {}
  Status WriteAt(uint64_t offset, std::string_view data) override {
    if (fs_->disk_full_ && WouldAllocate(offset, data.size())) return NoSpace(offset);
    const size_t allowed = TakeBudget(data.size());
    if (allowed < data.size()) {
      (void)base_->WriteAt(offset, data.substr(0, allowed));
      return NoSpace(offset);
    }
    return base_->WriteAt(offset, data);
  }
  size_t direct_alignment() const override { return fs_->refuse_direct_ ? 0 : base_->direct_alignment(); }
  Status WriteDirect(uint64_t offset, const char* buf, size_t n) override {
    if (direct_alignment() == 0) return WritableFile::WriteDirect(offset, buf, n);
    const size_t allowed = TakeBudget(n);
    if (allowed < n) {
      // What a full disk lets through of a direct write: whole aligned blocks.
      const size_t blocks = allowed - allowed % direct_alignment();
      if (blocks > 0 && base_->WriteDirect(offset, buf, blocks).ok()) fs_->direct_bytes_ += static_cast<int64_t>(blocks);
      return NoSpace(offset);
    }
    MR_RETURN_IF_ERROR(base_->WriteDirect(offset, buf, n));
    fs_->direct_bytes_ += static_cast<int64_t>(n);
    return Status::OK();
  }
  Status ReadAt(uint64_t offset, size_t n, char* out) override { return base_->ReadAt(offset, n, out); }
  Status Truncate(uint64_t size) override { return base_->Truncate(size); }
  // Frees blocks (or rewrites zeros where it cannot): allocates nothing new.
  Status ZeroRange(uint64_t offset, uint64_t length) override { return base_->ZeroRange(offset, length); }
  Status Sync() override {
    if (fs_->fail_sync_) return Status::IOError(base_->path() + ": fsync: Input/output error (injected)");
    return base_->Sync();
  }
  Status Close() override { return base_->Close(); }
  const std::string& path() const override { return base_->path(); }

 private:
  // Takes up to n bytes from the write budget; returns how many were allowed.
  size_t TakeBudget(size_t n) {
    int64_t budget = fs_->write_budget_.load();
    while (budget >= 0) {
      const int64_t left = budget > static_cast<int64_t>(n) ? budget - static_cast<int64_t>(n) : 0;
      if (fs_->write_budget_.compare_exchange_weak(budget, left)) {
        return budget >= static_cast<int64_t>(n) ? n : static_cast<size_t>(budget);
      }
    }
    return n;  // unlimited
  }
  // Whether writing [offset, offset+n) needs new blocks: past the end of the
  // real file, or into a hole.
  bool WouldAllocate(uint64_t offset, size_t n) const {
    int fd = open(base_->path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;
    struct stat st;
    bool allocate = fstat(fd, &st) != 0 || offset + n > static_cast<uint64_t>(st.st_size);
    if (!allocate && n > 0) {
      const off_t hole = lseek(fd, static_cast<off_t>(offset), SEEK_HOLE);
      allocate = hole < 0 || static_cast<uint64_t>(hole) < offset + n;
    }
    close(fd);
    return allocate;
  }
  Status NoSpace(uint64_t offset) const {
    return Status::IOError(base_->path() + ": write at offset " + std::to_string(offset) +
                           ": No space left on device (injected)");
  }

  FaultInjectingFileSystem* fs_;
  std::unique_ptr<WritableFile> base_;
};

Result<std::unique_ptr<RandomAccessFile>> FaultInjectingFileSystem::OpenRead(const std::string& path, bool mmap) {
  return base_->OpenRead(path, mmap);
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectingFileSystem::OpenDirect(const std::string& path) {
  if (refuse_direct_) {
    return Status::NotSupported(path + ": the file system refuses O_DIRECT (open: Invalid argument, injected); "
                                "read this dataset with io_mode pread or mmap");
  }
  return base_->OpenDirect(path);
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenWrite(const std::string& path) {
  MR_ASSIGN_OR_RETURN(auto f, base_->OpenWrite(path));
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(f)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenWriteDirect(const std::string& path) {
  auto f = refuse_direct_ ? base_->OpenWrite(path) : base_->OpenWriteDirect(path);
  MR_RETURN_IF_ERROR(f.status());
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(f).value()));
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenUpdate(const std::string& path) {
  MR_ASSIGN_OR_RETURN(auto f, base_->OpenUpdate(path));
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(f)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenUpdateNoFollow(const std::string& path) {
  MR_ASSIGN_OR_RETURN(auto f, base_->OpenUpdateNoFollow(path));
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(f)));
}

Status FaultInjectingFileSystem::Rename(const std::string& from, const std::string& to) {
  if (fail_rename_) return Status::IOError("rename " + from + " -> " + to + ": Input/output error (injected)");
  return base_->Rename(from, to);
}

Status FaultInjectingFileSystem::SyncPath(const std::string& path) {
  if (fail_sync_) return Status::IOError(path + ": fsync: Input/output error (injected)");
  return base_->SyncPath(path);
}

std::string DirName(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string BaseName(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::string HiddenSibling(const std::string& path, std::string_view suffix) {
  // Appended, not "." + BaseName(...): GCC 12 warns falsely about the operator+
  // (-Wrestrict, its bug 105651, and -Wstringop-overflow).
  std::string name = ".";
  name.append(BaseName(path)).append(suffix);
  return JoinPath(DirName(path), name);
}

Status WriteWholeFileAtomically(const std::string& path, std::string_view text, FileSystem* fs) {
  const std::string tmp = HiddenSibling(path, ".tmp-" + std::to_string(getpid()));
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenWrite(tmp));
  Status st = f->WriteAt(0, text);
  if (st.ok()) st = f->Sync();
  if (st.ok()) st = f->Close();
  if (st.ok()) st = fs->Rename(tmp, path);
  if (!st.ok()) (void)fs->Remove(tmp);
  return st;
}

Status CopyWholeFile(const std::string& from, const std::string& to, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(auto in, fs->OpenRead(from));
  MR_ASSIGN_OR_RETURN(auto out, fs->OpenWrite(to));
  Status st;
  std::string buf;
  for (uint64_t off = 0; st.ok() && off < in->size(); off += buf.size()) {
    buf.resize(static_cast<size_t>(std::min<uint64_t>(in->size() - off, uint64_t{1} << 20)));
    st = in->ReadAt(off, buf.size(), buf.data());
    if (st.ok()) st = out->WriteAt(off, buf);
  }
  if (st.ok()) st = out->Close();
  if (!st.ok()) (void)fs->Remove(to);
  return st;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace mindrecord
