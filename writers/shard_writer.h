// ShardWriter: rows -> row groups -> blob/raw pages -> N shard files, each with
// its SQLite index, laid out exactly as MindSpore's writer lays them out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/encryption.h"
#include "mindrecord/row_codec.h"
#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "writers/shard_part.h"

namespace mindrecord {

class FileSystem;

struct WriterOptions {
  // Number of shard files, 1..1000. With 1 the file is PATH itself; with N the
  // files are PATH0..PATH{N-1} (suffix zero-padded to the width of N-1).
  // Row k of the write stream (0-based, over all batches) goes to shard k % N.
  uint32_t shard_count = 1;
  // false: the suffixes are not zero-padded (PATH0..PATH11 for 12 shards), as
  // MindSpore's Dataset.save names its files (its FileWriter pads them).
  bool pad_shard_suffix = true;
  // Bytes reserved for the header JSON at the start of each shard; multiple of
  // 4 in [16 KiB, 128 MiB]. Default 16 MiB, as MindSpore.
  uint64_t header_size = kDefaultHeaderSize;
  // Page slot size; multiple of 4 in [32 KiB, 256 MiB]. Default 32 MiB. A row
  // (raw or blob part plus its 8-byte prefix) larger than a page is an error.
  uint64_t page_size = kDefaultPageSize;
  // Indexed fields; nullopt: every scalar non-bytes field (MindSpore's default).
  std::optional<std::vector<std::string>> index_fields;
  // Replace existing output files; otherwise existing files are refused.
  bool overwrite = false;
  // "3.0" (default; packs integer arrays) or "2.0" (to reproduce old files).
  std::string format_version = kVersion3;
  // Write our integrity extension: an XXH3 checksum per page and one for the
  // header (keys MindSpore ignores). Off: output identical to MindSpore's.
  bool checksums = true;
  // With checksums: write piece tables (our extension, mindrecord/piece_table.h)
  // at the end of the header area, so that a reader checks and locates a row
  // from its 64 KiB piece rather than its whole page. An append keeps them
  // where the dataset has them.
  bool piece_tables = true;
  // Per-row blob compression (our extension; needs format_version 3.0). Any
  // codec but none writes version "3.0+mr-lz4" / "3.0+mr-zstd", which
  // MindSpore refuses. With `dictionary`, the first rows (up to 8192 rows or
  // 8 MiB of blob bytes) are held back to train a zstd dictionary stored in
  // the header. See mindrecord/compression.h.
  CompressionOptions compression;
  // Write new shards' pages with O_DIRECT from reused aligned buffers, on
  // background I/O threads (3 per writer), where the output's file system
  // takes direct writes; otherwise, and always for appends, pages are written
  // buffered (pwritev through the page cache; writeback is started every 8
  // MiB and the file flushed by a helper thread every 32 MiB, see
  // mindrecord/background_sync.h, so Commit's fsync finds little left). The
  // bytes written are the same either way. Direct: no copy into the page
  // cache; costs up to 24 MiB of buffers per shard (less with many shards;
  // more than 512 shards stay buffered), and Commit's fsync flushes the whole
  // file. Buffered is the default: 200k 1 KiB records were written and
  // committed in 0.35-0.42 s buffered against 0.43-0.61 s direct (the fsync
  // of direct writes alone took 0.14 s). Converters choose direct (see
  // convert::ConvertOptions).
  bool direct_writes = false;
  // Write only this one of the `shard_count` shards: a distributed
  // conversion, where each process writes its own shards of one dataset and
  // every header still lists all `shard_count` names. Rows go in with
  // WriteRowsToShard(only_shard, ...) and the shard is finished by
  // CommitPart(). nullopt: every shard.
  std::optional<uint32_t> only_shard;
  // MindSpore's hashed and encrypted files (set_hash_mode, set_enc_key;
  // mindrecord/encryption.h): with a key or a hash mode, Commit() appends
  // each data and index file's digest and encrypts it while it is still a
  // temporary, so the files take their final names only protected. Not for
  // appends or only_shard writers (an error). Empty: plain files.
  CryptoConfig protection;
  // Shard data files go through this seam (tests inject faults); nullptr: POSIX.
  FileSystem* file_system = nullptr;
};

// Thread safety: not thread-safe; one thread drives a writer. Writing happens
// in the calling thread, except direct page writes (WriterOptions::
// direct_writes), which background threads of the writer perform; their
// errors are returned by the next call.
//
// Durability: everything goes to temporary files beside the output
// (".<name>.tmp-<pid>-<n>"). Commit() fsyncs them, writes a commit record
// listing the renames (the commit point; see mindrecord/commit_record.h) and
// renames them into place, index files first and shard 0 last, replacing old
// files with overwrite; a crash among the renames is finished by the next
// opener. Before the record exists the old files (if any) are untouched.
// Abandon() or destruction without Commit() removes the temporaries. Appends
// write in place under an undo journal instead (OpenForAppend).
class ShardWriter {
 public:
  static Result<std::unique_ptr<ShardWriter>> Create(const std::string& path, const Schema& schema,
                                                     const WriterOptions& options = {});
  // Opens an existing dataset (any of its shards) to add rows. Rows continue
  // the dataset's row ids and shard placement (global row k -> shard k % N);
  // the format version, checksums, compression and index fields are the
  // dataset's own. The dataset stays readable as it was until Commit();
  // Abandon(), an error in Commit() or a crash at any point leaves it as it
  // was (see mindrecord/append_journal.h). Holds an exclusive lock on the
  // dataset from here to Commit()/Abandon(): readers cannot open it meanwhile.
  static Result<std::unique_ptr<ShardWriter>> OpenForAppend(const std::string& path, FileSystem* file_system = nullptr);
  ~ShardWriter();
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Validates and writes one batch (MindSpore's write_raw_data). Any error
  // sticks: later calls and Commit() return it.
  Status WriteRows(const std::vector<Row>& rows);
  // The same, but may move blob bytes out of `rows` instead of copying them
  // (the rows are left valid but unspecified; on a validation error they are
  // untouched).
  Status WriteRows(std::vector<Row>&& rows);
  // Writes one batch into shard `shard` after its earlier rows: the caller
  // places rows (a converter gives each shard a contiguous range of its
  // inputs). Blob bytes may be moved out of `rows`, as above.
  Status WriteRowsToShard(uint32_t shard, std::vector<Row>&& rows);
  // Writes rows already encoded for this schema and (base) format version.
  Status WriteEncoded(std::vector<EncodedRow> rows);
  // Sets WriterOptions::protection before Commit() (MindSpore's FileWriter
  // takes the settings in force when it commits). An error for an append or
  // an only_shard writer, or for a mode, key or hash mode that is not valid.
  Status SetProtection(const CryptoConfig& protection);
  // Commits every shard (not for an only_shard writer: see CommitPart).
  Status Commit();
  // An only_shard writer: finishes the shard (header with this shard's own
  // totals and `part_info` under the header key kPartKey), fsyncs it and
  // renames data and index to their part names (ShardPartPath), index
  // first. Returns the shard's own totals. Finishing parts into a dataset:
  // writers/shard_part.h.
  Result<PartTotals> CommitPart(const nlohmann::json& part_info);
  void Abandon();

  uint64_t rows_written() const;
  const std::vector<std::string>& shard_paths() const;
  const Schema& schema() const;
  // The row layout written: "3.0" or "2.0" (compression aside).
  const std::string& format_version() const;
  // The options in effect (for an append: the dataset's own).
  const WriterOptions& options() const;
  // How many of the shards write their pages with direct writes (0 when
  // direct_writes is off, the file system refuses O_DIRECT, or appending).
  uint32_t direct_shards() const;

  struct Impl;

 private:
  // shard < 0: MindSpore's placement (WriteRows); else that shard.
  Status WriteRowsImpl(const std::vector<Row>& rows, std::vector<Row>* consume, int64_t shard);
  explicit ShardWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Shard file names for `path` and `shard_count` (see WriterOptions).
std::vector<std::string> ShardFileNames(const std::string& path, uint32_t shard_count, bool pad_suffix = true);

}  // namespace mindrecord
