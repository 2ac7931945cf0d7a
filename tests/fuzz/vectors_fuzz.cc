// Pretrained vectors files (pipeline/ops/vector_table.h) and ToVectors: the
// first input byte picks the kind (Vectors, GloVe, FastText, CharNGram),
// lower_case_backup and max_vectors; the rest is the file. It is parsed from
// memory, then loaded from a file and looked up by a ToVectors op.
#include <vector>

#include "pipeline/ops/op.h"
#include "pipeline/ops/vector_table.h"
#include "pipeline/strings.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(vectors) {
  if (size == 0) return 0;
  const uint8_t pick = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int64_t max_vectors = (pick >> 3) & 3;
  (void)ops::VectorTable::Parse(text, "v.txt", max_vectors);

  static const char* kNames[] = {"vectors.txt", "glove.6B.50d.txt", "wiki.vec", "charNgram.txt"};
  static const char* kKinds[] = {"Vectors", "GloVe", "FastText", "CharNGram"};
  const auto dir = fuzz::FreshScratch();
  const auto file = dir / kNames[pick & 3];
  fuzz::WriteFile(file, text);
  nlohmann::json spec = {{"op", "ToVectors"},
                         {"vectors", {{"kind", kKinds[pick & 3]}, {"file", file.string()}, {"max_vectors", max_vectors}}},
                         {"lower_case_backup", (pick & 4) != 0}};
  auto op = MakeOp(spec);
  if (!op.ok()) return 0;
  std::vector<std::string> tokens = {"a", "", "The", "2gram-ab", "\xff\xfe"};
  std::mt19937_64 rng(0);
  (void)(*op)->Apply(MakeStrings(Shape{5}, std::span<const std::string>(tokens)), rng);
  (void)(*op)->Apply(MakeStrings(Shape{1}, std::span<const std::string>(tokens)), rng);
  return 0;
}
