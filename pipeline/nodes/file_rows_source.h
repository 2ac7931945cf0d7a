// FileRowsSource: the base of sources whose rows are byte ranges of files
// (the text and CSV sources):
// where each row starts and how long it is, found by one scan of each file
// (12 bytes kept per row), and reads of a row's bytes by position through a
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

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// Thread safety: Scan once, on one thread, before the source is handed out;
// then as Source.
class FileRowsSource : public Source {
 public:
  // Records a row of the file being scanned: its first byte and length.
  using AddRow = std::function<void(uint64_t start, uint64_t length)>;
  using ScanFn = std::function<Status(const RandomAccessFile& file, const AddRow& add)>;

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return start_.size(); }
  DatasetLayout Layout() const override;
  // "line at byte 12 of 'a.txt' (row 3)"
  std::string Where(uint64_t id) const override;
  std::vector<std::string> files() const override { return files_; }

 protected:
  // `what` names a row in messages ("line", "record").
  FileRowsSource(std::vector<std::string> files, std::string what, std::vector<std::string> names)
      : files_(std::move(files)), what_(std::move(what)), names_(std::move(names)) {}
  // Opens each file and lets `scan` add its rows, in order.
  Status Scan(const ScanFn& scan);
  // Bytes of row `id` as scanned (at most UINT32_MAX: longer ones are cut to it).
  uint64_t RowLength(uint64_t id) const { return length_[id]; }
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
  std::vector<uint64_t> first_{0};  // first row of each file, then the total
  std::vector<uint64_t> start_;     // per row: its first byte
  std::vector<uint32_t> length_;    // per row: its length (capped)
  mutable std::mutex mu_;
  mutable std::list<std::pair<size_t, std::shared_ptr<RandomAccessFile>>> open_;  // most recent first
};

}  // namespace mindrecord
