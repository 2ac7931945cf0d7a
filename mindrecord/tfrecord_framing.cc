#include "mindrecord/tfrecord_framing.h"

#include <algorithm>
#include <cstring>

#include "mindrecord/crc32c.h"

namespace mindrecord {

namespace {
constexpr uint64_t kMaxRecord = uint64_t{1} << 62;  // longer than any file
}  // namespace

Status TfRecordFramer::Feed(const char* p, size_t n) {
  while (n > 0) {
    if (skip_ > 0) {
      const size_t m = static_cast<size_t>(std::min<uint64_t>(skip_, n));
      skip_ -= m;
      p += m;
      n -= m;
      off_ += m;
      if (skip_ == 0) {
        MR_RETURN_IF_ERROR(add_(start_, length_));
        ++records_;
      }
      continue;
    }
    const size_t m = std::min(n, static_cast<size_t>(kTfRecordHeader) - hdr_.size());
    hdr_.append(p, m);
    p += m;
    n -= m;
    off_ += m;
    if (hdr_.size() < kTfRecordHeader) continue;
    start_ = off_ - kTfRecordHeader;
    uint64_t len;
    std::memcpy(&len, hdr_.data(), 8);
    if (!TfRecordCrcMatches(hdr_.data(), 8)) {
      return Bad(start_, "the length's checksum does not match (not a TFRecord file, or damaged)");
    }
    if (len > kMaxRecord) return Bad(start_, "a record of " + std::to_string(len) + " bytes is longer than any file");
    length_ = kTfRecordHeader + len + kTfRecordFooter;
    skip_ = len + kTfRecordFooter;
    hdr_.clear();
  }
  return Status::OK();
}

Status TfRecordFramer::Finish() const {
  if (skip_ == 0 && hdr_.empty()) return Status::OK();
  const uint64_t at = skip_ > 0 ? start_ : off_ - hdr_.size();
  return Bad(at, "truncated: the stream ends " + std::to_string(skip_ > 0 ? skip_ : kTfRecordHeader - hdr_.size()) +
                     " bytes short of the record's end");
}

Status TfRecordFramer::Bad(uint64_t at, const std::string& why) const {
  return Status::Corruption(path_ + ": record " + std::to_string(records_) + " at byte " + std::to_string(at) +
                            " of the decompressed stream: " + why);
}

Result<StreamCompression> DetectTfRecordCompression(const RandomAccessFile& file) {
  const uint64_t size = file.size();
  char b[kTfRecordHeader];
  const size_t n = static_cast<size_t>(std::min<uint64_t>(size, sizeof(b)));
  MR_RETURN_IF_ERROR(file.ReadAt(0, n, b));
  if (n == kTfRecordHeader && TfRecordCrcMatches(b, 8)) return StreamCompression::kNone;
  const auto u = [&](size_t i) { return static_cast<unsigned char>(b[i]); };
  if (n >= 3 && u(0) == 0x1f && u(1) == 0x8b && u(2) == 8) return StreamCompression::kGzip;
  // RFC 1950: deflate with a window of at most 32 KiB, the header's check bits.
  if (n >= 2 && (u(0) & 0x0f) == 8 && (u(0) >> 4) <= 7 && (u(0) * 256 + u(1)) % 31 == 0) return StreamCompression::kZlib;
  return StreamCompression::kNone;
}

}  // namespace mindrecord
