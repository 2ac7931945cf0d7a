// Reads a shard's SQLite index: checks it belongs to the shard, loads the
// row locators, and answers category queries on index fields.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_writer.h"
#include "mindrecord/schema.h"
#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: all methods may be called concurrently (a mutex serializes
// use of the SQLite connection).
class IndexReader {
 public:
  // Opens `db_path` read-only and checks that SHARD_NAME holds `shard_name`
  // and that INDEXES has the locator columns.
  static Result<std::unique_ptr<IndexReader>> Open(const std::string& db_path, const std::string& shard_name,
                                                   bool legacy_quoted_strings);
  // As Open, over the database's bytes in memory (`image`: a decrypted
  // index, which never touches the disk); `db_path` names it in messages.
  static Result<std::unique_ptr<IndexReader>> OpenImage(const std::string& db_path, std::string_view image,
                                                        const std::string& shard_name, bool legacy_quoted_strings);
  ~IndexReader();

  // Locators of rows 0..num_rows-1, in row order. Missing, duplicate or extra
  // rows are Corruption naming the file.
  Result<std::vector<RowLocator>> LoadLocators(uint64_t num_rows) const;
  // Locators of rows first_row..first_row+num_rows-1 (the shard's last rows).
  Result<std::vector<RowLocator>> LoadLocators(uint64_t first_row, uint64_t num_rows) const;
  // Locators of rows [first_row, first_row + num_rows) of a shard with more
  // rows (a row group's, for a group whose pages do not walk).
  Result<std::vector<RowLocator>> LoadLocatorRange(uint64_t first_row, uint64_t num_rows) const;
  // Distinct values of index field `field` (ascending) with their row ids.
  // Corruption naming the file unless the index lists each of the shard's
  // `num_rows` rows exactly once, with a value of the field's type.
  Result<std::vector<std::pair<Value, std::vector<uint64_t>>>> GroupBy(const std::string& field,
                                                                          const Schema& schema,
                                                                          uint64_t num_rows) const;
  // Distinct values of index field `field` (ascending) with how many rows
  // hold each, by one GROUP BY: memory per value, not per row. More than
  // `max_values` values is InvalidArgument.
  Result<std::vector<std::pair<Value, uint64_t>>> CountBy(const std::string& field, const Schema& schema,
                                                          size_t max_values) const;
  const std::string& path() const { return path_; }

 private:
  IndexReader() = default;
  // Corruption unless SHARD_NAME holds `shard_name`.
  Status CheckShardName(const std::string& shard_name) const;
  // `and_where`: more SQL conditions (" AND ..."), or empty.
  Result<std::vector<RowLocator>> LoadLocators(uint64_t first_row, uint64_t num_rows,
                                               const std::string& and_where) const;
  std::string path_;
  sqlite3* db_ = nullptr;
  bool quoted_ = false;
  mutable std::mutex mu_;
};

}  // namespace mindrecord
