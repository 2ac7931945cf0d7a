// TFRecord framing, as TensorFlow writes it: each record is a uint64 length,
// the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C of
// the data. For the readers of whole TFRecord streams (a compressed file
// inflated in order): the TFRecordDataset source and the converter.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mindrecord/file.h"
#include "mindrecord/inflated_file.h"
#include "mindrecord/status.h"

namespace mindrecord {

inline constexpr uint64_t kTfRecordHeader = 12;  // the length and its checksum
inline constexpr uint64_t kTfRecordFooter = 4;   // the data's checksum

// The records of a TFRecord stream fed to it in pieces, in order: `add` gets
// each complete record's first byte (its header) and length with framing,
// offsets counted in the stream. Errors are Corruption naming `path`, the
// record and its offset "of the decompressed stream": a length whose
// checksum fails (Feed), a stream ending inside a record (Finish); Feed
// also returns the first error `add` returns.
// Thread safety: one thread at a time.
class TfRecordFramer {
 public:
  using AddRecord = std::function<Status(uint64_t start, uint64_t length)>;
  TfRecordFramer(std::string path, AddRecord add) : path_(std::move(path)), add_(std::move(add)) {}

  Status Feed(const char* p, size_t n);
  Status Finish() const;
  uint64_t records() const { return records_; }

 private:
  Status Bad(uint64_t at, const std::string& why) const;

  std::string path_;
  AddRecord add_;
  std::string hdr_;      // the header read so far
  uint64_t start_ = 0;   // the current record's first byte
  uint64_t length_ = 0;  // and its length with framing
  uint64_t skip_ = 0;    // bytes of its data and footer still to pass
  uint64_t off_ = 0;     // bytes fed
  uint64_t records_ = 0;  // complete records
};

// How a TFRecord file is stored, from its first bytes: uncompressed when they
// start a record (a length whose checksum matches) or the file is empty,
// gzip or zlib by their headers, else uncompressed (whose framing error
// then names the file). The file's read errors.
Result<StreamCompression> DetectTfRecordCompression(const RandomAccessFile& file);

}  // namespace mindrecord
