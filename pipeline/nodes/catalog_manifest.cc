// ManifestDataset's manifest (catalog_layouts.h): dataset_file, a JSON
// object per line: "source" (the image's path), "usage" (train, eval or
// inference, any case) and "annotation", a list of objects with a "name".
// The rows of the usage asked, in the file's order, each labelled by its
// names: their places among all names of that usage's rows, sorted, or
// class_indexing's numbers (names it lacks are left out, and so is a row
// left with none). One name gives a 0-d label, more a 1-D one.
#include <filesystem>
#include <map>
#include <set>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListManifest(const nlohmann::json& args) {
  const std::string who = "ManifestDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"dataset_file", "usage", "class_indexing"}));
  MR_ASSIGN_OR_RETURN(std::string file, CatalogStringArg(args, "dataset_file", ""));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "train"));
  if (usage != "train" && usage != "eval" && usage != "inference")
    return Status::InvalidArgument(who + ": usage must be 'train', 'eval' or 'inference', got '" + usage + "'");
  const nlohmann::json given = args.value("class_indexing", nlohmann::json::object());
  if (!given.is_object()) return Status::InvalidArgument(who + ": class_indexing must be an object");
  std::map<std::string, int32_t> indexing;
  for (auto it = given.begin(); it != given.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() > INT32_MAX)
      return Status::InvalidArgument(who + ": class_indexing['" + it.key() + "'] must be an int from 0 to 2^31-1");
    indexing[it.key()] = it.value().get<int32_t>();
  }
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(file, who));
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  std::set<std::string> seen;
  for (const auto& [number, raw] : NumberedLines(text)) {
    const std::string_view line = CatalogChomp(raw);
    if (WhitespaceTokens(line).empty()) continue;
    const std::string where = file + ":" + std::to_string(number);
    const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Status::Corruption(who + ": " + where + ": not a JSON object");
    const nlohmann::json src = j.value("source", nlohmann::json()), use = j.value("usage", nlohmann::json());
    if (!src.is_string() || src.get<std::string>().empty())
      return Status::Corruption(who + ": " + where + ": 'source' is missing or not a path");
    if (!use.is_string() || use.get<std::string>().empty())
      return Status::Corruption(who + ": " + where + ": 'usage' is missing or not a string");
    const nlohmann::json ann = j.value("annotation", nlohmann::json());
    if (!ann.is_array()) return Status::Corruption(who + ": " + where + ": 'annotation' is missing or not a list");
    std::string u = use.get<std::string>();
    for (char& ch : u) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::vector<std::string> names;
    for (const auto& a : ann) {
      const nlohmann::json name = a.is_object() ? a.value("name", nlohmann::json()) : nlohmann::json();
      if (!name.is_string() || name.get<std::string>().empty())
        return Status::Corruption(who + ": " + where + ": an annotation without a 'name'");
      if (given.empty() || indexing.count(name.get<std::string>())) names.push_back(name.get<std::string>());
    }
    if (u != usage || names.empty()) continue;
    const std::string path = src.get<std::string>();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return Status::NotFound(who + ": " + where + ": the image " + path + " is missing");
    seen.insert(names.begin(), names.end());
    rows.emplace_back(fs::absolute(path, ec).string(), std::move(names));
  }
  if (given.empty()) {
    int32_t next = 0;
    for (const auto& name : seen) indexing[name] = next++;
  }
  Catalog c;
  c.columns = {"image", "label"};
  c.file_columns = 1;
  for (auto& [path, names] : rows) {
    std::vector<int32_t> labels;
    for (const auto& n : names) labels.push_back(indexing[n]);
    c.paths.push_back(std::move(path));
    c.values.push_back(labels.size() == 1 ? CatalogInt32(labels[0])
                                          : CatalogInt32s({static_cast<int64_t>(labels.size())}, labels));
  }
  nlohmann::json out = given.empty() ? nlohmann::json(indexing) : given;
  c.meta["class_indexing"] = out;
  return c;
}

}  // namespace mindrecord
