#include "pipeline/nodes/celeba_source.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

struct CelebAList {
  std::string dir;
  size_t attrs = 0;
  std::vector<std::string> names;
  std::vector<int32_t> values;  // names.size() rows of `attrs`
};

Result<int64_t> Integer(std::string_view s, const std::string& where) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    return Status::Corruption("CelebADataset: " + where + ": '" + std::string(s.substr(0, 32)) + "' is not an integer");
  return v;
}

bool SafeName(std::string_view n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos &&
         n.find('\\') == std::string_view::npos && n.find('\0') == std::string_view::npos;
}

Result<CelebAList> ListCelebA(const std::string& dir, const std::string& usage,
                              const std::vector<std::string>& extensions) {
  int partition = -1;
  if (usage == "train") partition = 0;
  else if (usage == "valid") partition = 1;
  else if (usage == "test") partition = 2;
  else if (usage != "all")
    return Status::InvalidArgument("CelebADataset: usage must be 'all', 'train', 'valid' or 'test', got '" + usage +
                                   "'");
  const std::string attr_path = (fs::path(dir) / "list_attr_celeba.txt").string();
  MR_ASSIGN_OR_RETURN(std::string attr_text, ReadListFile(attr_path, "CelebADataset"));
  const std::string part_path = (fs::path(dir) / "list_eval_partition.txt").string();
  std::string part_text;
  if (partition >= 0) {
    MR_ASSIGN_OR_RETURN(part_text, ReadListFile(part_path, "CelebADataset"));
  }
  const auto lines = NumberedLines(attr_text);
  if (lines.size() < 2) return Status::Corruption("CelebADataset: " + attr_path + ": no count and names lines");
  const auto count = WhitespaceTokens(lines[0].second);
  MR_RETURN_IF_ERROR(Integer(count.empty() ? std::string_view() : count[0], attr_path + ":1").status());
  CelebAList list;
  list.dir = dir;
  list.attrs = WhitespaceTokens(lines[1].second).size();
  if (list.attrs == 0) return Status::Corruption("CelebADataset: " + attr_path + ":2: no attribute names");
  const auto parts = NumberedLines(part_text);
  size_t next_part = 0;
  for (size_t k = 2; k < lines.size(); ++k) {
    const auto [number, line] = lines[k];
    const auto tok = WhitespaceTokens(line);
    if (tok.empty()) continue;
    const std::string where = attr_path + ":" + std::to_string(number);
    if (!SafeName(tok[0]))
      return Status::Corruption("CelebADataset: " + where + ": '" + std::string(tok[0].substr(0, 64)) +
                                "' is not a file name in the folder");
    if (tok.size() - 1 != list.attrs)
      return Status::Corruption("CelebADataset: " + where + ": " + std::to_string(tok.size() - 1) +
                                " values, the names line has " + std::to_string(list.attrs));
    if (partition >= 0) {
      if (next_part >= parts.size())
        return Status::Corruption("CelebADataset: " + part_path + " ends before " + where + "'s image");
      const auto [pnum, pline] = parts[next_part++];
      const auto ptok = WhitespaceTokens(pline);
      const std::string pwhere = part_path + ":" + std::to_string(pnum);
      if (ptok.size() != 2 || ptok[0] != tok[0])
        return Status::Corruption("CelebADataset: " + pwhere + ": expected '" + std::string(tok[0]) +
                                  " <0|1|2>' beside " + where);
      MR_ASSIGN_OR_RETURN(int64_t p, Integer(ptok[1], pwhere));
      if (p < 0 || p > 2) return Status::Corruption("CelebADataset: " + pwhere + ": partition " + std::to_string(p) +
                                                    " (0 train, 1 valid, 2 test)");
      if (p != partition) continue;
    }
    if (!extensions.empty()) {
      const size_t dot = tok[0].rfind('.');
      const std::string ext = dot == std::string_view::npos ? std::string() : std::string(tok[0].substr(dot));
      if (std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) continue;
    }
    for (size_t a = 1; a < tok.size(); ++a) {
      MR_ASSIGN_OR_RETURN(int64_t v, Integer(tok[a], where));
      list.values.push_back(v == 1 ? 1 : 0);
    }
    list.names.emplace_back(tok[0]);
  }
  return list;
}

Result<std::vector<std::string>> Extensions(const nlohmann::json& args) {
  const nlohmann::json e = args.value("extensions", nlohmann::json::array());
  if (!e.is_array()) return Status::InvalidArgument("a 'celeba' source's extensions must be a list of strings");
  std::vector<std::string> out;
  for (const auto& x : e) {
    if (!x.is_string()) return Status::InvalidArgument("a 'celeba' source's extensions must be a list of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

}  // namespace

Result<uint64_t> CountCelebARows(const std::string& dataset_dir, const std::string& usage,
                                 const std::vector<std::string>& extensions) {
  MR_ASSIGN_OR_RETURN(CelebAList list, ListCelebA(dataset_dir, usage, extensions));
  return list.names.size();
}

Result<std::unique_ptr<Source>> OpenCelebASource(const nlohmann::json& node) {
  const nlohmann::json args = node.value("args", nlohmann::json::object());
  for (auto it = args.begin(); it != args.end(); ++it)
    if (it.key() != "dataset_dir" && it.key() != "usage" && it.key() != "decode" && it.key() != "extensions")
      return Status::InvalidArgument("a 'celeba' source does not take the arg '" + it.key() + "'");
  if (!args.contains("dataset_dir") || !args["dataset_dir"].is_string() || !args.contains("usage") ||
      !args["usage"].is_string() || !args.value("decode", nlohmann::json(false)).is_boolean())
    return Status::InvalidArgument("a 'celeba' source needs args dataset_dir and usage (strings), decode (a bool)");
  if (node.at("columns") != nlohmann::json::array({"image", "attr"}))
    return Status::InvalidArgument("a 'celeba' source has the columns 'image' and 'attr'");
  MR_ASSIGN_OR_RETURN(auto extensions, Extensions(args));
  MR_ASSIGN_OR_RETURN(CelebAList list,
                      ListCelebA(args["dataset_dir"].get<std::string>(), args["usage"].get<std::string>(), extensions));
  if (list.names.size() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the CelebA lists hold " + std::to_string(list.names.size()) + " rows now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  // The rows as a catalog: the image a file column, the attributes a value.
  Catalog c;
  c.columns = {"image", "attr"};
  c.file_columns = 1;
  for (size_t i = 0; i < list.names.size(); ++i) {
    c.paths.push_back((fs::path(list.dir) / list.names[i]).string());
    std::vector<int32_t> attrs(list.values.begin() + static_cast<std::ptrdiff_t>(i * list.attrs),
                               list.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * list.attrs));
    c.values.push_back(CatalogInt32s({static_cast<int64_t>(list.attrs)}, attrs));
  }
  return MakeCatalogSource(std::move(c), args.value("decode", false));
}

}  // namespace mindrecord
