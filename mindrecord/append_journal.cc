#include "mindrecord/append_journal.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <random>

#include <nlohmann/json.hpp>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "mindrecord/json_guard.h"
#include "mindrecord/json_number.h"
#include "mindrecord/limits.h"
#include "mindrecord/own_file.h"

namespace mindrecord {
namespace {

constexpr std::string_view kJournalMagic = "mindrecord-append-journal 2\n";
constexpr std::string_view kOldMagic = "mindrecord-append-journal 1\n";

// What to do about a journal that is reported, not applied.
std::string DiscardAdvice(const std::string& dataset) {
  return "If no append to this dataset was interrupted, remove the journal with `mindrecord recover --discard " +
         dataset + "` and check the dataset with `mindrecord verify --deep " + dataset +
         "`; otherwise restore the dataset from a copy";
}

using Region = AppendJournal::ShardState::Region;

// A size, offset or file identity: a JSON integer >= 0.
uint64_t Unsigned(const nlohmann::json& v, const char* what) {
  if (auto u = JsonUnsigned(v)) return *u;
  throw nlohmann::json::type_error::create(302, std::string(what) + " is not an integer >= 0: " + v.dump(), &v);
}

struct Journal {
  std::string shard;                // base name of the shard this journal restores
  std::string master;               // base name of the master's shard
  std::string append_id;            // the same in every journal of one append
  std::vector<std::string> shards;  // master only: every shard's base name
  OwnFileIdentity identity;            // the shard file (device, inode) when journaled
  uint64_t size = 0;
  uint64_t header_size = 0;
  std::string header;
  std::vector<Region> regions;
};

// Parses a journal file. Checks its own consistency only; whether it belongs
// to the shard beside it is CheckJournal's job.
// `dataset` names the dataset in the advice (any of its shards).
Result<Journal> ReadJournal(const std::string& path, const std::string& dataset, FileSystem* fs) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": append journal is damaged (" + why +
                              "); nothing was restored from it, so the dataset may hold a half-finished append. " +
                              DiscardAdvice(dataset));
  };
  MR_RETURN_IF_ERROR(CheckNotSpecialFile(path));
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
  if (f->size() > kMaxJournalBytes) {
    return bad(std::to_string(f->size()) + " bytes, more than the " + std::to_string(kMaxJournalBytes) +
               " a journal can hold");
  }
  std::string text(f->size(), '\0');
  MR_RETURN_IF_ERROR(f->ReadAt(0, text.size(), text.data()));
  if (text.compare(0, kOldMagic.size(), kOldMagic) == 0) {
    // Format 1 recorded no identities: nothing proves it belongs to these files.
    return Status::Corruption(path + ": append journal was written by an older mindrecord (journal format 1), "
                              "which this version does not apply since it cannot prove the journal belongs to " +
                              dataset + "; nothing was changed. Open the dataset once with the version that "
                              "wrote it (that rolls the append back), or, if no append to this dataset was "
                              "interrupted, remove the journal with `mindrecord recover --discard " + dataset + "`");
  }
  if (text.compare(0, kJournalMagic.size(), kJournalMagic) != 0) return bad("no journal signature of this version");
  const size_t eol = text.find('\n', kJournalMagic.size());
  if (eol == std::string::npos) return bad("no description line");
  if (eol - kJournalMagic.size() > kMaxJournalDescriptionBytes) return bad("description line too long");
  const std::string_view description = std::string_view(text).substr(kJournalMagic.size(), eol - kJournalMagic.size());
  if (Status st = CheckJsonShape(description, path + ": journal description", {8, 100000}); !st.ok()) {
    return bad(st.message());
  }
  nlohmann::json j = nlohmann::json::parse(description, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("description is not JSON");
  Journal out;
  try {
    out.shard = j.at("shard").get<std::string>();
    out.master = j.at("master").get<std::string>();
    out.append_id = j.at("append_id").get<std::string>();
    if (j.contains("shards")) out.shards = j.at("shards").get<std::vector<std::string>>();
    out.identity.device = Unsigned(j.at("device"), "device");
    out.identity.inode = Unsigned(j.at("inode"), "inode");
    out.size = Unsigned(j.at("size"), "size");
    out.header_size = Unsigned(j.at("header_size"), "header_size");
    const uint64_t len = Unsigned(j.at("header_bytes"), "header_bytes");
    std::string_view rest(text);
    rest.remove_prefix(eol + 1);
    if (ChecksumHex(Xxh3(rest)) != j.at("xxh3").get<std::string>()) return bad("checksum mismatch");
    if (len > rest.size()) return bad("header bytes truncated");
    out.header = rest.substr(0, len);
    rest.remove_prefix(len);
    const nlohmann::json& regions = j.value("regions", nlohmann::json::array());
    if (!regions.is_array()) return bad("regions is not a list");
    for (const auto& r : regions) {
      Region g;
      g.offset = Unsigned(r.at(0), "a region's offset");
      g.length = Unsigned(r.at(1), "a region's length");
      if (r.at(2).get<bool>()) {  // stored bytes
        if (g.length > rest.size()) return bad("region bytes truncated");
        g.bytes = rest.substr(0, g.length);
        rest.remove_prefix(g.length);
      }
      out.regions.push_back(std::move(g));
    }
    if (!rest.empty()) return bad("trailing bytes");
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("a field is missing or has the wrong type: ") + e.what());
  }
  if (out.header_size < kMinHeaderSize || out.header_size > kMaxHeaderSize) return bad("header_size out of range");
  if (out.header.size() < kLengthPrefix || out.header.size() > out.header_size) return bad("header size");
  uint64_t prefix = 0;
  for (int b = 7; b >= 0; --b) prefix = (prefix << 8) | static_cast<uint8_t>(out.header[b]);
  if (prefix != out.header.size() - kLengthPrefix) return bad("header length prefix does not match its bytes");
  if (out.size < out.header_size) return bad("shard size smaller than its header");
  for (const auto& r : out.regions) {
    // Page tails, or the piece tables at the header area's end (after its JSON).
    if (r.offset < out.header.size() || r.length > out.size || r.offset > out.size - r.length) {
      return bad("a region lies outside the shard's old bytes");
    }
  }
  return out;
}

