#include "writers/append_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <nlohmann/json.hpp>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "readers/header_io.h"

namespace mindrecord {
namespace {

constexpr std::string_view kMagic = "mindrecord-append-journal 1\n";

using Region = AppendJournal::ShardState::Region;

struct Journal {
  std::string master;               // base name of the master's shard
  std::vector<std::string> shards;  // master only: every shard's base name
  uint64_t size = 0;
  uint64_t header_size = 0;
  std::string header;
  std::vector<Region> regions;
};

std::string DbBackup(const std::string& shard_path) { return JournalPath(shard_path) + ".db"; }

// Writes `text` as the whole of `path`: a temporary beside it, fsynced, then
// renamed over it (the caller syncs the folder).
Status WriteWhole(const std::string& path, std::string_view text, FileSystem* fs) {
  const std::string tmp = JoinPath(DirName(path), "." + BaseName(path) + ".tmp-" + std::to_string(getpid()));
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenWrite(tmp));
  Status st = f->WriteAt(0, text);
  if (st.ok()) st = f->Sync();
  if (st.ok()) st = f->Close();
  if (st.ok()) st = fs->Rename(tmp, path);
  if (!st.ok()) (void)fs->Remove(tmp);
  return st;
}

Result<Journal> ReadJournal(const std::string& path, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
  std::string text(f->size(), '\0');
  MR_RETURN_IF_ERROR(f->ReadAt(0, text.size(), text.data()));
  auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": append journal is damaged (" + why +
                              "); the dataset may hold a half-finished append");
  };
  if (text.compare(0, kMagic.size(), kMagic) != 0) return bad("no journal signature");
  const size_t eol = text.find('\n', kMagic.size());
  if (eol == std::string::npos) return bad("no description line");
  nlohmann::json j = nlohmann::json::parse(text.substr(kMagic.size(), eol - kMagic.size()), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("description is not JSON");
  Journal out;
  try {
    out.master = j.at("master").get<std::string>();
    if (j.contains("shards")) out.shards = j.at("shards").get<std::vector<std::string>>();
    out.size = j.at("size").get<uint64_t>();
    out.header_size = j.at("header_size").get<uint64_t>();
    const uint64_t len = j.at("header_bytes").get<uint64_t>();
    std::string_view rest(text);
    rest.remove_prefix(eol + 1);
    if (ChecksumHex(Xxh3(rest)) != j.at("xxh3").get<std::string>()) return bad("checksum mismatch");
    if (len > rest.size()) return bad("header bytes truncated");
    out.header = rest.substr(0, len);
    rest.remove_prefix(len);
    for (const auto& r : j.value("regions", nlohmann::json::array())) {
      Region g;
      g.offset = r.at(0).get<uint64_t>();
      g.length = r.at(1).get<uint64_t>();
      if (r.at(2).get<bool>()) {  // stored bytes
        if (g.length > rest.size()) return bad("region bytes truncated");
        g.bytes = rest.substr(0, g.length);
        rest.remove_prefix(g.length);
      }
      out.regions.push_back(std::move(g));
    }
    if (!rest.empty()) return bad("trailing bytes");
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
  if (out.header.size() < kLengthPrefix || out.header.size() > out.header_size) return bad("header size");
  return out;
}

Status WriteJournal(const std::string& shard_path, const Journal& j, FileSystem* fs) {
  std::string body = j.header;
  nlohmann::json regions = nlohmann::json::array();
  for (const auto& r : j.regions) {
    regions.push_back({r.offset, r.length, !r.bytes.empty()});
    body += r.bytes;
  }
  nlohmann::json d = {{"master", j.master},          {"size", j.size},   {"header_size", j.header_size},
                      {"header_bytes", j.header.size()}, {"regions", regions}, {"xxh3", ChecksumHex(Xxh3(body))}};
  if (!j.shards.empty()) d["shards"] = j.shards;
  std::string text(kMagic);
  text += d.dump();
  text += '\n';
  text += body;
  return WriteWhole(JournalPath(shard_path), text, fs);
}

// Keeps the shard's index as it is now under DbBackup(): a hard link, or a
// copy where the file system has none.
Status BackUpIndex(const std::string& shard_path, FileSystem* fs) {
  const std::string db = shard_path + ".db", backup = DbBackup(shard_path);
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

Status RestoreShard(const std::string& shard_path, const Journal& j, FileSystem* fs) {
  MR_ASSIGN_OR_RETURN(auto probe, fs->OpenRead(shard_path));
  const uint64_t cur = probe->size();
  probe.reset();
  MR_ASSIGN_OR_RETURN(auto f, fs->OpenUpdate(shard_path));
  MR_RETURN_IF_ERROR(f->WriteAt(0, j.header));
  // A longer header the append wrote may have spilled past the old one.
  const uint64_t zero_end = std::min(j.header_size, cur);
  std::string buf;
  for (uint64_t off = j.header.size(); off < zero_end; off += buf.size()) {
    buf.assign(std::min<uint64_t>(kMiB, zero_end - off), '\0');
    MR_RETURN_IF_ERROR(f->ReadAt(off, buf.size(), buf.data()));
    if (buf.find_first_not_of('\0') != std::string::npos) {
      MR_RETURN_IF_ERROR(f->WriteAt(off, std::string(buf.size(), '\0')));
    }
  }
  for (const auto& r : j.regions) {
    if (r.offset >= j.size) continue;
    const uint64_t len = std::min(r.length, j.size - r.offset);
    MR_RETURN_IF_ERROR(f->WriteAt(r.offset, r.bytes.empty() ? std::string(len, '\0') : r.bytes.substr(0, len)));
  }
  MR_RETURN_IF_ERROR(f->Truncate(j.size));
  MR_RETURN_IF_ERROR(f->Sync());
  MR_RETURN_IF_ERROR(f->Close());
  const std::string backup = DbBackup(shard_path);
  if (fs->Exists(backup)) {
    // Same inode (the append never replaced the index): rename is a no-op.
    MR_RETURN_IF_ERROR(fs->Rename(backup, shard_path + ".db"));
    MR_RETURN_IF_ERROR(fs->Remove(backup));
  }
  return Status::OK();
}

// Rolls back the append whose master journal belongs to `first_shard`.
// Idempotent: a rollback interrupted by another crash is finished by the next.
Status RollBack(const std::string& first_shard, FileSystem* fs) {
  const std::string dir = DirName(first_shard);
  const std::string master = JournalPath(first_shard);
  MR_ASSIGN_OR_RETURN(Journal m, ReadJournal(master, fs));
  std::vector<std::string> shards;
  for (const auto& name : m.shards) shards.push_back(JoinPath(dir, name));
  if (shards.empty()) shards.push_back(first_shard);
  for (const auto& s : shards) {
    const std::string jp = JournalPath(s);
    if (!fs->Exists(jp)) continue;  // the append had not reached this shard
    Journal j;
    if (s == first_shard) {
      j = m;
    } else {
      MR_ASSIGN_OR_RETURN(j, ReadJournal(jp, fs));
    }
    Status st = RestoreShard(s, j, fs);
    if (!st.ok()) return st.WithContext("rolling back an interrupted append from " + master);
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  MR_RETURN_IF_ERROR(fs->Remove(master));
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  for (const auto& s : shards) {
    MR_RETURN_IF_ERROR(fs->Remove(JournalPath(s)));
    MR_RETURN_IF_ERROR(fs->Remove(DbBackup(s)));
  }
  return fs->SyncDir(dir);
}

Status LockOrBusy(int fd, int op, int wait_ms, const std::string& path, const std::string& busy) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (flock(fd, op | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return Status::IOError(path + ": lock: " + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) return Status::IOError(path + ": " + busy);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::OK();
}

constexpr const char* kAppendBusy = "an append to this dataset is in progress; open it after the append commits";

}  // namespace

std::string JournalPath(const std::string& shard_path) { return shard_path + ".mr-journal"; }

Result<std::unique_ptr<DatasetLock>> DatasetLock::Acquire(const std::string& first_shard, Mode mode, FileSystem* fs,
                                                          int wait_ms) {
  std::unique_ptr<DatasetLock> lock(new DatasetLock());
  lock->fd_ = open(first_shard.c_str(), O_RDONLY | O_CLOEXEC);
  if (lock->fd_ < 0) {
    if (errno == ENOENT) return Status::NotFound(first_shard + ": no such file");
    return Status::IOError(first_shard + ": open: " + std::strerror(errno));
  }
  if (mode == Mode::kShared) {
    MR_RETURN_IF_ERROR(LockOrBusy(lock->fd_, LOCK_SH, 0, first_shard, kAppendBusy));
  } else {
    MR_RETURN_IF_ERROR(LockOrBusy(lock->fd_, LOCK_EX, wait_ms, first_shard,
                                  "another writer is appending to this dataset (or a reader is opening it)"));
  }
  if (!fs->Exists(JournalPath(first_shard))) return lock;
  // A master journal nobody holds the lock for: its appender died.
  if (mode == Mode::kShared) MR_RETURN_IF_ERROR(LockOrBusy(lock->fd_, LOCK_EX, wait_ms, first_shard, kAppendBusy));
  if (fs->Exists(JournalPath(first_shard))) {
    MR_RETURN_IF_ERROR(RollBack(first_shard, fs));
    lock->rolled_back_ = true;
  }
  if (mode == Mode::kShared) MR_RETURN_IF_ERROR(LockOrBusy(lock->fd_, LOCK_SH, wait_ms, first_shard, kAppendBusy));
  return lock;
}

DatasetLock::~DatasetLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

Status RecoverShardJournal(const std::string& shard_path, FileSystem* fs) {
  const std::string jp = JournalPath(shard_path);
  if (!fs->Exists(jp)) return Status::OK();
  MR_ASSIGN_OR_RETURN(Journal j, ReadJournal(jp, fs));
  const std::string first = JoinPath(DirName(shard_path), j.master);
  // Rolls back when the master journal is hot; under the exclusive lock no
  // append is running, so a journal still left is stale.
  auto lock = DatasetLock::Acquire(first, DatasetLock::Mode::kExclusive, fs);
  if (!lock.ok()) {
    if (fs->Exists(JournalPath(first))) return Status::IOError(first + ": " + kAppendBusy);
    return lock.status();
  }
  if (fs->Exists(jp)) {
    MR_RETURN_IF_ERROR(fs->Remove(jp));
    MR_RETURN_IF_ERROR(fs->Remove(DbBackup(shard_path)));
  }
  return Status::OK();
}

std::string CommitRecordPath(const std::string& first_shard) { return first_shard + ".mr-commit"; }

Status WriteCommitRecord(const std::string& first_shard,
                         const std::vector<std::pair<std::string, std::string>>& renames, FileSystem* fs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [from, to] : renames) list.push_back({BaseName(from), BaseName(to)});
  std::string body = list.dump();
  std::string text = "mindrecord-commit 1\n" + ChecksumHex(Xxh3(body)) + "\n" + body;
  const std::string path = CommitRecordPath(first_shard);
  MR_RETURN_IF_ERROR(WriteWhole(path, text, fs));
  return fs->SyncDir(DirName(path));
}

Status FinishCommit(const std::string& first_shard, FileSystem* fs) {
  const std::string path = CommitRecordPath(first_shard);
  if (!fs->Exists(path)) return Status::OK();
  const std::string dir = DirName(path);
  std::string text;
  {
    MR_ASSIGN_OR_RETURN(auto f, fs->OpenRead(path));
    text.resize(f->size());
    MR_RETURN_IF_ERROR(f->ReadAt(0, text.size(), text.data()));
  }
  const size_t a = text.find('\n'), b = a == std::string::npos ? a : text.find('\n', a + 1);
  if (b == std::string::npos || text.compare(0, a, "mindrecord-commit 1") != 0 ||
      ChecksumHex(Xxh3(std::string_view(text).substr(b + 1))) != text.substr(a + 1, b - a - 1)) {
    return Status::Corruption(path + ": commit record is damaged; the dataset's last commit may be incomplete");
  }
  nlohmann::json list = nlohmann::json::parse(text.substr(b + 1), nullptr, false);
  if (!list.is_array()) return Status::Corruption(path + ": commit record is not a JSON list");
  for (const auto& pair : list) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      return Status::Corruption(path + ": commit record entry is not [temporary, final]");
    }
    const std::string from = JoinPath(dir, pair[0].get<std::string>());
    if (!fs->Exists(from)) continue;  // renamed before the crash
    MR_RETURN_IF_ERROR(fs->Rename(from, JoinPath(dir, pair[1].get<std::string>())));
  }
  MR_RETURN_IF_ERROR(fs->SyncDir(dir));
  MR_RETURN_IF_ERROR(fs->Remove(path));
  return fs->SyncDir(dir);
}

