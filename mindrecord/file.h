// The file-system seam: every shard byte the engine reads or writes goes
// through these interfaces, so tests can inject faults (disk full, I/O
// errors) and crash points. SQLite index files use SQLite's own I/O.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: ReadAt, AdviseHugePages and ReleaseMapped may be called from any number of
// threads at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads exactly n bytes at offset; a short read is Corruption naming the
  // file, offset and sizes.
  virtual Status ReadAt(uint64_t offset, size_t n, char* out) const = 0;
  // Zero-copy view when the file is mapped; nullptr otherwise.
  virtual const char* MappedData() const { return nullptr; }
  // Asks the kernel to back the mapping with 2 MiB pages where it can (Linux
  // MADV_HUGEPAGE): pages read in through it afterwards come into the page
  // cache as 2 MiB folios (with 2 MiB read-ahead), which later mappings of
  // the file map with one fault and one TLB entry per 2 MiB. Pages already
  // cached keep their size. Advice only: no-op when unmapped or refused.
  virtual void AdviseHugePages() const {}
  // Drops this process's page-table entries for the mapped bytes around
  // [offset, offset + n) (the whole memory pages covering them): they stop
  // counting in its resident memory and stay in the page cache, where the
  // next touch maps them again. For bytes read once to check them, not to
  // hand them out (Linux MADV_DONTNEED of the read-only shared mapping; views
  // into it stay valid). No-op when unmapped.
  virtual void ReleaseMapped(uint64_t /*offset*/, uint64_t /*n*/) const {}
  virtual uint64_t size() const = 0;
  virtual const std::string& path() const = 0;
};

// Thread safety: not thread-safe; one writer per file. Calls must not overlap,
// but may come from different threads in turn (e.g. WriteDirect from a
// background I/O thread while the owner waits for it).
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status WriteAt(uint64_t offset, std::string_view data) = 0;
  // `pieces` back to back at `offset`, as one write. The default joins them
  // and calls WriteAt; files that can gather (pwritev) skip that copy.
  virtual Status WriteAtV(uint64_t offset, const std::vector<std::string_view>& pieces);
  virtual Status ReadAt(uint64_t offset, size_t n, char* out) = 0;
  // Cuts the file to `size` bytes.
  virtual Status Truncate(uint64_t size) = 0;
  // Makes [offset, offset + length) of the file read as zeros, writing only
  // where it is not zero already. The POSIX file punches a hole where the
  // range covers whole blocks (the blocks are freed, the size is kept), so an
  // undone append leaves the file as small on disk as it was, and it needs no
  // free space; the default (and file systems without hole punching) writes
  // zeros over the non-zero 1 MiB chunks.
  virtual Status ZeroRange(uint64_t offset, uint64_t length);
  virtual Status Sync() = 0;
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;

  // Direct writes (O_DIRECT, bypassing the page cache): the alignment that
  // WriteDirect's offset, length and buffer address must all have; 0 when
  // this file takes none (not opened with OpenWriteDirect, or its file system
  // refuses O_DIRECT).
  virtual size_t direct_alignment() const { return 0; }
  // Writes n bytes from `buf` at `offset` past the page cache. Reads
  // (ReadAt) and buffered writes see these bytes once it returns; a buffered
  // write and a direct write must not cover the same bytes.
  virtual Status WriteDirect(uint64_t offset, const char* buf, size_t n);
};

// Thread safety: implementations are safe to use from many threads.
class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path, bool mmap = false) = 0;
  // Opens for O_DIRECT reads (a DirectFile, see direct_file.h). NotSupported
  // naming the file when the file system refuses O_DIRECT.
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenDirect(const std::string& path) = 0;
  // Creates or truncates.
  virtual Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) = 0;
  // Creates or truncates, as OpenWrite, and opens the file for direct writes
  // too (WritableFile::WriteDirect) where its file system takes them; where
  // it refuses them the file reports direct_alignment() 0. The default is
  // OpenWrite (no direct writes).
  virtual Result<std::unique_ptr<WritableFile>> OpenWriteDirect(const std::string& path) { return OpenWrite(path); }
  // Opens an existing file for reading and writing in place (no truncation).
  virtual Result<std::unique_ptr<WritableFile>> OpenUpdate(const std::string& path) = 0;
  // As OpenUpdate, but refuses a symbolic link (O_NOFOLLOW) and anything
  // not a regular file, with Corruption naming the path: for recovery, which
  // writes only a dataset's own files.
  virtual Result<std::unique_ptr<WritableFile>> OpenUpdateNoFollow(const std::string& path) = 0;
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Remove(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // fsync of a directory, so renames inside it are durable.
  virtual Status SyncDir(const std::string& dir) = 0;
  virtual Status SyncPath(const std::string& path) = 0;

  // The POSIX file system.
  static FileSystem* Default();
};

