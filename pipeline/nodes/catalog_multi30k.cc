// Multi30kDataset's sentence pairs (catalog_layouts.h): the lines of
// training/train.en, validation/val.en and mmt16_task1_test/test.en with
// those of the .de file beside each, in step (usage all: test, train, valid,
// MindSpore's order by path). language_pair ["en", "de"] gives text the
// English line and translation the German one; ["de", "en"] the other way.
// A pair of empty lines is left out; the files must have as many lines.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListMulti30k(const nlohmann::json& args) {
  const std::string who = "Multi30kDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage", "language_pair"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  const nlohmann::json pair = args.value("language_pair", nlohmann::json::array({"en", "de"}));
  bool en_first;
  if (pair == nlohmann::json::array({"en", "de"})) en_first = true;
  else if (pair == nlohmann::json::array({"de", "en"})) en_first = false;
  else return Status::InvalidArgument(who + ": language_pair must be ['en', 'de'] or ['de', 'en'], got " + pair.dump());
  std::vector<std::string> files;  // the English ones, sorted by path
  if (usage == "test" || usage == "all") files.push_back("mmt16_task1_test/test");
  if (usage == "train" || usage == "all") files.push_back("training/train");
  if (usage == "valid" || usage == "all") files.push_back("validation/val");
  if (files.empty())
    return Status::InvalidArgument(who + ": usage must be 'train', 'valid', 'test' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"text", "translation"};
  for (const auto& f : files) {
    const std::string en_path = (dir / (f + ".en")).string(), de_path = (dir / (f + ".de")).string();
    MR_ASSIGN_OR_RETURN(std::string en, ReadListFile(en_path, who));
    MR_ASSIGN_OR_RETURN(std::string de, ReadListFile(de_path, who));
    const auto e = NumberedLines(en), d = NumberedLines(de);
    if (e.size() != d.size())
      return Status::Corruption(who + ": " + en_path + " has " + std::to_string(e.size()) + " lines, " + de_path +
                                " " + std::to_string(d.size()));
    for (size_t i = 0; i < e.size(); ++i) {
      if (e[i].second.empty() && d[i].second.empty()) continue;
      const std::string_view a = en_first ? e[i].second : d[i].second, b = en_first ? d[i].second : e[i].second;
      c.values.push_back(Tensor::FromString(TensorType::kString, std::string(a)));
      c.values.push_back(Tensor::FromString(TensorType::kString, std::string(b)));
    }
  }
  return c;
}

}  // namespace mindrecord