// What a rollback requires of the shards it restores.
enum class Match {
  kSameFiles,    // the very files journaled (device, inode): what every opener applies
  kCopiedFiles,  // `mindrecord recover --roll-back`: the user says these files are a copy of them
};

// Says what state a shard that is another file than the one journaled is in,
// and what the user can do: its header is compared with the one the journal
// saved (an append rewrites headers only after writing its pages).
std::string ForeignShardAdvice(const std::string& shard_path, const Journal& j, const std::string& dataset,
                               FileSystem* fs) {
  std::string now(j.header.size(), '\0');
  auto f = fs->OpenRead(shard_path);
  const bool same_header = f.ok() && (*f)->size() >= now.size() && (*f)->ReadAt(0, now.size(), now.data()).ok() &&
                           now == j.header;
  const std::string roll_back = "`mindrecord recover --roll-back " + dataset + "`";
  const std::string discard = "`mindrecord recover --discard " + dataset + "`";
  if (same_header) {
    return "The shard still holds the header saved before that append, so it reads as it did before the append; " +
           roll_back + " cuts off what the append had begun to write and removes the journal";
  }
  return "The shard's header is not the one saved before that append: the shard holds either that append's "
         "unfinished pages (the folder was copied while the append ran) or a dataset put in its place after it. "
         "In the first case " + roll_back + " restores the dataset as it was before the append; in the second " +
         discard + " removes the journal and keeps the dataset as it is";
}

