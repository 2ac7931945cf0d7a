// TFRecord-style baseline: records framed exactly as TensorFlow frames them
//   uint64 LE length | uint32 masked CRC32C(length) | data | uint32 masked CRC32C(data)
// a buffered sequential reader that checks both checksums (TensorFlow's
// RecordReader), a positional reader driven by a DALI-style `.idx` sidecar
// (one "offset size" text line per record, size including the framing), and
// a buffered writer that can write that sidecar.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord::bench {

// Thread safety: one thread drives a writer.
class TfRecordWriter {
 public:
  // `index_path` empty: no sidecar. Output is buffered in `buffer_size` bytes.
  static Result<std::unique_ptr<TfRecordWriter>> Create(const std::string& path, const std::string& index_path = "",
                                                        size_t buffer_size = 1 << 20);
  ~TfRecordWriter();
  Status Append(std::string_view record);
  // Flushes, writes the sidecar, optionally fsyncs both, closes.
  Status Close(bool sync = true);
  uint64_t records() const { return records_; }
  uint64_t bytes() const { return offset_; }

 private:
  TfRecordWriter() = default;
  Status Flush();
  std::string path_, index_path_;
  int fd_ = -1;
  std::string buf_;
  size_t buffer_size_ = 0;
  std::string index_;
  uint64_t offset_ = 0;
  uint64_t records_ = 0;
};

// Sequential reader, as TensorFlow's RecordReader with an input buffer.
// Thread safety: one thread drives a reader.
class TfRecordReader {
 public:
  static Result<std::unique_ptr<TfRecordReader>> Open(const std::string& path, size_t buffer_size = 256 << 10);
  ~TfRecordReader();
  // The next record's data (both CRCs checked) in *record, valid until the
  // next call; false at a clean end of file.
  Result<bool> Next(std::string_view* record);
  uint64_t offset() const { return file_offset_ - (end_ - pos_); }

 private:
  TfRecordReader() = default;
  Status Fill(size_t need, bool* eof);
  std::string path_;
  int fd_ = -1;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t file_offset_ = 0;  // bytes read from the file so far
};

struct RecordLocation {
  uint64_t offset = 0;  // of the length field
  uint64_t size = 0;    // whole framed record: 12 + length + 4
};

// Reads a DALI `.idx` sidecar.
Result<std::vector<RecordLocation>> ReadIndexFile(const std::string& index_path);
// Builds the same index by walking the framing (length CRCs checked).
Result<std::vector<RecordLocation>> ScanIndex(const std::string& path);

// Positional reader over an index. Thread safety: Read() may run on many
// threads at once (pread only).
class TfRecordRandomReader {
 public:
  static Result<std::unique_ptr<TfRecordRandomReader>> Open(const std::string& path,
                                                            std::vector<RecordLocation> index);
  ~TfRecordRandomReader();
  size_t size() const { return index_.size(); }
  // Record i's data, both CRCs checked; points into *scratch.
  Result<std::string_view> Read(size_t i, std::string* scratch) const;

 private:
  TfRecordRandomReader() = default;
  std::string path_;
  int fd_ = -1;
  std::vector<RecordLocation> index_;
};

// Checks one framed record held in memory (12-byte header + data + 4-byte
// footer) and returns its data.
Result<std::string_view> UnframeRecord(std::string_view framed, const std::string& where);

}  // namespace mindrecord::bench
