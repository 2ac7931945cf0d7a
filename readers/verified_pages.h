// Pages whose checksum a reader in this process (or in a process forked
// from the same one) has already verified, so that readers opened later on
// the same unchanged file (a pipeline opened per epoch or per benchmark run,
// a DataLoader worker per epoch) do not hash whole pages again to serve a few
// rows of each. Without it, reading 1,000
// random rows of a 2.2 GB dataset hashed (and faulted in) all 2.2 GB on
// every open: a fifth of the image pipeline's time.
//
// A file is identified by device, inode, size, mtime and ctime. Any write
// moves ctime, but only by the file system's clock tick, so a verification
// is remembered only when the file's ctime was at least kQuietSeconds old
// when the page was hashed: a later change then necessarily has a later
// ctime and misses the cache.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mindrecord {

struct FileIdentity {
  bool valid = false;  // false: never cached (stat failed, or not a POSIX file)
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

inline constexpr int64_t kQuietSeconds = 2;

// The identity of the file at `path` now (valid false if stat fails).
FileIdentity IdentityOf(const std::string& path);

// Whether `id` is valid and its ctime at least kQuietSeconds old now: what
// the process-wide caches keyed by identity require before they share.
bool IdentityQuiet(const FileIdentity& id);

// A file named by path and identity, ordered: the key of those caches.
struct PathIdentity {
  std::string path;
  FileIdentity id;
  bool operator<(const PathIdentity& o) const;
};

// Thread safety: both functions are safe to call from any thread, and the
// record is shared with the processes forked from this one (and theirs):
// DataLoader workers of every epoch reuse what their siblings and earlier
// workers verified.
// Whether page `page` of the file `id`, with stored checksum `checksum`, was
// verified by a reader of this process or of a process forked from the same
// one.
bool PageVerifiedBefore(const FileIdentity& id, uint64_t page, std::string_view checksum);
// Records a verified page if the file at `path` still has identity `id` and
// its ctime is at least kQuietSeconds old. About 1 << 16 pages are shared
// (5.5 MiB of shared memory, touched as used); past that each process keeps
// its own record of 1 << 16 more, which then starts over.
void RememberVerifiedPage(const std::string& path, const FileIdentity& id, uint64_t page, std::string_view checksum);

}  // namespace mindrecord
