// What every opener of a dataset does before it reads the headers: finish an
// interrupted commit (mindrecord/commit_record.h), roll back an interrupted
// append (mindrecord/append_journal.h), and lock the dataset
// (mindrecord/dataset_lock.h). Readers and the verifier lock it shared,
// appenders and the index rebuild exclusively.
#pragma once

#include <memory>
#include <string>

#include "mindrecord/dataset_lock.h"
#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

// For code opening a dataset through `path` (any of its shards): finishes an
// interrupted commit or an interrupted append's rollback and locks the
// dataset while the caller reads its headers. nullptr (not an error) when
// `path` has no readable header or the first shard is missing: the caller's
// own reads report that.
Result<std::unique_ptr<DatasetLock>> LockDatasetAt(const std::string& path, DatasetLock::Mode mode, FileSystem* fs);

}  // namespace mindrecord
