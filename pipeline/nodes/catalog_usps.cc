// USPSDataset's files (catalog_layouts.h): usps (usage train) and usps.t
// (test; all: train then test), decompressed, a digit per line in libsvm's
// form "LABEL 1:V1 2:V2 ... 256:V256" with the 256 values in [-1, 1]. Image
// uint8 [16, 16, 1], a pixel (V + 1) / 2 * 255 truncated, as MindSpore's;
// label LABEL - 1 (int32). Parsed whole when the dataset is made (USPS is
// 9,298 digits); a malformed line is an error naming the file and line.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListUsps(const nlohmann::json& args) {
  const std::string who = "USPSDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> files;
  if (usage == "train" || usage == "all") files.push_back("usps");
  if (usage == "test" || usage == "all") files.push_back("usps.t");
  if (files.empty())
    return Status::InvalidArgument(who + ": usage must be 'train', 'test' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "label"};
  for (const auto& f : files) {
    const std::string path = (dir / f).string();
    MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, who));
    for (const auto& [number, line] : NumberedLines(text)) {
      const auto tok = WhitespaceTokens(line);
      if (tok.empty()) continue;
      const std::string where = path + ":" + std::to_string(number);
      if (tok.size() != 257)
        return Status::Corruption(who + ": " + where + ": " + std::to_string(tok.size()) +
                                  " fields, a digit has 257 (its label and 256 'index:value' pixels)");
      MR_ASSIGN_OR_RETURN(int64_t label, CatalogCount(tok[0], 10, who, where));
      if (label < 1) return Status::Corruption(who + ": " + where + ": label 0, USPS labels are 1-10");
      Tensor image = Tensor::Make(TensorType::kUInt8, {16, 16, 1});
      uint8_t* px = image.MutableData();
      for (size_t k = 1; k <= 256; ++k) {
        const std::string_view t = tok[k];
        const size_t colon = t.find(':');
        if (colon == std::string_view::npos)
          return Status::Corruption(who + ": " + where + ": field " + std::to_string(k + 1) + " '" +
                                    std::string(t.substr(0, 32)) + "' is not 'index:value'");
        MR_ASSIGN_OR_RETURN(int64_t index, CatalogCount(t.substr(0, colon), 256, who, where));
        if (index != static_cast<int64_t>(k))
          return Status::Corruption(who + ": " + where + ": pixel index " + std::to_string(index) + " where " +
                                    std::to_string(k) + " is due");
        MR_ASSIGN_OR_RETURN(double v, CatalogNumber(t.substr(colon + 1), who, where));
        if (v < -1 || v > 1)
          return Status::Corruption(who + ": " + where + ": pixel " + std::to_string(k) + " value " +
                                    std::string(t.substr(colon + 1, 32)) + " is outside [-1, 1]");
        // MindSpore parses the value as a float, then computes in double.
        px[k - 1] = static_cast<uint8_t>((static_cast<double>(static_cast<float>(v)) + 1.0) / 2.0 * 255.0);
      }
      c.values.push_back(std::move(image));
      c.values.push_back(CatalogInt32(static_cast<int32_t>(label - 1)));
    }
  }
  return c;
}

}  // namespace mindrecord
