// SemeionDataset's semeion.data (catalog_layouts.h): a digit per line, 256
// pixels (0 or 1, written "1.0000") then a one-hot label of 10. Image uint8
// [16, 16] of 0 and 1, label the hot place (int32), as MindSpore's. Parsed
// whole when the dataset is made (1,593 digits); a malformed line is an
// error naming the file and line (MindSpore finds it when the row is read).
#include <cstring>
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListSemeion(const nlohmann::json& args) {
  const std::string who = "SemeionDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {}));
  const std::string path = (fs::path(args["dataset_dir"].get<std::string>()) / "semeion.data").string();
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, who));
  Catalog c;
  c.columns = {"image", "label"};
  for (const auto& [number, line] : NumberedLines(text)) {
    const auto tok = WhitespaceTokens(line);
    if (tok.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    if (tok.size() != 266)
      return Status::Corruption(who + ": " + where + ": " + std::to_string(tok.size()) +
                                " fields, a digit has 266 (256 pixels and 10 label places)");
    uint8_t v[266];
    for (size_t k = 0; k < 266; ++k) {
      MR_ASSIGN_OR_RETURN(double x, CatalogNumber(tok[k], who, where));
      if (x != 0 && x != 1)
        return Status::Corruption(who + ": " + where + ": field " + std::to_string(k + 1) + " is " +
                                  std::string(tok[k].substr(0, 32)) + ", not 0 or 1");
      v[k] = static_cast<uint8_t>(x);
    }
    int label = -1;
    for (int k = 0; k < 10; ++k)
      if (v[256 + k]) {
        if (label >= 0) return Status::Corruption(who + ": " + where + ": the label has more than one 1");
        label = k;
      }
    if (label < 0) return Status::Corruption(who + ": " + where + ": the label has no 1");
    Tensor image = Tensor::Make(TensorType::kUInt8, {16, 16});
    std::memcpy(image.MutableData(), v, 256);
    c.values.push_back(std::move(image));
    c.values.push_back(CatalogInt32(label));
  }
  return c;
}

}  // namespace mindrecord
