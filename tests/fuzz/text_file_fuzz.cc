// Text files (TextFileDataset's source): the input is split into two files
// at its first byte's offset; the lines are counted, the source opened with
// that count and every row read (lines that are not UTF-8 are row errors).
// The first byte's low bit keeps empty lines as rows (EnWik9Dataset).
#include "pipeline/nodes/text_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(text_file) {
  const auto dir = fuzz::FreshScratch();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t cut = size ? std::min<size_t>(static_cast<unsigned char>(in[0]), size) : 0;
  fuzz::WriteFile(dir / "a.txt", in.substr(0, cut));
  fuzz::WriteFile(dir / "b.txt", in.substr(cut));
  const std::vector<std::string> files = {(dir / "a.txt").string(), (dir / "b.txt").string()};
  const bool empty = size && (static_cast<unsigned char>(in[0]) & 1);
  auto counts = CountTextFileLines(files, empty);
  if (!counts.ok()) return 0;
  const uint64_t rows = (*counts)[0] + (*counts)[1];
  nlohmann::json node = {{"node", "source"}, {"kind", "textfile"}, {"columns", {"text"}}, {"rows", rows},
                         {"args", {{"files", files}, {"empty_lines", empty}}}};
  auto src = OpenTextFileSource(node);
  if (!src.ok()) return 0;
  std::vector<uint64_t> ids;
  for (uint64_t i = rows; i-- > 0;) ids.push_back(i);
  (void)(*src)->Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  for (uint64_t i = 0; i < rows; ++i) (void)(*src)->Where(i);
  return 0;
}
