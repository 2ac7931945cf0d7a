#include "mindrecord/inflated_file.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstring>
#include <list>
#include <map>
#include <utility>

namespace mindrecord {

namespace {

constexpr size_t kWindow = 32768;      // deflate's history
constexpr size_t kInChunk = 64 << 10;  // compressed bytes the scan reads at a time
constexpr size_t kCursorChunk = 16 << 10;  // and a cursor (a read from a point needs a span's worth or less)
constexpr int kRawBits = -15;

int HeaderBits(StreamCompression c) { return c == StreamCompression::kGzip ? 15 + 16 : 15; }
uint64_t TrailerBytes(StreamCompression c) { return c == StreamCompression::kGzip ? 8 : 4; }

std::string StreamWhere(const std::string& path, StreamCompression c, uint64_t at) {
  return path + ": the " + StreamCompressionName(c) + " stream at compressed byte " + std::to_string(at);
}

// Inflated segments by (index id, segment number), least recently used
// first out past kInflatedCacheBytes. Thread safety: any thread.
class SegmentCache {
 public:
  static SegmentCache& Get() {
    static auto* c = new SegmentCache();  // never destroyed: files may outlive static destruction
    return *c;
  }
  std::shared_ptr<const std::string> Find(uint64_t index, size_t segment) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find({index, segment});
    if (it == map_.end()) return nullptr;
    lru_.splice(lru_.end(), lru_, it->second);
    return it->second->second;
  }
  void Keep(uint64_t index, size_t segment, std::shared_ptr<const std::string> bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const Key key{index, segment};
    if (map_.count(key) != 0) return;
    bytes_ += bytes->size();
    map_[key] = lru_.insert(lru_.end(), {key, std::move(bytes)});
    while (bytes_ > kInflatedCacheBytes) {
      bytes_ -= lru_.front().second->size();
      map_.erase(lru_.front().first);
      lru_.pop_front();
    }
  }

 private:
  using Key = std::pair<uint64_t, size_t>;
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<const std::string>>> lru_;  // least recently used first
  std::map<Key, decltype(lru_)::iterator> map_;
  uint64_t bytes_ = 0;
};

std::atomic<uint64_t> next_index_id{1};

}  // namespace

Result<StreamCompression> ParseStreamCompression(const std::string& name) {
  std::string n = name;
  for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (n.empty() || n == "none") return StreamCompression::kNone;
  if (n == "gzip") return StreamCompression::kGzip;
  if (n == "zlib") return StreamCompression::kZlib;
  return Status::InvalidArgument("compression must be '', 'gzip' or 'zlib', got '" + name + "'");
}

const char* StreamCompressionName(StreamCompression c) {
  switch (c) {
    case StreamCompression::kNone: return "uncompressed";
    case StreamCompression::kGzip: return "gzip";
    case StreamCompression::kZlib: return "zlib";
  }
  return "?";
}

uint64_t InflateIndex::bytes() const {
  uint64_t b = sizeof(*this);
  for (const auto& p : points) b += sizeof(p) + p.window.size();
  return b;
}