// Wraps another FileSystem and fails on purpose: after a byte budget of
// writes (ENOSPC-like; buffered and direct writes alike), on writes that
// would allocate (DiskFull), on every Sync, or on Rename, or refuses O_DIRECT (reads and writes) the way tmpfs on Linux < 6.6
// does. Counts the bytes written with direct writes. For tests.
class FaultInjectingFileSystem : public FileSystem {
 public:
  explicit FaultInjectingFileSystem(FileSystem* base) : base_(base) {}
  void FailWritesAfterBytes(int64_t budget) { write_budget_ = budget; }
  void FailSync(bool on) { fail_sync_ = on; }
  void FailRename(bool on) { fail_rename_ = on; }
  void RefuseDirect(bool on) { refuse_direct_ = on; }
  // A full disk as a non-copy-on-write file system has one: a buffered write
  // fails (ENOSPC) when it would allocate, i.e. reach past the file's end or
  // into a hole (SEEK_HOLE on the real file); rewriting allocated bytes works.
  void DiskFull(bool on) { disk_full_ = on; }
  // Bytes written through WritableFile::WriteDirect so far.
  int64_t direct_bytes_written() const { return direct_bytes_.load(); }

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path, bool mmap) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenDirect(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWriteDirect(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenUpdate(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenUpdateNoFollow(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override { return base_->Remove(path); }
  bool Exists(const std::string& path) override { return base_->Exists(path); }
  Status SyncDir(const std::string& dir) override { return base_->SyncDir(dir); }
  Status SyncPath(const std::string& path) override;

 private:
  friend class FaultyWritableFile;
  FileSystem* base_;
  std::atomic<int64_t> write_budget_{-1};  // -1: unlimited
  std::atomic<bool> fail_sync_{false};
  std::atomic<bool> fail_rename_{false};
  std::atomic<bool> refuse_direct_{false};
  std::atomic<bool> disk_full_{false};
  std::atomic<int64_t> direct_bytes_{0};
};

// Writes `text` as the whole of `path` through `fs`: a temporary beside it
// (".NAME.tmp-PID"), fsynced, then renamed over it; the temporary is removed on
// failure. The caller syncs the folder.
Status WriteWholeFileAtomically(const std::string& path, std::string_view text, FileSystem* fs);

// Copies the whole of `from` to a new file `to` through `fs` (errors name the
// file and the errno text, e.g. "No space left on device"); `to` is removed
// on failure. Neither file is synced.
Status CopyWholeFile(const std::string& from, const std::string& to, FileSystem* fs);

// Path helpers.
std::string DirName(const std::string& path);   // "." when none
std::string BaseName(const std::string& path);
std::string JoinPath(const std::string& dir, const std::string& name);

// `name`'s extension as std::filesystem::path::extension gives it for a name
// that does not start with '.' (WalkFiles, dir_walk.h, skips those): from its last '.',
// or "" when it has none.
inline std::string_view FileExtension(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? std::string_view() : name.substr(dot);
}

// Whether a component of '/'-separated `path` is "..": joined to a folder,
// such a path can name something outside it.
inline bool HasParentComponent(std::string_view path) {
  for (size_t at = 0; at <= path.size();) {
    const size_t end = std::min(path.find('/', at), path.size());
    if (path.substr(at, end - at) == "..") return true;
    at = end + 1;
  }
  return false;
}

// DIR/.BASE<suffix> for `path` DIR/BASE: the hidden file a write goes to
// before it is renamed over `path`.
std::string HiddenSibling(const std::string& path, std::string_view suffix);

}  // namespace mindrecord