// Whether journal `j` (read from JournalPath(shard_path)) provably belongs to
// the shard beside it and to the append `master` describes: its names are
// plain names in this folder, the shard is a regular file reached without a
// link, no smaller than it was, and (kSameFiles) the very file journaled
// (device, inode). With kCopiedFiles `j` takes the shard's identity, so the
// restore checks that the file did not change since. Checked for every
// shard before anything is written.
Status CheckJournal(const std::string& shard_path, Journal& j, const Journal& master, Match match, FileSystem* fs) {
  const std::string jp = JournalPath(shard_path);
  const std::string dataset = JoinPath(DirName(shard_path), IsPlainBaseName(master.master) ? master.master : j.shard);
  auto foreign = [&](const std::string& why, const std::string& advice) {
    return Status::Corruption(jp + ": append journal does not belong to " + shard_path + " (" + why +
                              "); it was left alone and nothing was restored. " + advice);
  };
  if (!IsPlainBaseName(j.shard) || !IsPlainBaseName(j.master)) {
    return foreign("it names a file outside the folder", DiscardAdvice(shard_path));
  }
  if (j.shard != BaseName(shard_path)) {
    return foreign("it was written for '" + j.shard + "'", DiscardAdvice(dataset));
  }
  if (j.master != master.master || j.append_id != master.append_id) {
    return foreign("it belongs to another append than " + JournalPath(JoinPath(DirName(shard_path), master.master)),
                   DiscardAdvice(dataset));
  }
  auto id = StatOwnFile(shard_path);
  if (!id.ok()) return foreign(id.status().message(), DiscardAdvice(dataset));
  if (id->size < j.size) {
    return foreign("the shard holds " + std::to_string(id->size) + " bytes, fewer than the " +
                       std::to_string(j.size) + " it held before the append: another file is in its place",
                   DiscardAdvice(dataset));
  }
  if (!id->SameFile(j.identity)) {
    if (match == Match::kSameFiles) {
      return foreign("the shard is another file than the one journaled (a different inode: the folder was copied, "
                     "or the shard replaced, since that append began)",
                     ForeignShardAdvice(shard_path, j, dataset, fs));
    }
    j.identity = *id;
  }
  const std::string backup = JournalIndexPath(shard_path);
  auto b = StatOwnFile(backup);
  if (!b.ok() && b.status().code() != StatusCode::kNotFound) return foreign(b.status().message(), DiscardAdvice(dataset));
  return Status::OK();
}

// The master's own checks: it names its shard list, with plain names.
Status CheckMaster(const std::string& first_shard, Journal& m, Match match, FileSystem* fs) {
  const std::string jp = JournalPath(first_shard);
  if (m.shards.empty() || m.shards.size() > kMaxShardCount || m.shards[0] != m.master || m.shard != m.master) {
    return Status::Corruption(jp + ": append journal is damaged (its shard list is not a dataset's); "
                              "it was left alone and nothing was restored. " + DiscardAdvice(first_shard));
  }
  for (size_t i = 0; i < m.shards.size(); ++i) {
    if (!IsPlainBaseName(m.shards[i])) {
      return Status::Corruption(jp + ": append journal names a file outside the dataset's folder ('" + m.shards[i] +
                                "'); it was left alone and nothing was restored. " + DiscardAdvice(first_shard));
    }
    for (size_t k = 0; k < i; ++k) {
      if (m.shards[k] == m.shards[i]) {
        return Status::Corruption(jp + ": append journal lists shard '" + m.shards[i] +
                                  "' twice; it was left alone and nothing was restored. " +
                                  DiscardAdvice(first_shard));
      }
    }
  }
  const Journal copy = m;
  return CheckJournal(first_shard, m, copy, match, fs);
}

std::string NewAppendId() {
  std::random_device rd;
  const uint64_t a = (uint64_t{rd()} << 32) ^ rd(), b = (uint64_t{rd()} << 32) ^ rd();
  return ChecksumHex(a ^ static_cast<uint64_t>(getpid())) + ChecksumHex(b);
}

Status WriteJournal(const std::string& shard_path, const Journal& j, FileSystem* fs) {
  std::string body = j.header;
  nlohmann::json regions = nlohmann::json::array();
  for (const auto& r : j.regions) {
    regions.push_back({r.offset, r.length, !r.bytes.empty()});
    body += r.bytes;
  }
  nlohmann::json d = {{"shard", j.shard},
                      {"master", j.master},
                      {"append_id", j.append_id},
                      {"device", j.identity.device},
                      {"inode", j.identity.inode},
                      {"size", j.size},
                      {"header_size", j.header_size},
                      {"header_bytes", j.header.size()},
                      {"regions", regions},
                      {"xxh3", ChecksumHex(Xxh3(body))}};
  if (!j.shards.empty()) d["shards"] = j.shards;
  std::string text(kJournalMagic);
  text += d.dump();
  text += '\n';
  text += body;
  return WriteWholeFileAtomically(JournalPath(shard_path), text, fs);
}

