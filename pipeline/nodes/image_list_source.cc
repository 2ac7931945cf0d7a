#include "pipeline/nodes/image_list_source.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "mindrecord/file.h"
#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Item {
  std::string path;
  int32_t label = 0;
  std::string name;  // the label of a layout whose labels are strings (food101)
};

Result<std::vector<std::string>> Entries(const fs::path& dir, bool dirs, const std::string& who) {
  return SortedFolderEntries(dir.string(), dirs, who);
}

Result<std::vector<Item>> ListOmniglot(const std::string& dir, bool background) {
  const fs::path root = fs::path(dir) / (background ? "images_background" : "images_evaluation");
  std::vector<std::pair<std::string, fs::path>> classes;  // "/alphabet/character", folder
  MR_ASSIGN_OR_RETURN(auto alphabets, Entries(root, true, "OmniglotDataset"));
  for (const auto& a : alphabets) {
    MR_ASSIGN_OR_RETURN(auto characters, Entries(root / a, true, "OmniglotDataset"));
    for (const auto& c : characters) classes.emplace_back("/" + a + "/" + c, root / a / c);
  }
  std::sort(classes.begin(), classes.end());
  std::vector<Item> items;
  for (size_t label = 0; label < classes.size(); ++label) {
    MR_ASSIGN_OR_RETURN(auto files, Entries(classes[label].second, false, "OmniglotDataset"));
    for (const auto& f : files)
      items.push_back({(classes[label].second / f).string(), static_cast<int32_t>(label), {}});
  }
  return items;
}

Result<std::vector<Item>> ListPlaces365(const std::string& dir, const std::string& usage, bool small) {
  const std::string who = "Places365Dataset";
  std::string list, folder;
  if (usage == "train-standard") {
    list = "places365_train_standard.txt";
    folder = small ? "data_256_standard" : "data_large_standard";
  } else if (usage == "train-challenge") {
    list = "places365_train_challenge.txt";
    folder = small ? "data_256_challenge" : "data_large_challenge";
  } else if (usage == "val") {
    list = "places365_val.txt";
    folder = small ? "val_256" : "val_large";
  } else {
    return Status::InvalidArgument(who + ": usage must be 'train-standard', 'train-challenge' or 'val', got '" +
                                   usage + "'");
  }
  MR_RETURN_IF_ERROR(ReadListFile((fs::path(dir) / "categories_places365.txt").string(), who).status());
  const std::string list_path = (fs::path(dir) / list).string();
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(list_path, who));
  std::vector<Item> items;
  const std::string images = JoinPath(dir, folder);
  for (const auto& [number, line] : NumberedLines(text)) {
    const auto tok = WhitespaceTokens(line);
    if (tok.empty()) continue;
    const auto where = [&, number = number] { return who + ": " + list_path + ":" + std::to_string(number) + ": "; };
    if (tok.size() != 2) return Status::Corruption(where() + "expected 'path label'");
    std::string_view rel;
    if (!ListedRelativePath(tok[0], &rel)) return Status::Corruption(where() + "the path leaves the image folder");
    int64_t label = 0;
    auto [end, ec] = std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), label);
    if (ec != std::errc() || end != tok[1].data() + tok[1].size() || label < 0 || label > INT32_MAX)
      return Status::Corruption(where() + "label '" + std::string(tok[1].substr(0, 32)) +
                                "' is not a non-negative integer");
    items.push_back({JoinPath(images, std::string(rel)), static_cast<int32_t>(label), {}});
  }
  return items;
}

Result<std::vector<Item>> ListFood101(const std::string& dir, const std::string& usage) {
  const std::string who = "Food101Dataset";
  if (usage != "train" && usage != "test" && usage != "all")
    return Status::InvalidArgument(who + ": usage must be 'train', 'test' or 'all', got '" + usage + "'");
  MR_ASSIGN_OR_RETURN(auto class_names, Entries(fs::path(dir) / "images", true, who));
  if (class_names.empty()) return Status::NotFound(who + ": no class folders under " + dir + "/images");
  const std::set<std::string> classes(class_names.begin(), class_names.end());
  std::vector<Item> items;
  const std::string images = JoinPath(dir, "images");
  for (const char* split : {"train", "test"}) {
    if (usage != "all" && usage != split) continue;
    const std::string list_path = (fs::path(dir) / "meta" / (std::string(split) + ".txt")).string();
    MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(list_path, who));
    for (auto [number, line] : NumberedLines(text)) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      const auto where = [&, number = number] { return who + ": " + list_path + ":" + std::to_string(number) + ": "; };
      std::string_view rel;
      if (!ListedRelativePath(line, &rel)) return Status::Corruption(where() + "the path leaves the image folder");
      std::string cls(rel.substr(0, rel.find('/')));
      if (!classes.count(cls))
        return Status::Corruption(where() + "'" + std::string(line.substr(0, 64)) +
                                  "' is not CLASS/ID of a class folder under images/");
      items.push_back({JoinPath(images, std::string(rel)) + ".jpg", 0, std::move(cls)});
    }
  }
  return items;
}

