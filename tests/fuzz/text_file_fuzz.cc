// Text files (TextFileDataset's source): the input is split into two files
// at its first byte's offset; the lines are counted, the source opened with
// that count and every row read (lines that are not UTF-8 are row errors).
// The first byte's low bit keeps empty lines as rows (EnWik9Dataset). The
// same files are then read as tagged sentences (CoNLL2000Dataset, UDPOSDataset;
// the second bit picks tabs over spaces), and as CLUE JSON lines (WSC's
// columns, spans under "target").
#include "pipeline/nodes/clue_source.h"
#include "pipeline/nodes/tagged_source.h"
#include "pipeline/nodes/text_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

namespace {

void ReadAll(const Source& src) {
  std::vector<uint64_t> ids;
  for (uint64_t i = src.num_rows(); i-- > 0;) ids.push_back(i);
  (void)src.Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  for (uint64_t i = 0; i < src.num_rows(); ++i) (void)src.Where(i);
}

void ReadTagged(const std::vector<std::string>& files, const char* delim) {
  auto counts = CountTaggedSentences(files);
  if (!counts.ok()) return;
  nlohmann::json node = {{"node", "source"},   {"kind", "tagged"},
                         {"columns", {"a", "b", "c"}}, {"rows", (*counts)[0] + (*counts)[1]},
                         {"args", {{"files", files}, {"delimiter", delim}}}};
  auto src = OpenTaggedSource(node);
  if (src.ok()) ReadAll(**src);
}

void ReadClue(const std::vector<std::string>& files, uint64_t rows) {
  nlohmann::json node = {{"node", "source"},
                         {"kind", "clue"},
                         {"columns", {"idx", "label", "span1_index", "span1_text", "text"}},
                         {"rows", rows},
                         {"args", {{"files", files}, {"nested", {"span1_index", "span1_text"}}}}};
  auto src = OpenClueSource(node);
  if (src.ok()) ReadAll(**src);
}

}  // namespace

MINDRECORD_FUZZ_TARGET(text_file) {
  const auto dir = fuzz::FreshScratch();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t cut = size ? std::min<size_t>(static_cast<unsigned char>(in[0]), size) : 0;
  fuzz::WriteFile(dir / "a.txt", in.substr(0, cut));
  fuzz::WriteFile(dir / "b.txt", in.substr(cut));
  const std::vector<std::string> files = {(dir / "a.txt").string(), (dir / "b.txt").string()};
  const bool empty = size && (static_cast<unsigned char>(in[0]) & 1);
  ReadTagged(files, size && (static_cast<unsigned char>(in[0]) & 2) ? "\t" : " ");
  auto counts = CountTextFileLines(files, empty);
  if (!counts.ok()) return 0;
  const uint64_t rows = (*counts)[0] + (*counts)[1];
  nlohmann::json node = {{"node", "source"}, {"kind", "textfile"}, {"columns", {"text"}}, {"rows", rows},
                         {"args", {{"files", files}, {"empty_lines", empty}}}};
  auto src = OpenTextFileSource(node);
  if (!src.ok()) return 0;
  ReadAll(**src);
  if (!empty) ReadClue(files, rows);
  return 0;
}
