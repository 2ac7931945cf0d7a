// Where the rows of a text or CSV file lie, kept per process for files that
// have not changed: a TextFileDataset or CSVDataset is sized when it is made,
// when its plan is checked, when its sampler is sized and when its pipeline
// opens, and each of those scanned every file in full (about 0.2 s per GB
// from the page cache, four times over).
//
// A file is identified by path, device, inode, size, mtime and ctime, and a
// scan is kept only when the file's ctime was at least kQuietSeconds old
// before the scan and the identity did not change during it (see
// readers/verified_pages.h: a later write then necessarily misses). Scans of
// the same file with other grammar settings are kept apart (`key`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "readers/verified_pages.h"

namespace mindrecord {

// The rows of one file: first byte and length (capped at UINT32_MAX).
struct FileRows {
  std::vector<uint64_t> start;
  std::vector<uint32_t> length;
  uint64_t bytes() const { return start.size() * (sizeof(uint64_t) + sizeof(uint32_t)); }
};

// Records a row of the file being scanned: its first byte and length.
using AddRow = std::function<void(uint64_t start, uint64_t length)>;
using ScanFn = std::function<Status(const RandomAccessFile& file, const AddRow& add)>;

// Thread safety: the functions below may be called from any thread.
// The rows of the file at `path`: kept from an earlier scan with `key` of the
// unchanged file, else found by opening it and letting `scan` add them (and
// kept when the file allows). The file's open and scan errors.
Result<std::shared_ptr<const FileRows>> ScanRows(const std::string& path, const std::string& key, const ScanFn& scan);
// The rows kept for `path` scanned with `key` while it had identity `id`,
// or nullptr.
std::shared_ptr<const FileRows> CachedRows(const std::string& path, const FileIdentity& id, const std::string& key);
// Keeps `rows` (least recently used scans go first past 256 MiB of rows).
void KeepRows(const std::string& path, const FileIdentity& id, const std::string& key,
              std::shared_ptr<const FileRows> rows);

}  // namespace mindrecord