Result<std::unique_ptr<DatasetLock>> LockDatasetAt(const std::string& path, DatasetLock::Mode mode, FileSystem* fs) {
  MR_RETURN_IF_ERROR(FinishCommit(path, fs));
  MR_RETURN_IF_ERROR(RecoverShardJournal(path, fs));
  std::vector<std::string> shards;
  {
    auto f = fs->OpenRead(path);
    if (!f.ok()) return std::unique_ptr<DatasetLock>();
    auto h = ReadShardHeader(**f, false);
    if (!h.ok() || h->shard_addresses.empty()) return std::unique_ptr<DatasetLock>();
    for (const auto& a : h->shard_addresses) shards.push_back(JoinPath(DirName(path), BaseName(a)));
  }
  const std::string& first = shards[0];
  if (first != path) MR_RETURN_IF_ERROR(FinishCommit(first, fs));
  if (!fs->Exists(first)) return std::unique_ptr<DatasetLock>();
  MR_ASSIGN_OR_RETURN(auto lock, DatasetLock::Acquire(first, mode, fs));
  // Under the lock no append runs, and without a master journal any other
  // journal is what a committed append had not yet tidied: remove it (best
  // effort; a read-only opener leaves it for the next one).
  if (!fs->Exists(JournalPath(first))) {
    if (fs->Exists(DbBackup(first))) (void)fs->Remove(DbBackup(first));
    for (size_t i = 1; i < shards.size(); ++i) {
      if (fs->Exists(JournalPath(shards[i]))) (void)fs->Remove(JournalPath(shards[i]));
      if (fs->Exists(DbBackup(shards[i]))) (void)fs->Remove(DbBackup(shards[i]));
    }
  }
  return lock;
}

Result<std::unique_ptr<AppendJournal>> AppendJournal::Begin(const std::vector<ShardState>& shards, FileSystem* fs) {
  std::unique_ptr<AppendJournal> out(new AppendJournal());
  out->fs_ = fs;
  out->master_ = shards.at(0).path;
  for (const auto& s : shards) out->shards_.push_back(s.path);
  for (size_t i = 0; i < shards.size(); ++i) {
    const ShardState& s = shards[i];
    Journal j;
    j.master = BaseName(shards[0].path);
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
    (void)fs_->Remove(DbBackup(s));
  }
  (void)fs_->SyncDir(dir);
  return Status::OK();
}

Status AppendJournal::RollBack() {
  if (done_) return Status::OK();
  if (!fs_->Exists(JournalPath(master_))) {
    // Begin failed before the master journal existed: nothing was touched.
    (void)fs_->Remove(DbBackup(master_));
    done_ = true;
    return Status::OK();
  }
  MR_RETURN_IF_ERROR(::mindrecord::RollBack(master_, fs_));
  done_ = true;
  return Status::OK();
}

}  // namespace mindrecord
