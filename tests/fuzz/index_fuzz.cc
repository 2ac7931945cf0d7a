// Index loading: a .db file through IndexReader::Open (SHARD_NAME and column
// checks), LoadLocators and GroupBy on each index field of the compat schema
// the shard name points at.
#include <algorithm>
#include <string_view>

#include "index/index_reader.h"
#include "tests/fuzz/compat_schemas.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/sqlite_peek.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(index) {
  const auto dir = fuzz::FreshScratch();
  const std::string db = (dir / "shard.db").string();
  fuzz::WriteFile(db, std::string_view(reinterpret_cast<const char*>(data), size));
  const fuzz::IndexPeek peek = fuzz::PeekIndex(db);
  const std::string& name = peek.shard_name;
  fuzz::SchemaId id = fuzz::kArrays;
  if (name.rfind("imagenet", 0) == 0) id = fuzz::kImagenet;
  else if (name.rfind("testdata", 0) == 0) id = fuzz::kGraph;
  else if (name.rfind("twobytes", 0) == 0) id = fuzz::kTwoBytes;
  const bool legacy = id == fuzz::kImagenet || id == fuzz::kTwoBytes;  // v2.0 files
  auto reader = IndexReader::Open(db, name, legacy);
  if (!reader.ok()) return 0;
  // The claimed count, and one more (a missing row).
  (void)(*reader)->LoadLocators(std::min<uint64_t>(peek.rows, 100000));
  (void)(*reader)->LoadLocators(std::min<uint64_t>(peek.rows + 1, 100000));
  const Schema& schema = fuzz::Schemas()[id];
  for (const auto& field : schema.DefaultIndexFields()) {
    (void)(*reader)->GroupBy(field, schema, std::min<uint64_t>(peek.rows, 100000));
  }
  return 0;
}