// Keeps the shard's index as it is now under JournalIndexPath(): a hard
// link, or a copy where the file system has none.
Status BackUpIndex(const std::string& shard_path, FileSystem* fs) {
  const std::string db = shard_path + kIndexSuffix, backup = JournalIndexPath(shard_path);
  MR_RETURN_IF_ERROR(fs->Remove(backup));
  if (link(db.c_str(), backup.c_str()) == 0) return Status::OK();
  if (errno == ENOENT) return Status::NotFound(db + ": index file is missing");
  MR_ASSIGN_OR_RETURN(auto in, fs->OpenRead(db));
  MR_ASSIGN_OR_RETURN(auto out, fs->OpenWrite(backup));
  std::string buf;
  for (uint64_t off = 0; off < in->size(); off += 4 * kMiB) {
    buf.resize(std::min<uint64_t>(4 * kMiB, in->size() - off));
    MR_RETURN_IF_ERROR(in->ReadAt(off, buf.size(), buf.data()));
    MR_RETURN_IF_ERROR(out->WriteAt(off, buf));
  }
  MR_RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

// Restores one shard from its checked journal. Writes only bytes the shard
// already holds (header, regions inside its old size) and cuts it: no free
// space is needed, so a rollback after ENOSPC succeeds on a full disk.
// Regions that were zeros (a page's unused tail, usually a hole) become holes
// again (ZeroRange), so the shard takes no more disk space than before.
Status RestoreShard(const std::string& shard_path, const Journal& j, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenUpdateNoFollow(shard_path));
  MR_ASSIGN_OR_RETURN(OwnFileIdentity id, StatOwnFile(shard_path));
  if (!id.SameFile(j.identity)) return Status::Corruption(shard_path + ": changed while being restored");
  // Cut first: the appended bytes go, and what follows rewrites old bytes only.
  MR_RETURN_IF_ERROR(f->Truncate(j.size));
  MR_RETURN_IF_ERROR(f->WriteAt(0, j.header));
  // A longer header the append wrote may have spilled past the old one:
  // zeros up to the header area's end, except where a region (the piece
  // tables) is rewritten below (zeroing first would free blocks that the
  // rewrite then needs again, on a disk that may be full).
  std::vector<std::pair<uint64_t, uint64_t>> keep;
  for (const auto& r : j.regions) keep.emplace_back(r.offset, r.offset + r.length);
  std::sort(keep.begin(), keep.end());
  uint64_t at = j.header.size();
  const uint64_t limit = std::min(j.header_size, j.size);
  for (const auto& [b, e] : keep) {
    if (b >= limit) break;
    if (b > at) MR_RETURN_IF_ERROR(f->ZeroRange(at, b - at));
    at = std::max(at, e);
  }
  if (at < limit) MR_RETURN_IF_ERROR(f->ZeroRange(at, limit - at));
  for (const auto& r : j.regions) {
    if (r.bytes.empty()) {
      MR_RETURN_IF_ERROR(f->ZeroRange(r.offset, r.length));
    } else {
      MR_RETURN_IF_ERROR(f->WriteAt(r.offset, r.bytes));
    }
  }
  MR_RETURN_IF_ERROR(f->Sync());
  MR_RETURN_IF_ERROR(f->Close());
  const std::string backup = JournalIndexPath(shard_path);
  if (StatOwnFile(backup).ok()) {
    // Same inode (the append never replaced the index): rename is a no-op.
    MR_RETURN_IF_ERROR(fs->Rename(backup, shard_path + kIndexSuffix));
    MR_RETURN_IF_ERROR(fs->Remove(backup));
  }
  return Status::OK();
}

