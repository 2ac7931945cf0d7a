// Guards for files named by untrusted bytes (journals, commit records,
// shard_addresses) and for special files in a dataset folder.
//
// Recovery may write only the dataset's own files: a plain name in the
// dataset's folder, a regular file, never reached through a symbolic link,
// and the very file (device, inode) its journal recorded. Readers refuse
// FIFOs, devices, sockets and directories before any open that could block.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord {

// True for one entry of a folder: not empty, not "." or "..", no '/' or NUL.
bool IsPlainBaseName(std::string_view name);

// What a path itself is (the link when it is one).
struct OwnFileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  bool SameFile(const OwnFileIdentity& o) const { return device == o.device && inode == o.inode; }
};

// lstat(2) of `path`: NotFound when absent; Corruption naming the path when
// it is a symbolic link or not a regular file (recovery never writes those).
Result<OwnFileIdentity> StatOwnFile(const std::string& path);

// stat(2) of `path` (links followed): OK for a regular file or an absent
// one (the caller's open reports that); Corruption naming the path and
// what it is for a FIFO, device, socket or directory, which a dataset file
// never is and whose open or read could block forever.
Status CheckNotSpecialFile(const std::string& path);

// fstat(2) of `fd`, opened from `path`: its size when it is a regular file.
// Otherwise closes `fd` and returns IOError, or Corruption naming the path
// and what it is.
Result<uint64_t> RegularFileSizeOrClose(int fd, const std::string& path);

// "FIFO", "directory", ... for an st_mode.
const char* FileKindName(unsigned mode);

}  // namespace mindrecord
