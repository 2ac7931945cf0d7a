// ShardReader::ReadRows and ReadRowViews: lists of rows in any order, and how
// rows are decoded into views.
#include <map>

#include "readers/shard_reader_impl.h"

namespace mindrecord {

using reader_internal::Framed;
using reader_internal::PartsRef;
using reader_internal::Shard;

namespace {
// Rows of a mapped shard whose bytes are prefetched ahead of the row handed
// out: a random row's first bytes are a cache (and TLB) miss.
constexpr size_t kReadAheadRows = 6;
}  // namespace

Status ShardReader::Impl::DecodeView(const PartsRef& p, const Projection* proj, RowView* out) const {
  const Shard& s = *p.shard;
  out->Begin(p.mapped ? &s.mapping : nullptr, s.mapped_bytes, p.stored_bytes);
  Status st = Status::OK();
  if (!proj || proj->need_raw) {
    Result<std::string_view> msgpack = PlainRawPart(decompressor.get(), p.raw, &out->raw_buffer());
    if (msgpack.ok()) {
      st = codec->DecodeRawView(*msgpack, p.mapped && msgpack->data() == p.raw.data(), out);
    } else {
      st = msgpack.status();
    }
  }
  if (st.ok() && (!proj || proj->need_blob)) {
    if (decompressor) {
      st = decompressor->DecompressBlob(*codec, p.blob, &out->blob_buffer());
      if (st.ok()) st = codec->DecodeBlobView(out->blob_buffer(), false, out);
    } else {
      st = codec->DecodeBlobView(p.blob, p.mapped, out);
    }
  }
  if (!st.ok()) return st.WithContext(s.path + ": row " + std::to_string(p.local));
  return Status::OK();
}

Status ShardReader::Impl::ReadParts(const std::vector<uint64_t>& row_ids, bool want_raw, bool want_blob,
                                    const IndexedPartsFn& fn) const {
  // Remote shards: the pieces of all the rows are fetched together first.
  if (remote_fs) PrefetchRemote(row_ids, want_raw, want_blob);
  // First every row is located. Rows on direct shards have their parts
  // queued, in row order, on one AioReadStream per shard before the first is
  // taken, so up to direct_rows_in_flight reads are in flight while rows are
  // decoded; rows on mapped shards are prefetched a few rows ahead.
  struct Pending {
    Status status;          // locating or verifying the row failed
    const Shard* shard = nullptr;
    bool streamed = false;  // a direct shard's stream holds the parts
    uint64_t local = 0;
    CompactLocator loc{};
  };
  std::vector<Pending> pending(row_ids.size());
  std::map<const Shard*, std::unique_ptr<AioReadStream>> streams;
  for (size_t i = 0; i < row_ids.size(); ++i) {
    Pending& p = pending[i];
    const uint64_t id = row_ids[i];
    if (id >= total_rows) {
      p.status = Status::InvalidArgument("row id " + std::to_string(id) + " is out of range (the dataset has " +
                                         std::to_string(total_rows) + " rows)");
      continue;
    }
    const Shard& s = ShardOf(id);
    p.shard = &s;
    p.local = id - s.first_row;
    // Walking a group's prefixes verifies its pages first.
    p.status = LocateRow(s, p.local, want_raw, want_blob, &p.loc);
    if (!p.status.ok() || !s.direct) continue;
    const CompactLocator& l = p.loc;
    // A page's first touch reads it whole for its checksum, synchronously.
    if (want_raw) p.status = VerifyPage(s, l.raw_page);
    if (p.status.ok() && want_blob) p.status = VerifyPage(s, l.blob_page);
    if (!p.status.ok()) continue;
    auto& stream = streams[&s];
    if (!stream) {
      stream = std::make_unique<AioReadStream>(*s.direct, AioContextPool::Shared(options.direct_rows_in_flight),
                                               options.direct_read_ahead);
    }
    if (want_raw) stream->Add(s.header.PageOffset(l.raw_page) + l.raw_begin, l.raw_end - l.raw_begin);
    if (want_blob) stream->Add(s.header.PageOffset(l.blob_page) + l.blob_begin, l.blob_end - l.blob_begin);
    p.streamed = true;
  }
  auto prefetch = [&](size_t i) {
    const Pending& p = pending[i];
    const char* map = p.status.ok() && p.shard ? p.shard->file->MappedData() : nullptr;
    if (map == nullptr) return;
    if (want_raw) __builtin_prefetch(map + p.shard->header.PageOffset(p.loc.raw_page) + p.loc.raw_begin);
    if (want_blob) __builtin_prefetch(map + p.shard->header.PageOffset(p.loc.blob_page) + p.loc.blob_begin);
  };
  for (size_t i = 0; i < std::min(kReadAheadRows, pending.size()); ++i) prefetch(i);
  RowParts parts;  // pread buffers, reused from row to row
  for (size_t i = 0; i < row_ids.size(); ++i) {
    if (i + kReadAheadRows < pending.size()) prefetch(i + kReadAheadRows);
    Pending& p = pending[i];
    PartsRef ref;
    ref.shard = p.shard;
    ref.local = p.local;
    const CompactLocator& l = p.loc;
    ref.stored_bytes = (want_raw ? l.raw_end - l.raw_begin : 0) + (want_blob ? l.blob_end - l.blob_begin : 0);
    if (!p.status.ok()) {
      MR_RETURN_IF_ERROR(fn(i, p.status, ref));
      continue;
    }
    const Shard& s = *p.shard;
    auto it = p.streamed ? streams.find(&s) : streams.end();
    if (it == streams.end() || !it->second) {
      // Mapped (views of the mapping) or pread (into `parts`), or a direct
      // row whose stream failed earlier (read on its own).
      Status st = FetchParts(s, l, p.local, want_raw, want_blob, &parts);
      ref.raw = parts.raw;
      ref.blob = parts.blob;
      ref.mapped = st.ok() && s.mapping != nullptr;
      MR_RETURN_IF_ERROR(fn(i, st, st.ok() ? ref : PartsRef{}));
      continue;
    }
    AioReadStream& stream = *it->second;
    AioReadStream::Block raw_block, blob_block;
    Status st;
    if (want_raw) {
      auto b = stream.Next();
      if (b.ok()) raw_block = std::move(b).value();
      else st = b.status();
    }
    if (st.ok() && want_blob) {
      auto b = stream.Next();
      if (b.ok()) blob_block = std::move(b).value();
      else st = b.status();
    }
    if (!st.ok()) {
      // A failed read may leave the stream out of step with the rows: this
      // row and the shard's later rows are read on their own, which also
      // reports each row's own error.
      it->second.reset();
      st = FetchParts(s, l, p.local, want_raw, want_blob, &parts);
      ref.raw = parts.raw;
      ref.blob = parts.blob;
      MR_RETURN_IF_ERROR(fn(i, st, st.ok() ? ref : PartsRef{}));
      continue;
    }
    if (want_raw) {
      auto r = Framed(s, raw_block.view(), s.header.PageOffset(l.raw_page) + l.raw_begin, "raw", p.local);
      if (r.ok()) ref.raw = *r;
      else st = r.status();
    }
    if (st.ok() && want_blob) {
      auto r = Framed(s, blob_block.view(), s.header.PageOffset(l.blob_page) + l.blob_begin, "blob", p.local);
      if (r.ok()) ref.blob = *r;
      else st = r.status();
    }
    Status out = fn(i, st, st.ok() ? ref : PartsRef{});
    stream.Recycle(std::move(raw_block));
    stream.Recycle(std::move(blob_block));
    MR_RETURN_IF_ERROR(out);
  }
  return Status::OK();
}

Status ShardReader::ReadRows(const std::vector<uint64_t>& row_ids, const Projection* projection,
                             const std::function<Status(size_t, Result<Row>&&)>& fn) const {
  const bool want_raw = !projection || projection->need_raw;
  const bool want_blob = !projection || projection->need_blob;
  const std::vector<bool> select = impl_->Select(projection);
  return impl_->ReadParts(row_ids, want_raw, want_blob, [&](size_t i, const Status& st, const PartsRef& p) {
    if (!st.ok()) return fn(i, Result<Row>(st));
    Row row;
    Status d = impl_->Decode(*p.shard, p.local, p.raw, p.blob, projection, select, &row);
    if (!d.ok()) return fn(i, Result<Row>(d));
    return fn(i, std::move(row));
  });
}

Status ShardReader::ReadRowViews(const std::vector<uint64_t>& row_ids, const Projection* projection,
                                 const std::function<Status(size_t, const Status&, const RowView&)>& fn) const {
  const bool want_raw = !projection || projection->need_raw;
  const bool want_blob = !projection || projection->need_blob;
  RowView view;
  view.Select(schema(), projection ? projection->field_ids : std::vector<int>{});
  return impl_->ReadParts(row_ids, want_raw, want_blob, [&](size_t i, const Status& st, const PartsRef& p) {
    Status d = st.ok() ? impl_->DecodeView(p, projection, &view) : st;
    if (!d.ok()) view.Begin(nullptr, {}, 0);
    return fn(i, d, view);
  });
}

}  // namespace mindrecord
