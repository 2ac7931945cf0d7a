#include "benchmarks/baselines/lmdb_store.h"

#include <unistd.h>

namespace mindrecord::bench {
namespace {

// OK for MDB_SUCCESS, else an IOError naming the file and the call.
Status Lmdb(int rc, const std::string& path, const char* what) {
  if (rc == MDB_SUCCESS) return Status::OK();
  return Status::IOError(path + ": lmdb " + what + ": " + mdb_strerror(rc));
}

}  // namespace

std::string LmdbKey(uint64_t i) {
  std::string k(8, '\0');
  for (int b = 0; b < 8; ++b) k[b] = static_cast<char>(i >> (56 - 8 * b));
  return k;
}

Result<std::unique_ptr<LmdbWriter>> LmdbWriter::Create(const std::string& path, uint64_t map_size) {
  std::unique_ptr<LmdbWriter> w(new LmdbWriter());
  w->h_.path = path;
  ::unlink(path.c_str());
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_create(&w->h_.env), path, "env_create"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_set_mapsize(w->h_.env, map_size), path, "set_mapsize"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_open(w->h_.env, path.c_str(), MDB_NOSUBDIR | MDB_NOLOCK | MDB_NOSYNC, 0644), path, "env_open"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_txn_begin(w->h_.env, nullptr, 0, &w->h_.txn), path, "txn_begin"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_dbi_open(w->h_.txn, nullptr, 0, &w->h_.dbi), path, "dbi_open"));
  return w;
}

LmdbHandles::~LmdbHandles() {
  if (txn) mdb_txn_abort(txn);
  if (env) mdb_env_close(env);
}

Status LmdbWriter::Append(std::string_view value) {
  if (!h_.txn) return Status::Internal(h_.path + ": lmdb writer is closed");
  std::string key = LmdbKey(next_);
  MDB_val k{key.size(), key.data()}, v{value.size(), const_cast<char*>(value.data())};
  MR_RETURN_IF_ERROR(Lmdb(mdb_put(h_.txn, h_.dbi, &k, &v, MDB_APPEND), h_.path, "put"));
  ++next_;
  return Status::OK();
}

Status LmdbWriter::Close(bool sync) {
  if (!h_.txn) return Status::OK();
  MDB_txn* txn = h_.txn;
  h_.txn = nullptr;
  MR_RETURN_IF_ERROR(Lmdb(mdb_txn_commit(txn), h_.path, "txn_commit"));
  if (sync) MR_RETURN_IF_ERROR(Lmdb(mdb_env_sync(h_.env, 1), h_.path, "env_sync"));
  return Status::OK();
}

Result<std::unique_ptr<LmdbReader>> LmdbReader::Open(const std::string& path) {
  std::unique_ptr<LmdbReader> r(new LmdbReader());
  r->h_.path = path;
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_create(&r->h_.env), path, "env_create"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_set_mapsize(r->h_.env, uint64_t{1} << 34), path, "set_mapsize"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_open(r->h_.env, path.c_str(), MDB_RDONLY | MDB_NOSUBDIR | MDB_NOLOCK, 0644), path, "env_open"));
  MDB_stat st;
  MR_RETURN_IF_ERROR(Lmdb(mdb_env_stat(r->h_.env, &st), path, "env_stat"));
  r->rows_ = st.ms_entries;
  MR_RETURN_IF_ERROR(Lmdb(mdb_txn_begin(r->h_.env, nullptr, MDB_RDONLY, &r->h_.txn), path, "txn_begin"));
  MR_RETURN_IF_ERROR(Lmdb(mdb_dbi_open(r->h_.txn, nullptr, 0, &r->h_.dbi), path, "dbi_open"));
  return r;
}

Result<std::string_view> LmdbReader::Get(uint64_t id) const {
  std::string key = LmdbKey(id);
  MDB_val k{key.size(), key.data()}, v;
  MR_RETURN_IF_ERROR(Lmdb(mdb_get(h_.txn, h_.dbi, &k, &v), h_.path, "get"));
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

Status LmdbReader::Scan(const std::function<Status(std::string_view)>& fn) const {
  MDB_cursor* cur;
  MR_RETURN_IF_ERROR(Lmdb(mdb_cursor_open(h_.txn, h_.dbi, &cur), h_.path, "cursor_open"));
  MDB_val k, v;
  Status st;
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc != MDB_NOTFOUND; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (rc != MDB_SUCCESS) {
      st = Lmdb(rc, h_.path, "cursor_get");
      break;
    }
    st = fn(std::string_view(static_cast<const char*>(v.mv_data), v.mv_size));
    if (!st.ok()) break;
  }
  mdb_cursor_close(cur);
  return st;
}

}  // namespace mindrecord::bench
