// A whole single-shard dataset through ShardReader: the input is the .db
// file, the file separator, then the shard file (named as the index's
// SHARD_NAME says). Opens it, reads rows by id, scans, groups by index field;
// then the same without the .db.
#include <string_view>

#include "readers/shard_reader.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/sqlite_peek.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(shard_reader) {
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "probe.db", parts[0]);
  const std::string name = fuzz::PeekIndex((dir / "probe.db").string()).shard_name;
  const std::string shard = (dir / name).string();
  std::filesystem::rename(dir / "probe.db", shard + ".db");
  fuzz::WriteFile(shard, parts[1]);
  // With the index, then without it: rows are located from the pages alone
  // (the lazy walk), and with the index a group whose walk fails falls back to it.
  for (bool with_index : {true, false}) {
    if (!with_index) std::filesystem::remove(shard + ".db");
    for (IoMode mode : {IoMode::kPread, IoMode::kMmap, IoMode::kDirect}) {
      ReaderOptions options;
      options.io_mode = mode;
      auto reader = ShardReader::Open(shard, options);
      if (!reader.ok()) break;
      const ShardReader& r = **reader;
      const uint64_t n = std::min<uint64_t>(r.num_rows(), 256);
      for (uint64_t i = 0; i < n; ++i) {
        (void)r.ReadRow(i);
        (void)r.ReadEncoded(i);
      }
      (void)r.ReadRow(r.num_rows());
      (void)r.Scan(0, n, nullptr, [](uint64_t, Row&&) { return Status::OK(); });
      auto proj = r.MakeProjection({r.schema().fields().empty() ? "" : r.schema().fields().back().name});
      if (proj.ok()) (void)r.Scan(0, n, &*proj, [](uint64_t, Row&&) { return Status::OK(); });
      for (const auto& f : r.index_fields()) (void)r.GroupByIndexField(f);
    }
  }
  return 0;
}
