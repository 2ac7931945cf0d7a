#include "readers/verifier.h"

#include "mindrecord/encryption.h"
#include "readers/shard_paths.h"

#include <optional>
#include <memory>

#include "index/index_reader.h"
#include "mindrecord/checksum.h"
#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/piece_table.h"
#include "mindrecord/row_codec.h"
#include "readers/header_io.h"
#include "readers/page_walker.h"
#include "readers/lock_dataset.h"
#include "readers/remote_file.h"

namespace mindrecord {

nlohmann::json VerifyReport::ToJson() const {
  return {{"ok", ok()},           {"problems", problems},
          {"shards", shards},     {"rows", rows},
          {"pages", pages},       {"pages_checksummed", pages_checksummed},
          {"header_checksums", header_checksums}, {"rows_decoded", rows_decoded}};
}

namespace {

constexpr size_t kMaxProblemsPerShard = 20;

// The shard's index: opened in place, or for a remote shard fetched whole.
Result<std::unique_ptr<IndexReader>> OpenIndex(const std::string& shard_path, const ShardHeader& h,
                                               const RemoteOptions* remote) {
  const std::string db = shard_path + kIndexSuffix;
  if (!remote) {
    MR_ASSIGN_OR_RETURN(std::optional<std::string> image,
                        ReadProtectedIndex(FileSystem::Default(), db, CurrentCryptoConfig()));
    if (image) return IndexReader::OpenImage(db, *image, RecordedShardName(h), h.version == kVersion2);
    return IndexReader::Open(db, RecordedShardName(h), h.version == kVersion2);
  }
  MR_ASSIGN_OR_RETURN(std::string image, ReadWholeRemote(db, *remote));
  return IndexReader::OpenImage(db, image, RecordedShardName(h), h.version == kVersion2);
}

void CheckIndex(const std::string& shard_path, const ShardHeader& h, const std::vector<RowLocator>& walked,
                const RemoteOptions* remote, VerifyReport* rep) {
  const std::string db = shard_path + kIndexSuffix;
  auto index = OpenIndex(shard_path, h, remote);
  if (!index.ok()) {
    rep->problems.push_back(index.status().message());
    return;
  }
  auto locs = (*index)->LoadLocators(h.num_rows());
  if (!locs.ok()) {
    rep->problems.push_back(locs.status().message());
    return;
  }
  size_t reported = 0;
  for (size_t r = 0; r < walked.size() && reported < kMaxProblemsPerShard; ++r) {
    const RowLocator& a = (*locs)[r];
    const RowLocator& b = walked[r];
    if (!a.SamePlace(b)) {
      rep->problems.push_back(db + ": row " + std::to_string(r) + " locator (raw page " + std::to_string(a.raw_page) +
                              " [" + std::to_string(a.raw_begin) + "," + std::to_string(a.raw_end) + "), blob page " +
                              std::to_string(a.blob_page) + " [" + std::to_string(a.blob_begin) + "," +
                              std::to_string(a.blob_end) + "), group " + std::to_string(a.row_group) +
                              ") disagrees with the pages (raw page " + std::to_string(b.raw_page) + " [" +
                              std::to_string(b.raw_begin) + "," + std::to_string(b.raw_end) + "), blob page " +
                              std::to_string(b.blob_page) + " [" + std::to_string(b.blob_begin) + "," +
                              std::to_string(b.blob_end) + "), group " + std::to_string(b.row_group) + ")");
      ++reported;
    }
  }
}

void DecodeAll(const RandomAccessFile& f, const ShardHeader& h, const std::vector<RowLocator>& walked,
               const RemoteOptions* remote, VerifyReport* rep) {
  RowCodec codec(&h.schema, BaseVersion(h.version));
  auto decompressor = BlobDecompressor::FromHeader(h, f.path());
  if (!decompressor.ok()) {
    rep->problems.push_back(decompressor.status().message());
    return;
  }
  size_t reported = 0;
  // The index's values of each index field, by row id: checked against the
  // decoded rows below (a wrong value there makes MindPage return wrong rows).
  std::vector<std::pair<std::string, std::vector<std::optional<Value>>>> indexed;
  auto index = OpenIndex(f.path(), h, remote);
  for (const std::string& field : h.index_fields) {
    if (!index.ok()) break;  // CheckIndex reported it
    auto groups = (*index)->GroupBy(field, h.schema, walked.size());
    if (!groups.ok()) {
      rep->problems.push_back(f.path() + ".db: index field '" + field + "': " + groups.status().message());
      continue;
    }
    std::vector<std::optional<Value>> by_row(walked.size());
    for (auto& [value, rows] : *groups) {
      for (uint64_t r : rows) {
        if (r >= by_row.size() || by_row[r]) {
          if (reported++ < kMaxProblemsPerShard) {
            rep->problems.push_back(f.path() + ".db: index field '" + field + "' lists row " + std::to_string(r) +
                                    (r >= by_row.size() ? ", which the shard does not have" : " twice"));
          }
          continue;
        }
        by_row[r] = value;
      }
    }
    indexed.emplace_back(field, std::move(by_row));
  }
  std::string raw, blob, plain;
  for (const RowLocator& l : walked) {
    auto part = [&](uint64_t page, uint64_t b, uint64_t e, std::string* out) {
      out->resize(e - b - 8);
      return f.ReadAt(h.PageOffset(page) + b + 8, e - b - 8, out->data());
    };
    Row row;
    Status st = part(l.raw_page, l.raw_begin, l.raw_end, &raw);
    if (st.ok()) st = part(l.blob_page, l.blob_begin, l.blob_end, &blob);
    if (st.ok()) {
      Result<std::string_view> msgpack = PlainRawPart(decompressor->get(), raw, &plain);
      st = msgpack.ok() ? codec.DecodeRaw(*msgpack, {}, &row) : msgpack.status();
    }
    if (st.ok() && *decompressor) {
      st = (*decompressor)->DecompressBlob(codec, blob, &plain);
      blob.swap(plain);
    }
    if (st.ok()) st = codec.DecodeBlob(blob, {}, &row);
    if (st.ok()) st = h.schema.ValidateRow(row);
    if (!st.ok()) {
      if (reported++ < kMaxProblemsPerShard) {
        rep->problems.push_back(f.path() + ": row " + std::to_string(l.row_id) + " does not decode: " + st.message());
      }
      continue;
    }
    ++rep->rows_decoded;
    for (const auto& [field, by_row] : indexed) {
      const Value* v = row.Find(field);
      const std::optional<Value>& x = by_row[l.row_id < by_row.size() ? l.row_id : 0];
      if (l.row_id < by_row.size() && v && x && *v == *x) continue;
      if (reported++ < kMaxProblemsPerShard) {
        rep->problems.push_back(f.path() + ".db: index field '" + field + "' of row " + std::to_string(l.row_id) +
                                " is " + (x ? x->DebugString() : std::string("missing")) + ", the row holds " +
                                (v ? v->DebugString() : std::string("nothing")));
      }
    }
  }
}

}  // namespace

namespace {

// A page's piece table as stored, against the one its bytes give.
void CheckPieceTable(const RandomAccessFile& file, const PieceTableLayout& layout, const PageInfo& p,
                     std::pair<uint64_t, uint64_t> rows, const std::string& page, const std::string& shard,
                     VerifyReport* rep) {
  std::string slice(layout.pieces[p.page_id] * kPieceEntryBytes + kPieceSliceTail, '\0');
  Status st = file.ReadAt(layout.slice_at[p.page_id], slice.size(), slice.data());
  if (!st.ok()) {
    rep->problems.push_back(st.message());
    return;
  }
  auto stored = DecodePieceSlice(slice, layout.piece_bytes, p.used_bytes, rows.first, rows.second, shard, p.page_id);
  if (!stored.ok()) {
    rep->problems.push_back(stored.status().message());
    return;
  }
  PieceTableBuilder b(layout.piece_bytes);
  b.Feed(page);
  const std::vector<PieceEntry> computed = b.Finish();
  for (size_t j = 0; j < computed.size(); ++j) {
    const PieceEntry &x = (*stored)[j], &y = computed[j];
    if (x.hash != y.hash || x.first_row != y.first_row || x.offset != y.offset) {
      rep->problems.push_back(shard + ": piece table of page " + std::to_string(p.page_id) + ": piece " +
                              std::to_string(j) + " says row " + std::to_string(x.first_row) + " at offset " +
                              std::to_string(x.offset) + ", checksum " + ChecksumHex(x.hash) + "; the page gives row " +
                              std::to_string(y.first_row) + " at offset " + std::to_string(y.offset) +
                              ", checksum " + ChecksumHex(y.hash));
      return;
    }
  }
}

}  // namespace

VerifyReport Verify(const std::string& path, const VerifyOptions& options) {
  VerifyReport rep;
  FileSystem* fs = FileSystem::Default();
  // A dataset named by URL is read over HTTP (no lock: object storage is
  // read-only); its .db files are fetched whole.
  std::unique_ptr<RemoteFileSystem> remote_fs;
  const RemoteOptions* remote = nullptr;
  if (IsRemotePath(path)) {
    remote_fs = std::make_unique<RemoteFileSystem>(options.remote);
    fs = remote_fs.get();
    remote = &options.remote;
  }
  Result<std::unique_ptr<DatasetLock>> lock = std::unique_ptr<DatasetLock>();
  if (!remote) lock = LockDatasetAt(path, DatasetLock::Mode::kShared, fs);
  if (!lock.ok()) {
    rep.problems.push_back(lock.status().message());
    return rep;
  }
  // Encrypted and hashed shards as the process's settings ask (set_enc_key,
  // set_hash_mode: mindrecord/encryption.h), as readers open them.
  const CryptoConfig crypto = CurrentCryptoConfig();
  auto open_shard = [&](const std::string& p) -> Result<std::unique_ptr<RandomAccessFile>> {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(p, false));
    return OpenProtectedFile(std::move(f), crypto);
  };
  auto first_file = open_shard(path);
  if (!first_file.ok()) {
    rep.problems.push_back(first_file.status().message());
    return rep;
  }
  auto first = ReadShardHeader(**first_file, true);
  if (!first.ok()) {
    rep.problems.push_back(first.status().message());
    return rep;
  }
  rep.header_checksums = true;
  auto paths = ShardPathsFor(path, *first);
  if (!paths.ok()) {
    rep.problems.push_back(paths.status().message());
    return rep;
  }
  const std::string first_path = (*paths)[0];
  for (size_t i = 0; i < paths->size(); ++i) {
    const std::string shard = (*paths)[i];
    ++rep.shards;
    auto file = open_shard(shard);
    if (!file.ok()) {
      rep.problems.push_back(shard + ": shard " + std::to_string(i) + " is missing or unreadable: " +
                             file.status().message());
      continue;
    }
    auto h = ReadShardHeader(**file, true);
    if (!h.ok()) {
      rep.problems.push_back(h.status().message());
      continue;
    }
    if (auto* rf = dynamic_cast<RemoteFile*>(file->get())) rf->SetLayout(*h, true);  // fetch by page
    if (h->extra.find(kHeaderChecksumKey) == h->extra.end()) rep.header_checksums = false;
    if (h->shard_id != i) {
      rep.problems.push_back(shard + ": header says shard_id " + std::to_string(h->shard_id) + ", expected " +
                             std::to_string(i));
    }
    Status agree = CheckShardsAgree(*first, *h, first_path, shard);
    if (!agree.ok()) rep.problems.push_back(agree.message());
    rep.rows += h->num_rows();
    rep.pages += h->pages.size();
    std::string buf;
    // The piece tables, checked against the pages they describe.
    auto layout = PieceTableLayout::FromHeader(*h, kLengthPrefix + h->json_bytes, shard);
    if (!layout.ok()) rep.problems.push_back(layout.status().message());
    const auto page_rows = PageRows(*h);
    for (const PageInfo& p : h->pages) {
      auto it = p.extra.find(kPageChecksumKey);
      if (it == p.extra.end() || !it->is_string()) continue;
      buf.resize(p.used_bytes);
      Status st = (*file)->ReadAt(h->PageOffset(p.page_id), p.used_bytes, buf.data());
      if (!st.ok()) {
        rep.problems.push_back(st.message());
        continue;
      }
      if (layout.ok() && layout->present() && p.page_id < layout->pieces.size()) {
        CheckPieceTable(**file, *layout, p, page_rows[p.page_id], buf, shard, &rep);
      }
      ++rep.pages_checksummed;
      const std::string computed = ChecksumHex(Xxh3(buf));
      if (computed != it->get<std::string>()) {
        rep.problems.push_back(shard + ": page " + std::to_string(p.page_id) + " (offset " +
                               std::to_string(h->PageOffset(p.page_id)) + ", " + std::to_string(p.used_bytes) +
                               " bytes) checksum mismatch: stored " + it->get<std::string>() + ", computed " +
                               computed);
      }
    }
    auto walked = WalkPages(**file, *h);
    if (!walked.ok()) {
      rep.problems.push_back(walked.status().message());
      continue;
    }
    CheckIndex(shard, *h, *walked, remote, &rep);
    if (options.deep) DecodeAll(**file, *h, *walked, remote, &rep);
  }
  return rep;
}

}  // namespace mindrecord
