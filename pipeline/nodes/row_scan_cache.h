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
#include "mindrecord/inflated_file.h"
#include "mindrecord/limits.h"
#include "readers/verified_pages.h"

namespace mindrecord {

// The rows of one file: first byte and length (capped at UINT32_MAX); of a
// compressed file, offsets into its decompressed bytes, and the index that
// reads them (mindrecord/inflated_file.h).
struct FileRows {
  std::vector<uint64_t> start;
  std::vector<uint32_t> length;
  std::shared_ptr<const InflateIndex> inflate;
  // While scanning (ScanRows sets them): the rows of the source's files
  // before this one, and the most the source takes.
  uint64_t before = 0, limit = UINT64_MAX;
  // Records a row of the file being scanned: its first byte and length;
  // false, recording nothing, once the source holds `limit` rows.
  [[nodiscard]] bool Add(uint64_t first, uint64_t n) {
    if (start.size() >= limit - before) return false;
    start.push_back(first);
    length.push_back(static_cast<uint32_t>(n < UINT32_MAX ? n : UINT32_MAX));
    return true;
  }
  // The scan's error when Add refused a row of `path`: `rows` names them ("lines").
  Status Full(const std::string& path, const std::string& rows) const { return TooManyIndexedRows(path, limit, rows); }
  uint64_t bytes() const {
    return start.size() * (sizeof(uint64_t) + sizeof(uint32_t)) + (inflate ? inflate->bytes() : 0);
  }
};

// Fills `rows` with the rows of `file` (in order); stops with rows->Full()
// when Add refuses one.
using ScanFn = std::function<Status(const RandomAccessFile& file, FileRows* rows)>;
// A scan that only adds rows: an error stops it.
using AddRow = std::function<Status(uint64_t start, uint64_t length)>;

// Thread safety: the functions below may be called from any thread.
// The rows of the file at `path`: kept from an earlier scan with `key` of the
// unchanged file, else found by opening it and letting `scan` add them
// (kept when the file allows). With `before` rows in the files before it,
// its source takes at most `limit` (limits.h, MaxIndexedRows): NotSupported
// naming the file past that. The file's open and scan errors.
Result<std::shared_ptr<const FileRows>> ScanRows(const std::string& path, const std::string& key, const ScanFn& scan,
                                                 uint64_t before, uint64_t limit);
// ScanRows of each of `files`, at most MaxIndexedRows() rows in all: the
// rows one source indexes.
Result<std::vector<std::shared_ptr<const FileRows>>> ScanSourceFiles(const std::vector<std::string>& files,
                                                                     const std::string& key, const ScanFn& scan);
// The rows kept for `path` scanned with `key` while it had identity `id`,
// or nullptr.
std::shared_ptr<const FileRows> CachedRows(const std::string& path, const FileIdentity& id, const std::string& key);
// Keeps `rows` (least recently used scans go first past 256 MiB of rows).
void KeepRows(const std::string& path, const FileIdentity& id, const std::string& key,
              std::shared_ptr<const FileRows> rows);

}  // namespace mindrecord
