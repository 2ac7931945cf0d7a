// Temporaries a writer that died left behind. A dataset is written under
// hidden names (".NAME.tmp-PID-N", and SQLite's "-journal" beside the index's)
// that only Commit() renames; a writer killed before that leaves them, and
// they can be as large as the dataset. The next writer of the same shards
// removes those whose process no longer exists.
#pragma once

#include <string>
#include <vector>

#include "mindrecord/file.h"

namespace mindrecord {

// Removes the temporaries of `final_paths` (shards' data and index files,
// all in one folder) that ShardWriter made in another process which is no
// longer running on this machine (kill(pid, 0) fails with ESRCH). A live
// writer's are kept, and so are names that do not parse as ShardWriter's.
// Only entries of that folder are removed (unlinked: never through a link);
// it is listed once. Local files only (`fs` the default file system);
// returns how many it removed.
int RemoveStaleTemps(const std::vector<std::string>& final_paths, FileSystem* fs);

// ShardWriter's temporary name for `final_path` in this process (`n` a
// counter): ".NAME.tmp-PID-N" beside it.
std::string WriterTempName(const std::string& final_path, uint64_t n);

}  // namespace mindrecord
