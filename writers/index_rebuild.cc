#include "writers/index_rebuild.h"

#include "mindrecord/encryption.h"
#include "readers/shard_paths.h"

#include <unistd.h>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/file.h"
#include "mindrecord/row_codec.h"
#include "readers/header_io.h"
#include "readers/lock_dataset.h"
#include "readers/page_walker.h"

namespace mindrecord {

namespace {

bool IndexAgrees(const std::string& shard, const ShardHeader& h, const std::vector<RowLocator>& walked) {
  auto index = IndexReader::Open(shard + kIndexSuffix, RecordedShardName(h), h.version == kVersion2);
  if (!index.ok()) return false;
  auto locs = (*index)->LoadLocators(h.num_rows());
  if (!locs.ok()) return false;
  for (size_t r = 0; r < walked.size(); ++r) {
    if (!(*locs)[r].SamePlace(walked[r])) return false;
  }
  return true;
}

Status WriteIndex(FileSystem* fs, const RandomAccessFile& file, const std::string& shard, const ShardHeader& h,
                  const std::vector<RowLocator>& walked) {
  const std::string db = shard + kIndexSuffix;
  const std::string tmp = HiddenSibling(db, ".rebuild-" + std::to_string(getpid()));
  (void)fs->Remove(tmp);
  MR_ASSIGN_OR_RETURN(auto decompressor, BlobDecompressor::FromHeader(h, shard));
  auto writer = IndexWriter::Create(tmp, RecordedShardName(h), h.schema, h.index_fields, h.version == kVersion2,
                                    /*without_rowid=*/IsCompressedVersion(h.version));
  if (!writer.ok()) return writer.status();
  RowCodec codec(&h.schema, BaseVersion(h.version));
  std::string raw, plain;
  Status st;
  for (const RowLocator& l : walked) {
    raw.resize(l.raw_end - l.raw_begin - 8);
    st = file.ReadAt(h.PageOffset(l.raw_page) + l.raw_begin + 8, raw.size(), raw.data());
    Row values;
    if (st.ok()) {
      Result<std::string_view> msgpack = PlainRawPart(decompressor.get(), raw, &plain);
      st = msgpack.ok() ? codec.DecodeRawFields(*msgpack, h.index_fields, &values) : msgpack.status();
    }
    if (st.ok()) st = (*writer)->Add(l, values);
    if (!st.ok()) break;
  }
  if (st.ok()) st = (*writer)->Finish();
  writer->reset();
  if (st.ok()) st = fs->SyncPath(tmp);
  if (st.ok()) st = fs->Rename(tmp, db);
  if (st.ok()) st = fs->SyncDir(DirName(db));
  if (!st.ok()) (void)fs->Remove(tmp);
  return st.ok() ? st : st.WithContext(db);
}

}  // namespace

Result<RebuildReport> RebuildIndex(const std::string& path, bool force) {
  FileSystem* fs = FileSystem::Default();
  MR_ASSIGN_OR_RETURN(auto lock, LockDatasetAt(path, DatasetLock::Mode::kExclusive, fs));
  MR_ASSIGN_OR_RETURN(auto first_file, fs->OpenRead(path, false));
  MR_RETURN_IF_ERROR(RefuseProtected(*first_file, "rebuilding the index of"));
  MR_ASSIGN_OR_RETURN(ShardHeader first, ReadShardHeader(*first_file, true));
  RebuildReport rep;
  MR_ASSIGN_OR_RETURN(auto paths, ShardPathsFor(path, first));
  for (const std::string& shard : paths) {
    MR_ASSIGN_OR_RETURN(auto file, fs->OpenRead(shard, false));
    // A plain index beside protected shards would not be read.
    MR_RETURN_IF_ERROR(RefuseProtected(*file, "rebuilding the index of"));
    MR_ASSIGN_OR_RETURN(ShardHeader h, ReadShardHeader(*file, true));
    MR_RETURN_IF_ERROR(CheckShardsAgree(first, h, path, shard));
    MR_ASSIGN_OR_RETURN(auto walked, WalkPages(*file, h));
    if (!force && fs->Exists(shard + kIndexSuffix) && IndexAgrees(shard, h, walked)) {
      rep.kept.push_back(shard + kIndexSuffix);
      continue;
    }
    MR_RETURN_IF_ERROR(WriteIndex(fs, *file, shard, h, walked));
    rep.rebuilt.push_back(shard + kIndexSuffix);
  }
  return rep;
}

}  // namespace mindrecord
