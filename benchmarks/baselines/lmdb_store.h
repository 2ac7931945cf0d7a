// LMDB baseline: serialized records under 8-byte big-endian row-id keys in
// one environment file (MDB_NOSUBDIR, no lock file), as users keep samples
// in LMDB (Caffe's Datum databases, LMDB-backed PyTorch datasets). Writes go
// in one transaction with MDB_APPEND (keys arrive in order); reads run in
// one read-only transaction and return views of LMDB's map.
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord::bench {

// Row id `i` as the baseline's key.
std::string LmdbKey(uint64_t i);

// An environment with its one open transaction; closes both when destroyed.
struct LmdbHandles {
  std::string path;
  MDB_env* env = nullptr;
  MDB_txn* txn = nullptr;
  MDB_dbi dbi = 0;
  ~LmdbHandles();
};

// Thread safety: one thread drives a writer.
class LmdbWriter {
 public:
  // A new environment at `path` (a file there is replaced) that may grow to
  // `map_size` bytes.
  static Result<std::unique_ptr<LmdbWriter>> Create(const std::string& path, uint64_t map_size);
  // Stores `value` under the next row id (0, 1, ...).
  Status Append(std::string_view value);
  // Commits; `sync`: then makes the file durable (fsync), as the other
  // writers of the suite do at their end.
  Status Close(bool sync = true);

 private:
  LmdbWriter() = default;
  LmdbHandles h_;
  uint64_t next_ = 0;
};

// Thread safety: one thread drives a reader.
class LmdbReader {
 public:
  static Result<std::unique_ptr<LmdbReader>> Open(const std::string& path);
  uint64_t rows() const { return rows_; }
  // Row `id`'s value, valid while the reader lives.
  Result<std::string_view> Get(uint64_t id) const;
  // Every value in key (row id) order.
  Status Scan(const std::function<Status(std::string_view)>& fn) const;

 private:
  LmdbReader() = default;
  LmdbHandles h_;
  uint64_t rows_ = 0;
};

}  // namespace mindrecord::bench