Result<std::vector<Item>> ListItems(const json& args) {
  const json layout = args.value("layout", json());
  if (!args.contains("dataset_dir") || !args["dataset_dir"].is_string())
    return Status::InvalidArgument("an 'image_list' source needs args.dataset_dir (a string)");
  const std::string dir = args["dataset_dir"].get<std::string>();
  if (layout == "omniglot") {
    for (auto it = args.begin(); it != args.end(); ++it)
      if (it.key() != "layout" && it.key() != "dataset_dir" && it.key() != "decode" && it.key() != "background")
        return Status::InvalidArgument("an omniglot 'image_list' source does not take the arg '" + it.key() + "'");
    const json b = args.value("background", json(true));
    if (!b.is_boolean()) return Status::InvalidArgument("an omniglot 'image_list' source's background is a bool");
    return ListOmniglot(dir, b.get<bool>());
  }
  if (layout == "places365") {
    for (auto it = args.begin(); it != args.end(); ++it)
      if (it.key() != "layout" && it.key() != "dataset_dir" && it.key() != "decode" && it.key() != "usage" &&
          it.key() != "small")
        return Status::InvalidArgument("a places365 'image_list' source does not take the arg '" + it.key() + "'");
    const json u = args.value("usage", json("train-standard"));
    const json small = args.value("small", json(true));
    if (!u.is_string() || !small.is_boolean())
      return Status::InvalidArgument("a places365 'image_list' source takes usage (a string) and small (a bool)");
    return ListPlaces365(dir, u.get<std::string>(), small.get<bool>());
  }
  if (layout == "food101") {
    for (auto it = args.begin(); it != args.end(); ++it)
      if (it.key() != "layout" && it.key() != "dataset_dir" && it.key() != "decode" && it.key() != "usage")
        return Status::InvalidArgument("a food101 'image_list' source does not take the arg '" + it.key() + "'");
    const json u = args.value("usage", json("all"));
    if (!u.is_string()) return Status::InvalidArgument("a food101 'image_list' source's usage is a string");
    return ListFood101(dir, u.get<std::string>());
  }
  return Status::InvalidArgument(
      "an 'image_list' source's layout must be 'omniglot', 'places365' or 'food101', got " + layout.dump());
}

}  // namespace

Result<uint64_t> CountImageList(const json& args) {
  MR_ASSIGN_OR_RETURN(auto items, ListItems(args));
  return items.size();
}

Result<std::unique_ptr<Source>> OpenImageListSource(const json& node) {
  const json args = node.value("args", json::object());
  const json decode = args.value("decode", json(false));
  if (!decode.is_boolean()) return Status::InvalidArgument("an 'image_list' source's decode is a bool");
  if (node.at("columns") != json::array({"image", "label"}))
    return Status::InvalidArgument("an 'image_list' source has the columns 'image' and 'label'");
  MR_ASSIGN_OR_RETURN(auto items, ListItems(args));
  if (items.size() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the dataset's folder lists " + std::to_string(items.size()) + " images now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  // The rows as a catalog: the image a file column, the label a value.
  const bool string_labels = args.value("layout", json()) == "food101";
  Catalog c;
  c.columns = {"image", "label"};
  c.file_columns = 1;
  // One tensor per distinct label, shared by its rows (the catalog's values
  // are shared anyway: ops that write in place copy them first). A tensor
  // per row cost ~100 bytes and an allocation each: 1.8M of them for
  // Places365.
  std::map<int32_t, Tensor> int_labels;
  std::map<std::string, Tensor, std::less<>> string_labels_made;
  c.paths.reserve(items.size());
  c.values.reserve(items.size());
  for (auto& item : items) {
    c.paths.push_back(std::move(item.path));
    if (string_labels) {
      auto it = string_labels_made.find(item.name);
      if (it == string_labels_made.end())
        it = string_labels_made.emplace(item.name, Tensor::FromString(TensorType::kString, item.name)).first;
      c.values.push_back(it->second);
    } else {
      auto it = int_labels.find(item.label);
      if (it == int_labels.end()) it = int_labels.emplace(item.label, CatalogInt32(item.label)).first;
      c.values.push_back(it->second);
    }
  }
  return MakeCatalogSource(std::move(c), decode.get<bool>());
}

}  // namespace mindrecord
