// CityscapesDataset's images and targets (catalog_layouts.h): every .png of
// leftImg8bit/U/CITY/ (U the usage; all: train, test, val for quality_mode
// fine, train, train_extra, val for coarse), sorted by path, with its
// target Q/U/CITY/STEM_Q_SUFFIX (Q gtFine or gtCoarse, STEM the image's
// name before "_leftImg8bit", SUFFIX by task: instanceIds.png,
// labelIds.png, color.png, polygons.json). The target of instance,
// semantic and color is an image as the image column is (bytes, or with
// `decode` RGB, as MindSpore's); polygon's is the JSON file re-written
// compactly, a string. A missing target is an error naming it.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListCityscapes(const nlohmann::json& args) {
  const std::string who = "CityscapesDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage", "quality_mode", "task"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "train"));
  MR_ASSIGN_OR_RETURN(std::string quality, CatalogStringArg(args, "quality_mode", "fine"));
  MR_ASSIGN_OR_RETURN(std::string task, CatalogStringArg(args, "task", "instance"));
  std::string suffix;
  if (task == "instance") suffix = "instanceIds.png";
  else if (task == "semantic") suffix = "labelIds.png";
  else if (task == "color") suffix = "color.png";
  else if (task == "polygon") suffix = "polygons.json";
  else return Status::InvalidArgument(who + ": task must be 'instance', 'semantic', 'polygon' or 'color', got '" + task + "'");
  if (quality != "fine" && quality != "coarse")
    return Status::InvalidArgument(who + ": quality_mode must be 'fine' or 'coarse', got '" + quality + "'");
  const std::vector<std::string> all = quality == "fine" ? std::vector<std::string>{"train", "test", "val"}
                                                         : std::vector<std::string>{"train", "train_extra", "val"};
  std::vector<std::string> splits;
  if (usage == "all") splits = all;
  else if (std::find(all.begin(), all.end(), usage) != all.end()) splits = {usage};
  else return Status::InvalidArgument(who + ": usage '" + usage + "' is not one of quality_mode " + quality + "'s");
  const std::string q = quality == "fine" ? "gtFine" : "gtCoarse";
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "task"};
  c.file_columns = 2;
  if (task == "polygon") {
    c.file_readers = {nullptr, [](const std::string& path) -> Result<Tensor> {
      MR_ASSIGN_OR_RETURN(std::string text, ReadRowFile(path));
      const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      if (j.is_discarded()) return Status::Corruption(path + ": not JSON");
      return Tensor::FromString(TensorType::kString, j.dump());
    }};
  }
  for (const auto& split : splits) {
    const fs::path images = dir / "leftImg8bit" / split, targets = dir / q / split;
    std::error_code ec;
    if (!fs::is_directory(targets, ec)) return Status::NotFound(who + ": " + targets.string() + " is not a folder");
    MR_ASSIGN_OR_RETURN(auto cities, SortedFolderEntries(images.string(), true, who));
    std::vector<std::pair<std::string, std::string>> pairs;  // image, target
    for (const auto& city : cities) {
      MR_ASSIGN_OR_RETURN(auto files, SortedFolderEntries((images / city).string(), false, who));
      for (const auto& f : files) {
        if (f.size() <= 4 || f.compare(f.size() - 4, 4, ".png") != 0) continue;
        const size_t cut = f.find("_leftImg8bit");
        const std::string stem = cut == std::string::npos ? f : f.substr(0, cut);
        const fs::path target = targets / city / (stem + "_" + q + "_" + suffix);
        if (!fs::is_regular_file(target, ec))
          return Status::NotFound(who + ": " + target.string() + ", the target of " + (images / city / f).string() +
                                  ", is missing");
        pairs.emplace_back((images / city / f).string(), target.string());
      }
    }
    std::sort(pairs.begin(), pairs.end());  // by the image's whole path, as MindSpore's
    for (auto& [image, target] : pairs) {
      c.paths.push_back(std::move(image));
      c.paths.push_back(std::move(target));
    }
  }
  return c;
}

}  // namespace mindrecord