Result<std::shared_ptr<const InflateIndex>> InflateScan(const RandomAccessFile& file, StreamCompression c,
                                                        const InflateSink& sink, const InflateScanOptions& options) {
  if (c == StreamCompression::kNone) return Status::InvalidArgument("InflateScan: the file is not compressed");
  auto index = std::make_shared<InflateIndex>();
  index->id = next_index_id.fetch_add(1);
  index->compression = c;
  index->span = std::max<uint64_t>(options.span, 1);
  const size_t max_points = std::max<size_t>(options.max_points, 2);
  index->points.push_back(InflatePoint{0, 0, 0, true, {}});

  z_stream zs{};
  if (inflateInit2(&zs, HeaderBits(c)) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};

  std::vector<unsigned char> in(kInChunk), win(kWindow);
  size_t wpos = 0;
  bool wrapped = false;
  const uint64_t size = file.size();
  uint64_t next_read = 0, out = 0, last = 0;
  bool ended = false;
  auto bad = [&](uint64_t at, const std::string& why) { return Status::Corruption(StreamWhere(file.path(), c, at) + ": " + why); };
  for (;;) {
    if (zs.avail_in == 0) {
      if (next_read == size) break;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kInChunk, size - next_read));
      MR_RETURN_IF_ERROR(file.ReadAt(next_read, n, reinterpret_cast<char*>(in.data())));
      zs.next_in = in.data();
      zs.avail_in = static_cast<uInt>(n);
      next_read += n;
    }
    if (wpos == kWindow) {
      wpos = 0;
      wrapped = true;
    }
    zs.next_out = win.data() + wpos;
    zs.avail_out = static_cast<uInt>(kWindow - wpos);
    const int r = inflate(&zs, Z_BLOCK);
    const size_t produced = kWindow - wpos - zs.avail_out;
    const uint64_t at = next_read - zs.avail_in;  // the next compressed byte to decode
    if (r == Z_NEED_DICT) return bad(at, "it needs a preset dictionary (not a TFRecord stream)");
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      return bad(at, std::string("damaged (") + (zs.msg != nullptr ? zs.msg : "inflate failed") + ")");
    }
    if (produced > 0) {
      MR_RETURN_IF_ERROR(sink(reinterpret_cast<const char*>(win.data() + wpos), produced));
      out += produced;
      wpos += produced;
    }
    if (r == Z_STREAM_END) {
      if (at == size) {
        ended = true;
        break;
      }
      if (c == StreamCompression::kZlib) return bad(at, std::to_string(size - at) + " bytes follow the end of the stream");
      // The next gzip member: a header, then a stream of its own.
      if (inflateReset(&zs) != Z_OK) return Status::Internal("zlib: inflateReset failed");
      if (out - last >= index->span) {
        index->points.push_back(InflatePoint{at, out, 0, true, {}});
        last = out;
      }
      continue;
    }
    if (r == Z_BUF_ERROR) {
      if (zs.avail_in != 0) return bad(at, "inflate made no progress");
      continue;  // more input
    }
    // After a block's end (bit 128), not before the stream's last block (bit 64).
    if ((zs.data_type & 128) != 0 && (zs.data_type & 64) == 0 && out > 0 && out - last >= index->span) {
      InflatePoint p;
      p.in = at;
      p.out = out;
      p.bits = static_cast<uint8_t>(zs.data_type & 7);
      const auto* w = reinterpret_cast<const char*>(win.data());
      if (wrapped) p.window.assign(w + wpos, kWindow - wpos);
      p.window.append(w, wpos);
      index->points.push_back(std::move(p));
      last = out;
      if (index->points.size() > max_points) {
        // Every other point goes (the start stays); the span doubles.
        std::vector<InflatePoint> kept;
        for (size_t i = 0; i < index->points.size(); i += 2) kept.push_back(std::move(index->points[i]));
        index->points = std::move(kept);
        index->span *= 2;
        last = index->points.back().out;
      }
    }
  }
  if (!ended) {
    return bad(next_read - zs.avail_in, size == 0 ? "the file is empty" : "truncated: the file ends inside the stream");
  }
  index->size = out;
  return std::shared_ptr<const InflateIndex>(std::move(index));
}

struct InflatedFile::Cursor {
  z_stream zs{};
  bool init = false;
  bool header = false;  // decoding a gzip / zlib header and trailer (not raw deflate)
  bool done = false;    // the zlib stream ended
  uint64_t next_read = 0;  // compressed offset of the next byte to read into `in`
  uint64_t out = 0;        // decompressed offset of the next byte out
  std::vector<unsigned char> in = std::vector<unsigned char>(kCursorChunk);
  std::vector<unsigned char> skip = std::vector<unsigned char>(kWindow);
  ~Cursor() {
    if (init) inflateEnd(&zs);
  }
};

InflatedFile::InflatedFile(std::shared_ptr<const RandomAccessFile> raw, std::shared_ptr<const InflateIndex> index)
    : raw_(std::move(raw)), index_(std::move(index)) {}

InflatedFile::~InflatedFile() = default;

