// FileRowsSource: the base of sources whose rows are byte ranges of files
// (the text, CSV and TFRecord sources), or of their decompressed bytes when
// the scan left an inflate index (mindrecord/inflated_file.h):
// where each row starts and how long it is, found by one scan of each file
// (12 bytes kept per row, shared by the sources of the same unchanged file
// in the process: row_scan_cache.h), and reads of a row's bytes by position through a
// small cache of open files (the descriptors stay few however many files).
// Every file is one shard of the layout, so "files" shuffling moves whole
// files.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "pipeline/nodes/row_scan_cache.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// How much of a file a row scan reads at a time.
inline constexpr size_t kScanChunk = size_t{1} << 20;

// A file source leaf's args.files: a non-empty list of paths, else
// InvalidArgument naming the source's `kind`.
Result<std::vector<std::string>> SourceFiles(const nlohmann::json& args, const std::string& kind);

// Thread safety: Scan once, on one thread, before the source is handed out;
// then as Source.
class FileRowsSource : public Source {
 public:
  using AddRow = mindrecord::AddRow;
  using ScanFn = mindrecord::ScanFn;

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return first_.back(); }
  DatasetLayout Layout() const override;
  // "line at byte 12 of 'a.txt' (row 3)"
  std::string Where(uint64_t id) const override;
  std::vector<std::string> files() const override { return files_; }

 protected:
  // `what` names a row in messages ("line", "record").
  FileRowsSource(std::vector<std::string> files, std::string what, std::vector<std::string> names)
      : files_(std::move(files)), what_(std::move(what)), names_(std::move(names)) {}
  // Each file's rows: kept from an earlier scan of the unchanged file with
  // the same `key` (the grammar's settings; row_scan_cache.h), else found by
  // opening it and letting `scan` add its rows, in order; at most
  // MaxIndexedRows() in all (limits.h).
  Status Scan(const std::string& key, const ScanFn& scan);
  // Bytes of row `id` as scanned (at most UINT32_MAX: longer ones are cut to it).
  uint64_t RowLength(uint64_t id) const {
    const size_t f = FileOf(id);
    return rows_[f]->length[id - first_[f]];
  }
  // Read's loop: hands each row of `ids` that `make` builds (its columns) to
  // `fn`; `make`'s Internal errors stop the read, others are the row's.
  using MakeRow = std::function<Status(uint64_t id, std::vector<Tensor>* cols)>;
  Status ReadEach(const std::vector<uint64_t>& ids, const SourceRowFn& fn, const MakeRow& make) const;
  // Row `id`'s bytes; InvalidArgument naming the row when it is longer
  // than a row may be (kMaxDecompressedRowBytes); the file's read errors;
  // Internal for an id past the rows.
  Result<std::string> RowBytes(uint64_t id) const;

 private:
  size_t FileOf(uint64_t id) const;
  Result<std::shared_ptr<RandomAccessFile>> Open(size_t f) const;

  static constexpr size_t kOpenFiles = 16;
  std::vector<std::string> files_;
  std::string what_;
  std::vector<std::string> names_;
  std::vector<uint64_t> first_{0};                   // first row of each file, then the total
  std::vector<std::shared_ptr<const FileRows>> rows_;  // per file
  mutable std::mutex mu_;
  mutable std::list<std::pair<size_t, std::shared_ptr<RandomAccessFile>>> open_;  // most recent first
};

}  // namespace mindrecord