// Rolls back the append whose master journal belongs to `first_shard`.
// Every journal is read and checked before the first byte is written.
// Idempotent: a rollback interrupted by another crash is finished by the next.
Status RollBack(const std::string& first_shard, Match match, FileSystem* fs) {
  const std::string dir = DirName(first_shard);
  const std::string master = JournalPath(first_shard);
  MR_ASSIGN_OR_RETURN(Journal m, ReadJournal(master, first_shard, fs));
  MR_RETURN_IF_ERROR(CheckMaster(first_shard, m, match, fs));
  std::vector<std::string> shards;
  std::vector<std::pair<std::string, Journal>> plan;
  for (const auto& name : m.shards) shards.push_back(JoinPath(dir, name));
  for (const auto& s : shards) {
    const std::string jp = JournalPath(s);
    if (s == first_shard) {
      plan.emplace_back(s, m);
      continue;
    }
    if (!fs->Exists(jp)) continue;  // the append had not reached this shard
    MR_ASSIGN_OR_RETURN(Journal j, ReadJournal(jp, first_shard, fs));
    MR_RETURN_IF_ERROR(CheckJournal(s, j, m, match, fs));
    plan.emplace_back(s, std::move(j));
  }
  for (const auto& [s, j] : plan) {
    Status st = RestoreShard(s, j, fs);
    if (!st.ok()) return st.WithContext("rolling back an interrupted append from " + master);
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  MR_RETURN_IF_ERROR(fs->Remove(master));
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  for (const auto& s : shards) {
    MR_RETURN_IF_ERROR(fs->Remove(JournalPath(s)));
    MR_RETURN_IF_ERROR(fs->Remove(JournalIndexPath(s)));
  }
  return fs->SyncDir(dir);
}

}  // namespace

std::string JournalPath(const std::string& shard_path) { return shard_path + kJournalSuffix; }
std::string JournalIndexPath(const std::string& shard_path) { return JournalPath(shard_path) + kIndexSuffix; }

Result<std::unique_ptr<DatasetLock>> RecoverAndLock(const std::string& first_shard, DatasetLock::Mode mode,
                                                    FileSystem* fs, int wait_ms) {
  MR_ASSIGN_OR_RETURN(auto lock, DatasetLock::Acquire(first_shard, mode, wait_ms));
  if (!fs->Exists(JournalPath(first_shard))) return lock;
  // A master journal nobody holds the lock for: its appender died.
  if (mode == DatasetLock::Mode::kShared) MR_RETURN_IF_ERROR(lock->Relock(DatasetLock::Mode::kExclusive, wait_ms));
  if (fs->Exists(JournalPath(first_shard))) MR_RETURN_IF_ERROR(RollBack(first_shard, Match::kSameFiles, fs));
  if (mode == DatasetLock::Mode::kShared) MR_RETURN_IF_ERROR(lock->Relock(DatasetLock::Mode::kShared, wait_ms));
  return lock;
}

Status RecoverShardJournal(const std::string& shard_path, FileSystem* fs) {
  const std::string jp = JournalPath(shard_path);
  if (!fs->Exists(jp)) return Status::OK();
  MR_ASSIGN_OR_RETURN(Journal j, ReadJournal(jp, shard_path, fs));
  if (!IsPlainBaseName(j.master) || j.shard != BaseName(shard_path)) {
    return Status::Corruption(jp + ": append journal does not belong to " + shard_path +
                              " (it names another file or a file outside the folder); it was left alone and "
                              "nothing was restored. " + DiscardAdvice(shard_path));
  }
  const std::string first = JoinPath(DirName(shard_path), j.master);
  // Rolls back when the master journal is hot; under the exclusive lock no
  // append is running, so a journal still left is stale.
  auto lock = RecoverAndLock(first, DatasetLock::Mode::kExclusive, fs);
  if (!lock.ok()) {
    // Only a lock held by someone else means an append is running; any other
    // error (a journal that does not match, a failed rollback) is reported.
    if (IsDatasetBusy(lock.status()) && fs->Exists(JournalPath(first))) {
      return Status::IOError(first + ": " + kAppendBusy);
    }
    return lock.status();
  }
  if (fs->Exists(jp)) {
    MR_RETURN_IF_ERROR(fs->Remove(jp));
    MR_RETURN_IF_ERROR(fs->Remove(JournalIndexPath(shard_path)));
  }
  return Status::OK();
}

void RemoveStaleJournals(const std::vector<std::string>& shards, FileSystem* fs) {
  if (shards.empty() || fs->Exists(JournalPath(shards[0]))) return;
  if (fs->Exists(JournalIndexPath(shards[0]))) (void)fs->Remove(JournalIndexPath(shards[0]));
  for (size_t i = 1; i < shards.size(); ++i) {
    if (fs->Exists(JournalPath(shards[i]))) (void)fs->Remove(JournalPath(shards[i]));
    if (fs->Exists(JournalIndexPath(shards[i]))) (void)fs->Remove(JournalIndexPath(shards[i]));
  }
}