Status InflatedFile::Start(Cursor& c, const InflatePoint& p) const {
  const int bits = p.member_start ? HeaderBits(index_->compression) : kRawBits;
  const int r = c.init ? inflateReset2(&c.zs, bits) : inflateInit2(&c.zs, bits);
  if (r != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  c.init = true;
  c.header = p.member_start;
  c.done = false;
  c.zs.avail_in = 0;
  c.next_read = p.in;
  c.out = p.out;
  if (p.member_start) return Status::OK();
  const auto bad = [&] { return Status::Corruption(StreamWhere(path(), index_->compression, p.in) + ": cannot resume inflating there"); };
  if (p.bits > 0) {
    char b;
    MR_RETURN_IF_ERROR(raw_->ReadAt(p.in - 1, 1, &b));
    if (inflatePrime(&c.zs, p.bits, static_cast<unsigned char>(b) >> (8 - p.bits)) != Z_OK) return bad();
  }
  if (!p.window.empty() &&
      inflateSetDictionary(&c.zs, reinterpret_cast<const Bytef*>(p.window.data()), static_cast<uInt>(p.window.size())) != Z_OK) {
    return bad();
  }
  return Status::OK();
}

Status InflatedFile::Refill(Cursor& c) const {
  const uint64_t size = raw_->size();
  if (c.next_read >= size) {
    return Status::Corruption(StreamWhere(path(), index_->compression, c.next_read) +
                              ": the file ends there now (it changed since it was indexed)");
  }
  const size_t n = static_cast<size_t>(std::min<uint64_t>(c.in.size(), size - c.next_read));
  MR_RETURN_IF_ERROR(raw_->ReadAt(c.next_read, n, reinterpret_cast<char*>(c.in.data())));
  c.zs.next_in = c.in.data();
  c.zs.avail_in = static_cast<uInt>(n);
  c.next_read += n;
  return Status::OK();
}

Status InflatedFile::Inflate(Cursor& c, char* dst, size_t n) const {
  const StreamCompression comp = index_->compression;
  while (n > 0) {
    const uint64_t at = c.next_read - c.zs.avail_in;
    const auto bad = [&](const std::string& why) {
      return Status::Corruption(StreamWhere(path(), comp, at) + ": " + why + " (it changed since it was indexed)");
    };
    if (c.done) return bad("the stream ends before the decompressed byte " + std::to_string(c.out + n));
    if (c.zs.avail_in == 0) MR_RETURN_IF_ERROR(Refill(c));
    const size_t want = dst != nullptr ? std::min<size_t>(n, UINT_MAX / 2) : std::min(n, c.skip.size());
    c.zs.next_out = dst != nullptr ? reinterpret_cast<Bytef*>(dst) : c.skip.data();
    c.zs.avail_out = static_cast<uInt>(want);
    const int r = inflate(&c.zs, Z_NO_FLUSH);
    const size_t got = want - c.zs.avail_out;
    c.out += got;
    n -= got;
    if (dst != nullptr) dst += got;
    if (r == Z_STREAM_END) {
      if (comp == StreamCompression::kZlib) {
        c.done = true;
        continue;
      }
      if (!c.header) {  // raw deflate from an access point: the member's trailer is still to skip
        for (uint64_t k = TrailerBytes(comp); k > 0;) {
          if (c.zs.avail_in == 0) MR_RETURN_IF_ERROR(Refill(c));
          const uInt m = static_cast<uInt>(std::min<uint64_t>(k, c.zs.avail_in));
          c.zs.next_in += m;
          c.zs.avail_in -= m;
          k -= m;
        }
      }
      if (inflateReset2(&c.zs, HeaderBits(comp)) != Z_OK) return Status::Internal("zlib: inflateReset2 failed");
      c.header = true;
      continue;
    }
    if (r == Z_BUF_ERROR && c.zs.avail_in == 0) continue;
    if (r != Z_OK) return bad(std::string("it no longer inflates (") + (c.zs.msg != nullptr ? c.zs.msg : "error") + ")");
  }
  return Status::OK();
}

Status InflatedFile::ReadAt(uint64_t offset, size_t n, char* out) const {
  const uint64_t size = index_->size;
  if (offset > size || n > size - offset) {
    return Status::Corruption(path() + ": a read of " + std::to_string(n) + " bytes at decompressed byte " +
                              std::to_string(offset) + " runs past the end of its " + std::to_string(size) +
                              " decompressed bytes");
  }
  const auto& pts = index_->points;
  while (n > 0) {
    const size_t seg = static_cast<size_t>(
        std::upper_bound(pts.begin(), pts.end(), offset, [](uint64_t o, const InflatePoint& p) { return o < p.out; }) -
        pts.begin() - 1);
    const uint64_t first = pts[seg].out, end = seg + 1 < pts.size() ? pts[seg + 1].out : size;
    if (end - first > kMaxCachedSegment) {
      // Inflated up to where the read leaves this segment, not kept.
      const size_t m = static_cast<size_t>(std::min<uint64_t>(n, end - offset));
      MR_RETURN_IF_ERROR(InflateRange(offset, m, out));
      offset += m;
      out += m;
      n -= m;
      continue;
    }
    std::shared_ptr<const std::string> bytes = SegmentCache::Get().Find(index_->id, seg);
    if (!bytes) {
      auto inflated = std::make_shared<std::string>(static_cast<size_t>(end - first), '\0');
      MR_RETURN_IF_ERROR(InflateRange(first, inflated->size(), inflated->data()));
      bytes = inflated;
      SegmentCache::Get().Keep(index_->id, seg, bytes);
    }
    const size_t m = static_cast<size_t>(std::min<uint64_t>(n, end - offset));
    std::memcpy(out, bytes->data() + (offset - first), m);
    offset += m;
    out += m;
    n -= m;
  }
  return Status::OK();
}

Status InflatedFile::InflateRange(uint64_t offset, size_t n, char* out) const {
  if (n == 0) return Status::OK();
  const auto& pts = index_->points;
  const auto point = std::prev(std::upper_bound(pts.begin(), pts.end(), offset,
                                                [](uint64_t o, const InflatePoint& p) { return o < p.out; }));
  std::unique_ptr<Cursor> c;
  bool placed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The cursor nearest before `offset` and not before the point: continuing it
    // inflates the least.
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      const uint64_t at = (*it)->out;
      if (at >= point->out && at <= offset && (best == idle_.end() || at > (*best)->out)) best = it;
    }
    if (best != idle_.end()) {
      placed = true;
    } else if (idle_.size() >= kIdleCursors) {
      best = idle_.begin();  // the least recently used one, started again
    }
    if (best != idle_.end()) {
      c = std::move(*best);
      idle_.erase(best);
    }
  }
  if (!c) c = std::make_unique<Cursor>();
  if (!placed) MR_RETURN_IF_ERROR(Start(*c, *point));
  MR_RETURN_IF_ERROR(Inflate(*c, nullptr, static_cast<size_t>(offset - c->out)));
  MR_RETURN_IF_ERROR(Inflate(*c, out, n));
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(c));
  if (idle_.size() > kIdleCursors) idle_.erase(idle_.begin());
  return Status::OK();
}

}  // namespace mindrecord
