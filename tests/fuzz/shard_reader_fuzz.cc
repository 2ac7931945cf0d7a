// A whole single-shard dataset through ShardReader: the input is the .db
// file, the file separator, then the shard file (named as the index's
// SHARD_NAME says). Opens it, reads rows by id (32 spread over the shard and
// its last), scans its first and last rows, groups by index field;
// then the same without the .db. Then all of it again with the shard's page
// and header checksums made to match its bytes: a crafted dataset's
// checksums are as easy to compute, and only then are the pages past the
// checksum (and the walks made while hashing them) reached.
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mindrecord/checksum.h"
#include "mindrecord/constants.h"
#include "mindrecord/piece_table.h"
#include "readers/shard_reader.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/sqlite_peek.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

namespace {

// `shard` with every page's checksum set to that of its bytes (added where
// missing) and the header's sealed; empty when its header JSON does not
// parse or no longer fits. Its piece tables (mindrecord/piece_table.h) too:
// where the header names tables, their slices' own checksums are made to
// match the bytes there (crafted first rows and offsets reach the walk);
// where it names none, tables computed from the pages are added at the end
// of the header area (the walk meets whatever the prefixes say).
std::string WithMatchingChecksums(std::string_view shard) {
  uint64_t len;
  if (shard.size() < 8) return {};
  std::memcpy(&len, shard.data(), 8);
  if (len > shard.size() - 8) return {};
  auto j = nlohmann::json::parse(shard.substr(8, len), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("page") || !j["page"].is_array()) return {};
  const auto hs = j.value("header_size", nlohmann::json()), ps = j.value("page_size", nlohmann::json());
  if (!hs.is_number_unsigned() || !ps.is_number_unsigned()) return {};
  const uint64_t header_size = hs.get<uint64_t>(), page_size = ps.get<uint64_t>();
  if (header_size < 8 || header_size > shard.size()) return {};
  std::string tables;  // computed from the pages, by page index (empty: not all pages could be)
  bool all_pages = true;
  for (auto& p : j["page"]) {
    if (!p.is_object()) { all_pages = false; continue; }
    const auto id = p.value("page_id", nlohmann::json()), used = p.value("page_size", nlohmann::json());
    if (!id.is_number_unsigned() || !used.is_number_unsigned() || page_size == 0) { all_pages = false; continue; }
    const uint64_t page = id.get<uint64_t>(), n = used.get<uint64_t>();
    if (page > (shard.size() - header_size) / page_size || n > page_size) { all_pages = false; continue; }
    const uint64_t off = header_size + page * page_size;
    if (off > shard.size() || n > shard.size() - off) { all_pages = false; continue; }
    p[kPageChecksumKey] = ChecksumHex(Xxh3(shard.substr(off, n)));
    PieceTableBuilder b;
    b.Feed(shard.substr(off, n));
    tables += EncodePieceSlice(b.Finish());
  }
  const bool named = j.contains(kPieceTableKey);
  if (!named && all_pages && !tables.empty() && tables.size() < header_size) {
    j[kPieceTableKey] = {{"piece_bytes", kPieceBytes}, {"offset", header_size - tables.size()}, {"bytes", tables.size()}};
  } else {
    tables.clear();
  }
  j[kHeaderChecksumKey] = std::string(16, '0');
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  SealHeaderChecksum(&text);
  if (8 + text.size() + tables.size() > header_size) return {};
  std::string out(shard);
  const uint64_t n = text.size();
  std::memcpy(out.data(), &n, 8);
  // Zeros over the old JSON only: what follows it (tables) stays.
  std::memset(out.data() + 8, 0, std::min(len, header_size - 8));
  std::memcpy(out.data() + 8, text.data(), n);
  if (!tables.empty()) std::memcpy(out.data() + header_size - tables.size(), tables.data(), tables.size());
  if (named) {
    auto h = ShardHeader::Parse(text, "fuzz");
    if (h.ok()) {
      h->json_bytes = n;
      auto layout = PieceTableLayout::FromHeader(*h, 8 + n, "fuzz");
      if (layout.ok() && layout->present()) {
        for (size_t i = 0; i < layout->pieces.size(); ++i) {
          const uint64_t at = layout->slice_at[i], entries = layout->pieces[i] * kPieceEntryBytes;
          const uint64_t sum = Xxh3(std::string_view(out).substr(at, entries));
          std::memcpy(out.data() + at + entries, &sum, 8);
        }
      }
    }
  }
  return out;
}

}  // namespace

MINDRECORD_FUZZ_TARGET(shard_reader) {
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "probe.db", parts[0]);
  const std::string name = fuzz::PeekIndex((dir / "probe.db").string()).shard_name;
  const std::string shard = (dir / name).string();
  std::filesystem::rename(dir / "probe.db", shard + ".db");
  const std::string sealed = WithMatchingChecksums(parts[1]);
  // With the index, then without it: rows are located from the pages alone
  // (the lazy walk), and with the index a group whose walk fails falls back to it.
  for (int pass = 0; pass < 4; ++pass) {
    const bool with_index = pass % 2 == 0;
    if (pass == 2 && sealed.empty()) break;
    if (pass == 0 || pass == 2) {
      fuzz::WriteFile(shard, pass == 0 ? parts[1] : std::string_view(sealed));
      if (pass == 2) fuzz::WriteFile(shard + ".db", parts[0]);
    }
    if (!with_index) std::filesystem::remove(shard + ".db");
    for (IoMode mode : {IoMode::kPread, IoMode::kMmap, IoMode::kDirect}) {
      ReaderOptions options;
      options.io_mode = mode;
      auto reader = ShardReader::Open(shard, options);
      if (!reader.ok()) break;
      const ShardReader& r = **reader;
      // 32 rows spread over the shard (every page reachable) and its last
      // row, not the first 256: an exec took ~60 ms of wide rows under ASan,
      // 9-17 execs a second, too few for the fuzzer to get anywhere.
      const uint64_t rows = r.num_rows(), n = std::min<uint64_t>(rows, 32);
      const uint64_t step = rows <= 32 ? 1 : rows / 32;
      for (uint64_t k = 0; k < n; ++k) {
        (void)r.ReadRow(k * step);
        (void)r.ReadEncoded(k * step);
      }
      if (rows > 0) (void)r.ReadRow(rows - 1);
      (void)r.ReadRow(rows);
      auto scan = [&](const Projection* proj) {
        (void)r.Scan(0, n, proj, [](uint64_t, Row&&) { return Status::OK(); });
        if (rows > n) (void)r.Scan(rows - std::min<uint64_t>(rows - n, 8), rows, proj, [](uint64_t, Row&&) {
            return Status::OK();
          });
      };
      scan(nullptr);
      auto proj = r.MakeProjection({r.schema().fields().empty() ? "" : r.schema().fields().back().name});
      if (proj.ok()) scan(&*proj);
      for (const auto& f : r.index_fields()) (void)r.GroupByIndexField(f);
    }
  }
  return 0;
}