Status RollBackCopiedAppend(const std::string& first_shard, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(auto lock, DatasetLock::Acquire(first_shard, DatasetLock::Mode::kExclusive));
  if (!fs->Exists(JournalPath(first_shard))) {
    return Status::NotFound(first_shard + ": no append journal (" + JournalPath(first_shard) +
                            ") to roll back: no append to this dataset was interrupted");
  }
  return RollBack(first_shard, Match::kCopiedFiles, fs);
}

Result<std::vector<std::string>> DiscardAppendJournals(const std::vector<std::string>& shards, FileSystem* fs) {
  std::vector<std::string> removed;
  if (shards.empty()) return removed;
  MR_ASSIGN_OR_RETURN(auto lock, DatasetLock::Acquire(shards[0], DatasetLock::Mode::kExclusive));
  // The master first: once it is gone the others are stale, whatever happens next.
  for (const auto& s : shards) {
    for (const std::string& p : {JournalPath(s), JournalIndexPath(s)}) {
      auto id = StatOwnFile(p);
      if (!id.ok() && id.status().code() == StatusCode::kNotFound) continue;
      // A link or a special file under a journal's name is removed as a name;
      // nothing is read or written through it.
      MR_RETURN_IF_ERROR(fs->Remove(p));
      removed.push_back(p);
    }
    MR_RETURN_IF_ERROR(fs->SyncDir(DirName(s)));
  }
  return removed;
}

Result<std::unique_ptr<AppendJournal>> AppendJournal::Begin(const std::vector<ShardState>& shards, FileSystem* fs) {
  std::unique_ptr<AppendJournal> out(new AppendJournal());
  out->fs_ = fs;
  out->master_ = shards.at(0).path;
  for (const auto& s : shards) out->shards_.push_back(s.path);
  // Recovery writes only regular files reached without a link: a shard it
  // could not restore is refused before anything changes.
  std::vector<OwnFileIdentity> ids;
  for (const auto& s : shards) {
    auto id = StatOwnFile(s.path);
    if (!id.ok()) return id.status().WithContext("appending (a crash could not be rolled back)");
    ids.push_back(*id);
  }
  const std::string append_id = NewAppendId();
  for (size_t i = 0; i < shards.size(); ++i) {
    const ShardState& s = shards[i];
    Journal j;
    j.shard = BaseName(s.path);
    j.master = BaseName(shards[0].path);
    j.append_id = append_id;
    j.identity = ids[i];
    if (i == 0) {
      for (const auto& x : shards) j.shards.push_back(BaseName(x.path));
    }
    j.size = s.size;
    j.header_size = s.header_size;
    j.header = s.header;
    j.regions = s.regions;
    // The index backup exists before its journal: a journal always has one.
    Status st = BackUpIndex(s.path, fs);
    if (st.ok()) st = WriteJournal(s.path, j, fs);
    if (!st.ok()) {
      (void)out->RollBack();
      return st.WithContext("writing the append journal");
    }
    if (i == 0) {
      st = fs->SyncDir(DirName(s.path));
      if (!st.ok()) {
        (void)out->RollBack();
        return st;
      }
    }
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(DirName(out->master_)));
  return out;
}

Status AppendJournal::Commit() {
  if (done_) return Status::OK();
  const std::string dir = DirName(master_);
  MR_RETURN_IF_ERROR(fs_->Remove(JournalPath(master_)));
  MR_RETURN_IF_ERROR(fs_->SyncDir(dir));
  done_ = true;  // committed; what follows only tidies up
  for (const auto& s : shards_) {
    (void)fs_->Remove(JournalPath(s));
    (void)fs_->Remove(JournalIndexPath(s));
  }
  (void)fs_->SyncDir(dir);
  return Status::OK();
}

Status AppendJournal::RollBack() {
  if (done_) return Status::OK();
  if (!fs_->Exists(JournalPath(master_))) {
    // Begin failed before the master journal existed: nothing was touched.
    (void)fs_->Remove(JournalIndexPath(master_));
    done_ = true;
    return Status::OK();
  }
  MR_RETURN_IF_ERROR(::mindrecord::RollBack(master_, Match::kSameFiles, fs_));
  done_ = true;
  return Status::OK();
}

}  // namespace mindrecord
