// ShardReader on datasets named by URL: the options that apply, the .db
// fetched for field queries only, and ReadRows' pieces fetched together.
#include <algorithm>
#include <map>

#include "index/index_reader.h"
#include "mindrecord/constants.h"
#include "mindrecord/encryption.h"
#include "readers/header_io.h"
#include "readers/shard_paths.h"
#include "readers/shard_reader_impl.h"

namespace mindrecord {

using reader_internal::Shard;

Result<bool> reader_internal::CheckRemoteOptions(const std::string& path, const ReaderOptions& options) {
  const bool remote = IsRemotePath(path);
  for (const std::string& p : options.shard_paths) {
    if (IsRemotePath(p) != remote) {
      return Status::InvalidArgument(p + ": a file list must name only URLs or only local files (" + path + ")");
    }
  }
  if (!remote) return false;
  if (options.io_mode == IoMode::kMmap || options.io_mode == IoMode::kDirect) {
    return Status::InvalidArgument(path + ": io_mode " + IoModeName(options.io_mode) +
                                   " does not apply to a remote dataset (it is read by ranges over HTTP); use "
                                   "auto or pread");
  }
  if (options.file_system != nullptr) {
    return Status::InvalidArgument(path + ": ReaderOptions::file_system does not apply to a remote dataset");
  }
  if (options.remote.parallel == 0 || options.remote.block_bytes == 0 || options.remote.timeout_s == 0) {
    return Status::InvalidArgument(path + ": remote parallel, block_bytes and timeout_s must be >= 1");
  }
  return true;
}

Result<ShardHeader> reader_internal::ReadHeaderOf(const RandomAccessFile& file, bool verify, uint32_t retries) {
  const auto* remote = dynamic_cast<const RemoteFile*>(&file);
  for (uint32_t attempt = 0;; ++attempt) {
    Result<ShardHeader> h = ReadShardHeader(file, verify);
    if (h.ok() || !remote || h.status().code() != StatusCode::kCorruption || attempt >= retries) return h;
    remote->Forget();
    CountRetries(1);
  }
}

void ShardReader::Impl::PrefetchRemote(const std::vector<uint64_t>& row_ids, bool want_raw, bool want_blob) const {
  std::map<const Shard*, std::vector<ByteRange>> ranges;
  const uint64_t budget = options.remote.memory_bytes / 2;
  uint64_t bytes = 0;
  for (uint64_t id : row_ids) {
    if (id >= total_rows || bytes >= budget) break;
    const Shard& s = ShardOf(id);
    if (!s.remote) continue;
    const uint64_t local = id - s.first_row;
    const size_t g = s.rows->GroupOf(local);
    auto add = [&](RowMap::Part part) {
      const uint32_t page = s.rows->GroupPage(g, part);
      const uint64_t base = s.header.PageOffset(page);
      ByteRange r;
      if (s.rows->Walked(g, part)) {
        CompactLocator l{};
        s.rows->Fill(g, local, part == RowMap::Part::kRaw, part == RowMap::Part::kBlob, &l);
        r = part == RowMap::Part::kRaw ? ByteRange{base + l.raw_begin, base + l.raw_end}
                                       : ByteRange{base + l.blob_begin, base + l.blob_end};
      } else {
        r = {base + s.rows->GroupBegin(g, part), base + s.rows->GroupEnd(g, part)};  // the walk reads it
      }
      bytes += r.end - r.begin;
      ranges[&s].push_back(r);
    };
    if (want_raw) add(RowMap::Part::kRaw);
    if (want_blob) add(RowMap::Part::kBlob);
  }
  for (auto& [s, list] : ranges) (void)s->remote->Prefetch(list);
}

}  // namespace mindrecord
