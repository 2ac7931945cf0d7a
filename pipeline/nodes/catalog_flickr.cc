// FlickrDataset's captions (catalog_layouts.h): annotation_file lines
// "IMAGE#N<TAB>caption" (Flickr8k.token.txt, Flickr30k's
// results_20130124.token); an image per row, rows sorted by image name, its
// captions in the file's order as a 1-D string array. The images lie in
// dataset_dir; a listed image that is missing is an error naming it.
#include <filesystem>
#include <map>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/strings.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListFlickr(const nlohmann::json& args) {
  const std::string who = "FlickrDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"annotation_file"}));
  MR_ASSIGN_OR_RETURN(std::string file, CatalogStringArg(args, "annotation_file", ""));
  if (file.empty()) return Status::InvalidArgument(who + ": annotation_file is not given");
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(file, who));
  const fs::path dir = args["dataset_dir"].get<std::string>();
  std::map<std::string, std::vector<std::string_view>> captions;
  for (auto [number, line] : NumberedLines(text)) {
    line = CatalogChomp(line);
    if (line.empty()) continue;
    const std::string where = file + ":" + std::to_string(number);
    const size_t tab = line.find('\t');
    const size_t hash = tab == std::string_view::npos ? tab : line.rfind('#', tab);
    bool numbered = hash != std::string_view::npos && hash + 1 < tab;
    for (size_t i = hash + 1; numbered && i < tab; ++i) numbered = line[i] >= '0' && line[i] <= '9';
    if (!numbered) return Status::Corruption(who + ": " + where + ": expected 'IMAGE#N<tab>caption'");
    const std::string_view name = line.substr(0, hash);
    if (!CatalogSafeName(name))
      return Status::Corruption(who + ": " + where + ": '" + std::string(name.substr(0, 64)) +
                                "' is not an image file name");
    if (tab + 1 == line.size()) return Status::Corruption(who + ": " + where + ": the caption is empty");
    captions[std::string(name)].push_back(line.substr(tab + 1));
  }
  Catalog c;
  c.columns = {"image", "annotation"};
  c.file_columns = 1;
  for (const auto& [name, list] : captions) {
    const fs::path image = dir / name;
    std::error_code ec;
    if (!fs::is_regular_file(image, ec))
      return Status::NotFound(who + ": " + image.string() + ", listed in " + file + ", is missing");
    c.paths.push_back(image.string());
    c.values.push_back(MakeStrings(Shape{static_cast<int64_t>(list.size())}, list));
  }
  return c;
}

}  // namespace mindrecord
