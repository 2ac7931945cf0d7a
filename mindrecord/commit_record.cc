#include "mindrecord/commit_record.h"

#include <unistd.h>

#include <set>

#include <nlohmann/json.hpp>

#include "mindrecord/append_journal.h"
#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "mindrecord/json_guard.h"
#include "mindrecord/limits.h"
#include "mindrecord/own_file.h"

namespace mindrecord {
namespace {

constexpr std::string_view kSignature = "mindrecord-commit 2";
constexpr std::string_view kOldSignature = "mindrecord-commit 1";

// What to do about a record that is reported, not applied.
std::string Advice(const std::string& first_shard) {
  return ". If the dataset reads as it should without it, remove the record with `mindrecord recover --discard " +
         first_shard + "` and check the dataset with `mindrecord verify --deep " + first_shard +
         "`; otherwise write the dataset again";
}

struct Entry {
  std::string from, to;  // plain names in the record's folder
  OwnFileIdentity identity;
};

Result<std::vector<Entry>> ReadRecord(const std::string& path, const std::string& first_shard, FileSystem* fs) {
  auto damaged = [&](const std::string& why) {
    return Status::Corruption(path + ": commit record is damaged (" + why +
                              "); it was left alone, and the dataset's last commit may be incomplete" +
                              Advice(first_shard));
  };
  MR_RETURN_IF_ERROR(CheckNotSpecialFile(path));
  std::string text;
  {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
    if (f->size() > kMaxCommitRecordBytes) return damaged(std::to_string(f->size()) + " bytes, too large");
    text.resize(f->size());
    MR_RETURN_IF_ERROR(f->ReadAt(0, text.size(), text.data()));
  }
  const size_t a = text.find('\n'), b = a == std::string::npos ? a : text.find('\n', a + 1);
  if (std::string_view(text).substr(0, a) == kOldSignature) {
    // Format 1 recorded no identities: nothing proves its names are these files.
    return Status::Corruption(path + ": commit record was written by an older mindrecord (format 1), which this "
                              "version does not apply since it cannot prove the record belongs to the files "
                              "beside it; it was left alone, and the dataset's last commit may be incomplete. "
                              "Open the dataset once with the version that wrote it (that finishes the commit)" +
                              Advice(first_shard));
  }
  if (b == std::string::npos || std::string_view(text).substr(0, a) != kSignature) return damaged("no signature");
  if (ChecksumHex(Xxh3(std::string_view(text).substr(b + 1))) != text.substr(a + 1, b - a - 1)) {
    return damaged("checksum mismatch");
  }
  if (Status st = CheckJsonShape(std::string_view(text).substr(b + 1), path, {4, 100000}); !st.ok()) {
    return damaged(st.message());
  }
  nlohmann::json list = nlohmann::json::parse(text.substr(b + 1), nullptr, false);
  if (!list.is_array()) return damaged("not a JSON list");
  std::vector<Entry> out;
  std::set<std::string> names;
  bool names_first_shard = false;
  for (const auto& e : list) {
    if (!e.is_array() || e.size() != 5 || !e[0].is_string() || !e[1].is_string() || !e[2].is_number_unsigned() ||
        !e[3].is_number_unsigned() || !e[4].is_number_unsigned()) {
      return damaged("an entry is not [temporary, final, device, inode, size]");
    }
    Entry x{e[0].get<std::string>(), e[1].get<std::string>(),
            {e[2].get<uint64_t>(), e[3].get<uint64_t>(), e[4].get<uint64_t>()}};
    if (!IsPlainBaseName(x.from) || !IsPlainBaseName(x.to)) {
      return Status::Corruption(path + ": commit record names a file outside its folder ('" + x.from + "' -> '" +
                                x.to + "'); it was left alone and nothing was renamed" + Advice(first_shard));
    }
    if (!names.insert(x.from).second || !names.insert(x.to).second) return damaged("a name appears twice");
    names_first_shard |= x.to == BaseName(first_shard);
    out.push_back(std::move(x));
  }
  if (!names_first_shard) {
    return Status::Corruption(path + ": commit record does not belong to " + first_shard +
                              " (it does not name it); it was left alone and nothing was renamed" + Advice(first_shard));
  }
  return out;
}

}  // namespace

std::string CommitRecordPath(const std::string& first_shard) { return first_shard + kCommitRecordSuffix; }

Status WriteCommitRecord(const std::string& first_shard,
                         const std::vector<std::pair<std::string, std::string>>& renames, FileSystem* fs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [from, to] : renames) {
    // The temporary, or the final file when it was already renamed.
    auto id = StatOwnFile(from);
    if (!id.ok() && id.status().code() == StatusCode::kNotFound) id = StatOwnFile(to);
    MR_RETURN_IF_ERROR(id.status());
    list.push_back({BaseName(from), BaseName(to), id->device, id->inode, id->size});
  }
  std::string body = list.dump();
  std::string text = std::string(kSignature) + "\n" + ChecksumHex(Xxh3(body)) + "\n" + body;
  const std::string path = CommitRecordPath(first_shard);
  MR_RETURN_IF_ERROR(WriteWholeFileAtomically(path, text, fs));
  return fs->SyncDir(DirName(path));
}

Status FinishCommit(const std::string& first_shard, FileSystem* fs) {
  const std::string path = CommitRecordPath(first_shard);
  if (!fs->Exists(path)) return Status::OK();
  const std::string dir = DirName(path);
  MR_ASSIGN_OR_RETURN(std::vector<Entry> entries, ReadRecord(path, first_shard, fs));
  // Every entry is checked before the first rename: a temporary still there
  // must be the file recorded; one already renamed must be in its place.
  std::vector<bool> pending;
  for (const Entry& e : entries) {
    const std::string from = JoinPath(dir, e.from), to = JoinPath(dir, e.to);
    auto id = StatOwnFile(from);
    const bool renamed = !id.ok() && id.status().code() == StatusCode::kNotFound;
    if (renamed) id = StatOwnFile(to);
    const bool match = id.ok() && id->SameFile(e.identity) && id->size == e.identity.size;
    if (!match) {
      return Status::Corruption(path + ": commit record does not match the files beside it (" +
                                (renamed ? to : from) + " is not the file recorded" +
                                (id.ok() ? std::string() : ": " + id.status().message()) +
                                "); it was left alone and nothing was renamed" + Advice(first_shard));
    }
    pending.push_back(!renamed);
  }
  // The files being replaced take their append journals with them: an old
  // journal must never be applied to the new files.
  for (const Entry& e : entries) {
    const std::string to = JoinPath(dir, e.to);
    MR_RETURN_IF_ERROR(fs->Remove(JournalPath(to)));
    MR_RETURN_IF_ERROR(fs->Remove(JournalIndexPath(to)));
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!pending[i]) continue;
    MR_RETURN_IF_ERROR(fs->Rename(JoinPath(dir, entries[i].from), JoinPath(dir, entries[i].to)));
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  MR_RETURN_IF_ERROR(fs->Remove(path));
  return fs->SyncDir(dir);
}

Result<bool> DiscardCommitRecord(const std::string& first_shard, FileSystem* fs) {
  const std::string path = CommitRecordPath(first_shard);
  auto id = StatOwnFile(path);
  if (!id.ok() && id.status().code() == StatusCode::kNotFound) return false;
  MR_RETURN_IF_ERROR(fs->Remove(path));
  MR_RETURN_IF_ERROR(fs->SyncDir(DirName(path)));
  return true;
}

}  // namespace mindrecord
