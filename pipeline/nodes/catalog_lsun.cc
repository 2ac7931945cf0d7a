// LSUNDataset's folders (catalog_layouts.h): the extracted images of the
// top-level folders whose names contain CLASS_train (usage train),
// CLASS_val (valid) or either (all), for each class asked (none: all ten),
// or the folder test/ (test). Folders sorted by name, labelled by their
// place among the chosen folders (test: 0); every regular file of a folder,
// sorted by name.
#include <filesystem>
#include <set>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListLsun(const nlohmann::json& args) {
  const std::string who = "LSUNDataset";
  static const std::vector<std::string> kClasses = {"bedroom",     "bridge",      "church_outdoor", "classroom",
                                                    "conference_room", "dining_room", "kitchen",    "living_room",
                                                    "restaurant",  "tower"};
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage", "classes"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> suffixes;
  if (usage == "train") suffixes = {"_train"};
  else if (usage == "valid") suffixes = {"_val"};
  else if (usage == "all") suffixes = {"_train", "_val"};
  else if (usage != "test")
    return Status::InvalidArgument(who + ": usage must be 'train', 'valid', 'test' or 'all', got '" + usage + "'");
  std::vector<std::string> classes;
  const nlohmann::json cls = args.value("classes", nlohmann::json::array());
  if (!cls.is_array()) return Status::InvalidArgument(who + ": classes must be a list of class names");
  for (const auto& c : cls) {
    if (!c.is_string() || std::find(kClasses.begin(), kClasses.end(), c.get<std::string>()) == kClasses.end())
      return Status::InvalidArgument(who + ": " + c.dump() + " is not an LSUN class");
    classes.push_back(c.get<std::string>());
  }
  if (classes.empty()) classes = kClasses;
  const std::string dir = args["dataset_dir"].get<std::string>();
  std::vector<std::string> folders;
  if (usage == "test") {
    folders = {"test"};
  } else {
    MR_ASSIGN_OR_RETURN(auto names, SortedFolderEntries(dir, true, who));
    for (const auto& name : names) {
      bool chosen = false;
      for (const auto& c : classes)
        for (const auto& s : suffixes) chosen = chosen || name.find(c + s) != std::string::npos;
      if (chosen) folders.push_back(name);
    }
    if (folders.empty())
      return Status::NotFound(who + ": no folder of " + dir + " is named for the classes asked and usage '" + usage +
                              "' (CLASS_train, CLASS_val)");
  }
  Catalog c;
  c.columns = {"image", "label"};
  c.file_columns = 1;
  for (size_t label = 0; label < folders.size(); ++label) {
    const fs::path folder = fs::path(dir) / folders[label];
    MR_ASSIGN_OR_RETURN(auto files, SortedFolderEntries(folder.string(), false, who));
    for (const auto& f : files) {
      c.paths.push_back((folder / f).string());
      c.values.push_back(CatalogInt32(static_cast<int32_t>(label)));
    }
  }
  return c;
}

}  // namespace mindrecord
