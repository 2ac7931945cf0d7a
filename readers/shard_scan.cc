// ShardReader::Scan and ScanViews: rows in order, each page read (and
// verified) once.
#include <cstring>
#include <deque>

#include "mindrecord/constants.h"
#include "readers/shard_reader_impl.h"

namespace mindrecord {

using reader_internal::PartsRef;
using reader_internal::Shard;

namespace {
// Rows ahead whose blob length prefix a scan prefetches.
constexpr uint64_t kScanAheadRows = 4;
}  // namespace

Status ShardReader::Impl::ScanParts(uint64_t begin, uint64_t end, bool need_raw, bool need_blob,
                                    const PartsFn& fn) const {
  if (begin > end || end > total_rows) {
    return Status::InvalidArgument("scan range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                   ") is outside the dataset's " + std::to_string(total_rows) + " rows");
  }
  // Pages are read once (and verified) and rows served from them. pread
  // reads, per row group, the bytes of the rows the scan needs. A direct
  // shard's pages are queued on an AioReadStream in the order the rows need
  // them, so the next pages are being read while rows are decoded; a page
  // that is already verified (or carries no checksum) is read only across
  // the rows the scan needs.
  struct PageCache {
    int64_t page = -1;
    size_t group = SIZE_MAX;     // pread: the row group whose rows `bytes` holds; else the group last walked
    const char* base = nullptr;  // the page's bytes [first, end)
    uint64_t first = 0, end = 0;
    std::string bytes;           // pread
    AioReadStream::Block block;  // direct
    PageBytes held() const { return {base, first, end}; }
  } raw_cache, blob_cache;
  struct Queued {
    uint64_t page, begin, end;  // bytes [begin, end) of the page
  };
  std::unique_ptr<AioReadStream> stream;
  std::deque<Queued> queued;  // on `stream`, in order
  auto load = [&](const Shard& s, PageCache& c, uint64_t page) -> Status {
    c.page = -1;
    c.group = SIZE_MAX;
    c.first = 0;
    const uint64_t off = s.header.PageOffset(page);
    const uint64_t used = s.header.pages[page].used_bytes;
    bool whole = true;
    c.end = used;
    if (const char* map = s.file->MappedData()) {
      c.base = map + off;
    } else if (stream) {
      if (queued.empty() || queued.front().page != page) {
        return Status::Internal(s.path + ": direct scan needs page " + std::to_string(page) +
                                " out of the queued order");
      }
      const Queued q = queued.front();
      queued.pop_front();
      stream->Recycle(std::move(c.block));
      MR_ASSIGN_OR_RETURN(c.block, stream->Next());
      c.base = c.block.view().data();
      c.first = q.begin;
      c.end = q.end;
      whole = q.begin == 0 && q.end == used;
    } else {
      c.bytes.resize(used);
      MR_RETURN_IF_ERROR(s.file->ReadAt(off, c.bytes.size(), c.bytes.data()));
      c.base = c.bytes.data();
    }
    // A partial read was only planned for a page that needs no verification.
    MR_RETURN_IF_ERROR(VerifyPage(s, page, whole ? c.base : nullptr));
    c.page = static_cast<int64_t>(page);
    return Status::OK();
  };
  auto view = [&](const Shard& s, PageCache& c, uint64_t page, uint64_t b, uint64_t e, const char* part,
                  uint64_t row) -> Result<std::string_view> {
    if (c.page != static_cast<int64_t>(page)) MR_RETURN_IF_ERROR(load(s, c, page));
    const char* base = c.base + (b - c.first);
    uint64_t len;
    std::memcpy(&len, base, 8);
    if (len != e - b - kLengthPrefix) {
      return Status::Corruption(s.path + ": row " + std::to_string(row) + ": " + part + " part at page " +
                                std::to_string(page) + " offset " + std::to_string(b) + " has length " +
                                std::to_string(len) + ", expected " + std::to_string(e - b - kLengthPrefix));
    }
    return std::string_view(base + kLengthPrefix, e - b - kLengthPrefix);
  };
  uint64_t row_id = begin;
  while (row_id < end) {
    const Shard& s = ShardOf(row_id);
    const RowMap& map = *s.rows;
    raw_cache.page = blob_cache.page = -1;
    const uint64_t shard_end = std::min(end, s.first_row + s.header.num_rows());
    stream.reset();
    queued.clear();
    if (s.direct) {
      // Queue each page at its first use, mirroring the loop's cache misses:
      // the span of the rows the scan needs where the group is walked, else
      // the group's whole part (the walk reads its prefixes from it).
      std::vector<Queued> plan;
      int64_t last_raw = -1, last_blob = -1;
      size_t raw_at = 0, blob_at = 0;
      auto use = [&](int64_t* last, size_t* at, uint64_t page, uint64_t b, uint64_t e) {
        if (*last != static_cast<int64_t>(page)) {
          *last = static_cast<int64_t>(page);
          *at = plan.size();
          plan.push_back({page, b, e});
        }
        plan[*at].begin = std::min(plan[*at].begin, b);
        plan[*at].end = std::max(plan[*at].end, e);
      };
      const uint64_t first_local = row_id - s.first_row, end_local = shard_end - s.first_row;
      for (size_t g = map.GroupOf(first_local); g < map.num_groups() && map.group_first_row(g) < end_local; ++g) {
        const uint64_t r0 = std::max(first_local, map.group_first_row(g));
        const uint64_t r1 = std::min(end_local, map.group_end_row(g)) - 1;
        for (RowMap::Part part : {RowMap::Part::kRaw, RowMap::Part::kBlob}) {
          const bool raw = part == RowMap::Part::kRaw;
          if (!(raw ? need_raw : need_blob)) continue;
          uint64_t b = map.GroupBegin(g, part), e = map.GroupEnd(g, part);
          if (map.Walked(g, part)) {
            CompactLocator l0{}, l1{};
            map.Fill(g, r0, raw, !raw, &l0);
            map.Fill(g, r1, raw, !raw, &l1);
            b = raw ? l0.raw_begin : l0.blob_begin;
            e = raw ? l1.raw_end : l1.blob_end;
          }
          if (raw) use(&last_raw, &raw_at, map.GroupPage(g, part), b, e);
          else use(&last_blob, &blob_at, map.GroupPage(g, part), b, e);
        }
      }
      const ReaderOptions& o = options;
      stream = std::make_unique<AioReadStream>(*s.direct, AioContextPool::Shared(o.direct_queue_depth),
                                               o.direct_read_ahead);
      for (Queued q : plan) {
        if (NeedsVerify(s, q.page)) {
          q.begin = 0;
          q.end = s.header.pages[q.page].used_bytes;
        }
        stream->Add(s.header.PageOffset(q.page) + q.begin, q.end - q.begin);
        queued.push_back(q);
      }
    }
    const bool pread = !s.direct && s.file->MappedData() == nullptr;
    PartsRef parts;
    parts.shard = &s;
    parts.mapped = s.mapping != nullptr;
    const uint64_t end_local = shard_end - s.first_row;
    // Makes the bytes of row `local`'s part available in `c` and its group walked.
    auto ready = [&](PageCache& c, RowMap::Part part, size_t g, uint64_t local) -> Status {
      const uint32_t page = map.GroupPage(g, part);
      if (!pread) {
        // A group not yet walked is walked from the page bytes just loaded.
        if (c.page == static_cast<int64_t>(page) && c.group == g) return Status::OK();
        if (c.page != static_cast<int64_t>(page)) MR_RETURN_IF_ERROR(load(s, c, page));
        MR_RETURN_IF_ERROR(EnsureWalked(s, g, part, c.held()));
        c.group = g;  // load() forgets it
        return Status::OK();
      }
      if (c.page == static_cast<int64_t>(page) && c.group == g) return Status::OK();
      MR_RETURN_IF_ERROR(EnsureWalked(s, g, part));
      const bool raw = part == RowMap::Part::kRaw;
      CompactLocator l0{}, l1{};
      map.Fill(g, local, raw, !raw, &l0);
      map.Fill(g, std::min(end_local, map.group_end_row(g)) - 1, raw, !raw, &l1);
      c.first = raw ? l0.raw_begin : l0.blob_begin;
      c.end = raw ? l1.raw_end : l1.blob_end;
      c.bytes.resize(c.end - c.first);
      MR_RETURN_IF_ERROR(s.file->ReadAt(s.header.PageOffset(page) + c.first, c.bytes.size(), c.bytes.data()));
      c.base = c.bytes.data();
      c.page = page;
      c.group = g;
      return Status::OK();
    };
    size_t g = SIZE_MAX;
    for (; row_id < shard_end; ++row_id) {
      const uint64_t local = row_id - s.first_row;
      if (g == SIZE_MAX || local >= map.group_end_row(g)) g = map.GroupOf(local);
      if (need_raw) MR_RETURN_IF_ERROR(ready(raw_cache, RowMap::Part::kRaw, g, local));
      if (need_blob) MR_RETURN_IF_ERROR(ready(blob_cache, RowMap::Part::kBlob, g, local));
      CompactLocator l{};
      map.Fill(g, local, need_raw, need_blob, &l);
      if (need_blob && !pread && local + kScanAheadRows < map.group_end_row(g)) {
        // Rows lie ~1 KiB or more apart: the hardware prefetcher loses the
        // stream at each 4 KiB page, so the length prefix a few rows ahead
        // is fetched now (it is in the page's bytes held, which cover the
        // group's rows).
        CompactLocator ahead{};
        map.Fill(g, local + kScanAheadRows, false, true, &ahead);
        if (ahead.blob_page == static_cast<uint64_t>(blob_cache.page) && ahead.blob_begin >= blob_cache.first &&
            ahead.blob_begin < blob_cache.end) {
          __builtin_prefetch(blob_cache.base + (ahead.blob_begin - blob_cache.first));
        }
      }
      parts.local = local;
      if (need_raw) {
        MR_ASSIGN_OR_RETURN(parts.raw, view(s, raw_cache, l.raw_page, l.raw_begin, l.raw_end, "raw", local));
      }
      if (need_blob) {
        MR_ASSIGN_OR_RETURN(parts.blob, view(s, blob_cache, l.blob_page, l.blob_begin, l.blob_end, "blob", local));
      }
      parts.stored_bytes = (need_raw ? l.raw_end - l.raw_begin : 0) + (need_blob ? l.blob_end - l.blob_begin : 0);
      MR_RETURN_IF_ERROR(fn(row_id, parts));
    }
  }
  return Status::OK();
}

Status ShardReader::Scan(uint64_t begin, uint64_t end, const Projection* projection,
                         const std::function<Status(uint64_t, Row&&)>& fn) const {
  const std::vector<bool> select = impl_->Select(projection);
  return impl_->ScanParts(begin, end, !projection || projection->need_raw, !projection || projection->need_blob,
                          [&](uint64_t row_id, const PartsRef& p) {
                            Row row;
                            MR_RETURN_IF_ERROR(impl_->Decode(*p.shard, p.local, p.raw, p.blob, projection, select, &row));
                            return fn(row_id, std::move(row));
                          });
}

Status ShardReader::ScanViews(uint64_t begin, uint64_t end, const Projection* projection,
                              const std::function<Status(uint64_t, const RowView&)>& fn) const {
  RowView view;
  view.Select(schema(), projection ? projection->field_ids : std::vector<int>{});
  return impl_->ScanParts(begin, end, !projection || projection->need_raw, !projection || projection->need_blob,
                          [&](uint64_t row_id, const PartsRef& p) {
                            MR_RETURN_IF_ERROR(impl_->DecodeView(p, projection, &view));
                            return fn(row_id, view);
                          });
}

}  // namespace mindrecord
