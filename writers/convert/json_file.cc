#include "writers/convert/json_file.h"

#include <algorithm>
#include <iterator>

namespace mindrecord::convert {
namespace {

// The file, one piece in memory at a time.
struct Pieces {
  static constexpr uint64_t kPiece = 1 << 20;
  const RandomAccessFile* file = nullptr;
  std::string buf;
  JsonFileHandler::Position pos;  // the next byte: buf[pos.at]
  Status status;

  // False at the end of the file or after a read error (kept in status).
  bool Ready() { return pos.at < buf.size() || Refill(); }
  bool Refill() {
    const uint64_t next = pos.base + buf.size();
    if (!status.ok() || next >= file->size()) return false;
    pos.base = next;
    pos.at = 0;
    buf.resize(static_cast<size_t>(std::min(kPiece, file->size() - next)));
    status = file->ReadAt(pos.base, buf.size(), buf.data());
    return status.ok();
  }
};

// An input iterator over Pieces, as nlohmann's iterator input adapter reads
// one: `it != end`, `*it`, `++it`. Copies share the position.
class PieceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  explicit PieceIterator(Pieces* p) : p_(p) {}
  reference operator*() const { return p_->buf[p_->pos.at]; }
  PieceIterator& operator++() {
    ++p_->pos.at;
    return *this;
  }
  // Only ever compared with the end (a null iterator).
  bool operator!=(const PieceIterator&) const { return p_->Ready(); }
  bool operator==(const PieceIterator& o) const { return !(*this != o); }

 private:
  Pieces* p_;
};

}  // namespace

bool JsonFileHandler::parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
  error_ = e.what();
  return false;
}

Status ParseJsonFile(const RandomAccessFile& file, JsonFileHandler& handler) {
  Pieces pieces;
  pieces.file = &file;
  handler.position_ = &pieces.pos;
  handler.error_.clear();
  const bool ok = nlohmann::json::sax_parse(PieceIterator(&pieces), PieceIterator(nullptr), &handler);
  handler.position_ = nullptr;
  if (!pieces.status.ok()) return pieces.status;
  if (!handler.error_.empty()) return Status::Corruption("invalid JSON: " + handler.error_);
  if (!ok) return Status::Cancelled("stopped by its reader");
  return Status::OK();
}

}  // namespace mindrecord::convert
