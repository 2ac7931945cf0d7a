// CSV files (CSVDataset's source, MindSpore's grammar): the first input byte
// picks the delimiter and whether the first line is a header, the rest is
// the file; the records are counted, the source opened with that count and
// every row read as int32, float32 and string columns.
#include "pipeline/nodes/csv_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(csv_source) {
  if (size == 0) return 0;
  const char delim = ",;\t|"[data[0] & 3];
  const bool header = (data[0] & 4) != 0;
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "in.csv", std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  const std::vector<std::string> files = {(dir / "in.csv").string()};
  auto counts = CountCsvRecords(files, delim, header);
  if (!counts.ok()) return 0;
  for (int ncols = 1; ncols <= 3; ++ncols) {
    nlohmann::json names = nlohmann::json::array(), types = nlohmann::json::array();
    for (int c = 0; c < ncols; ++c) {
      names.push_back("c" + std::to_string(c));
      types.push_back(c == 0 ? "int32" : c == 1 ? "float32" : "string");
    }
    nlohmann::json node = {{"node", "source"}, {"kind", "csv"}, {"columns", names}, {"rows", (*counts)[0]},
                           {"args", {{"files", files}, {"delimiter", std::string(1, delim)}, {"types", types},
                                     {"header", header}}}};
    auto src = OpenCsvSource(node);
    if (!src.ok()) continue;
    std::vector<uint64_t> ids;
    for (uint64_t i = (*counts)[0]; i-- > 0;) ids.push_back(i);
    (void)(*src)->Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  }
  return 0;
}
