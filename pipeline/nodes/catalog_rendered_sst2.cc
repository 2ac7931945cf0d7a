// RenderedSST2Dataset's folders (catalog_layouts.h): SPLIT/CLASS/*.png for
// the splits train, valid (usage val) and test (all: test, train, valid,
// the folders' order by name). A class's label is its place among the class
// folder names of the splits read, sorted (negative 0, positive 1; MindSpore
// numbers them in the order the file system lists them).
#include <filesystem>
#include <set>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListRenderedSst2(const nlohmann::json& args) {
  const std::string who = "RenderedSST2Dataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> splits;
  if (usage == "train" || usage == "test") splits = {usage};
  else if (usage == "val") splits = {"valid"};
  else if (usage == "all") splits = {"test", "train", "valid"};
  else return Status::InvalidArgument(who + ": usage must be 'train', 'val', 'test' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  std::vector<std::pair<std::string, std::vector<std::string>>> split_classes;
  std::set<std::string> class_names;
  for (const auto& split : splits) {
    MR_ASSIGN_OR_RETURN(auto classes, SortedFolderEntries((dir / split).string(), true, who));
    class_names.insert(classes.begin(), classes.end());
    split_classes.emplace_back(split, std::move(classes));
  }
  const std::vector<std::string> order(class_names.begin(), class_names.end());
  Catalog c;
  c.columns = {"image", "label"};
  c.file_columns = 1;
  for (const auto& [split, classes] : split_classes) {
    for (const auto& cls : classes) {
      const fs::path folder = dir / split / cls;
      MR_ASSIGN_OR_RETURN(auto files, SortedFolderEntries(folder.string(), false, who));
      const auto label = static_cast<int32_t>(std::lower_bound(order.begin(), order.end(), cls) - order.begin());
      for (const auto& f : files) {
        if (f.size() <= 4 || f.compare(f.size() - 4, 4, ".png") != 0) continue;
        c.paths.push_back((folder / f).string());
        c.values.push_back(CatalogInt32(label));
      }
    }
  }
  nlohmann::json indexing = nlohmann::json::object();
  for (size_t i = 0; i < order.size(); ++i) indexing[order[i]] = i;
  c.meta["class_indexing"] = indexing;
  return c;
}

}  // namespace mindrecord
