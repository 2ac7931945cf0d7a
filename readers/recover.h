// `mindrecord recover`: what to do with an interrupted append or commit that
// opening the dataset reported and left alone (readers/README.md, "Threat
// model"). Every opener applies a journal or commit record only when it
// provably belongs to the files beside it; these are the user's decisions
// for the cases it cannot prove, which its error message names.
#pragma once

#include <string>
#include <vector>

#include "mindrecord/file.h"
#include "mindrecord/status.h"

namespace mindrecord {

enum class RecoverMode {
  kAsOpen,    // what every opener does: finish a commit, roll back an append of these very files
  kRollBack,  // also roll back an append journaled for other files (a folder copied while it ran)
  kDiscard,   // remove the dataset's journals and commit record unapplied, keeping its files as they are
};

// `path` is any shard of the dataset; when its header does not read (an
// append may have left it half written), it is taken as the first shard.
// Returns one line per thing done ("nothing to recover" when none).
// Thread safety: takes the dataset lock; other processes see a busy dataset.
Result<std::vector<std::string>> Recover(const std::string& path, RecoverMode mode,
                                         FileSystem* fs = FileSystem::Default());

}  // namespace mindrecord
