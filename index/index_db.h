// Opening a shard's SQLite index, which is as untrusted as the shard beside
// it (readers/README.md, "Threat model"): nothing stored in the file runs,
// nothing beside it is created, and what a query returns is bounded by the
// bytes of the file.
//
// - Read-only opens use SQLite's `immutable` URI parameter: no locks, and no
//   journal, WAL or shared-memory file beside the .db is read, rolled back
//   or created (a reader wrote `<db>-wal` and `<db>-shm` into the folder,
//   and a `<db>-journal` beside it made the index unreadable: "attempt to
//   write a readonly database"). Our writers and MindSpore's never change a
//   live .db in place: appends and rebuilds rename a new file over it.
// - Every connection has views and triggers disabled (an INDEXES view with a
//   recursive query never ended; an AFTER INSERT trigger ran during an append
//   and filled the disk), trusted_schema off (no function named in the
//   schema runs unless SQLite marks it harmless) and strings and blobs capped
//   at kMaxIndexValueBytes; read-only ones also SQLite's defensive mode
//   (writers keep `journal_mode=OFF` on their private files, which defensive
//   mode would ignore).
// - INDEXES and SHARD_NAME must be ordinary tables without generated columns
//   (a generated column computes its values on every read, from no bytes).
#pragma once

#include <string>
#include <string_view>

#include "mindrecord/status.h"

struct sqlite3;

namespace mindrecord {

enum class IndexDbMode { kReadOnly, kReadWrite, kCreate };

// Opens `path` as described above. kReadOnly and kReadWrite open an existing
// index and check its two tables (Corruption naming the file: "not a
// MindRecord index (...)"); kCreate makes a new file. A FIFO, device or
// directory in its place is refused before SQLite opens it. The caller
// closes the handle with sqlite3_close.
Result<sqlite3*> OpenIndexDb(const std::string& path, IndexDbMode mode);

// Opens the bytes of an index (an encrypted dataset's decrypted `.db`) as a
// read-only in-memory database with the same safety settings and table
// checks as kReadOnly; `path` only names it in errors.
Result<sqlite3*> OpenIndexDbImage(const std::string& path, std::string_view image);

}  // namespace mindrecord
