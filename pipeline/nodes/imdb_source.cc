#include "pipeline/nodes/imdb_source.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

struct ImdbItem {
  std::string path;
  int32_t label = 0;
};

Result<std::vector<ImdbItem>> ListImdb(const std::string& dir, const std::string& usage) {
  if (usage != "train" && usage != "test" && usage != "all")
    return Status::InvalidArgument("IMDBDataset: usage must be 'train', 'test' or 'all', got '" + usage + "'");
  std::vector<ImdbItem> items;
  for (const char* u : {"train", "test"}) {
    if (usage != "all" && usage != u) continue;
    for (const auto& [label_dir, label] : {std::pair<const char*, int32_t>{"pos", 1}, {"neg", 0}}) {
      const fs::path folder = fs::path(dir) / u / label_dir;
      std::error_code ec;
      if (!fs::is_directory(folder, ec))
        return Status::NotFound("IMDBDataset: " + folder.string() + " is not a folder (usage '" + usage + "')");
      std::vector<std::string> names;
      fs::directory_iterator it(folder, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code fe;
        if (it->is_regular_file(fe)) names.push_back(it->path().filename().string());
      }
      if (ec) return Status::IOError("IMDBDataset: cannot list " + folder.string() + ": " + ec.message());
      std::sort(names.begin(), names.end());
      for (const auto& n : names) items.push_back({(folder / n).string(), label});
    }
  }
  return items;
}

// The last non-empty line of `bytes` ("" for none).
std::string_view LastLine(std::string_view bytes) {
  size_t end = bytes.size();
  while (end > 0) {
    const size_t nl = bytes.rfind('\n', end - 1);
    const size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    if (end > start) return bytes.substr(start, end - start);
    if (nl == std::string_view::npos) break;
    end = nl;
  }
  return {};
}

// A review file's text: its last non-empty line, as MindSpore's.
Result<Tensor> ReadReview(const std::string& path) {
  MR_ASSIGN_OR_RETURN(std::string bytes, ReadRowFile(path));
  std::string line(LastLine(bytes));
  if (!IsUtf8(line)) return Status::Corruption(path + ": the review is not UTF-8 text");
  return Tensor::FromString(TensorType::kString, std::move(line));
}

}  // namespace

Result<uint64_t> CountImdbFiles(const std::string& dataset_dir, const std::string& usage) {
  MR_ASSIGN_OR_RETURN(auto items, ListImdb(dataset_dir, usage));
  return items.size();
}

Result<std::unique_ptr<Source>> OpenImdbSource(const nlohmann::json& node) {
  const nlohmann::json args = node.value("args", nlohmann::json::object());
  for (auto it = args.begin(); it != args.end(); ++it)
    if (it.key() != "dataset_dir" && it.key() != "usage")
      return Status::InvalidArgument("an 'imdb' source takes args dataset_dir and usage, not '" + it.key() + "'");
  if (!args.contains("dataset_dir") || !args["dataset_dir"].is_string() || !args.contains("usage") ||
      !args["usage"].is_string())
    return Status::InvalidArgument("an 'imdb' source needs args dataset_dir and usage (strings)");
  if (node.at("columns") != nlohmann::json::array({"text", "label"}))
    return Status::InvalidArgument("an 'imdb' source has the columns 'text' and 'label'");
  MR_ASSIGN_OR_RETURN(auto items, ListImdb(args["dataset_dir"].get<std::string>(), args["usage"].get<std::string>()));
  if (items.size() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the IMDB folder holds " + std::to_string(items.size()) + " files now, " +
                              node.at("rows").dump() + " when the dataset was made (a folder changed)");
  }
  // The rows as a catalog: the review a file column read by ReadReview, the label a value.
  Catalog c;
  c.columns = {"text", "label"};
  c.file_columns = 1;
  c.file_readers = {&ReadReview};
  for (auto& item : items) {
    c.paths.push_back(std::move(item.path));
    c.values.push_back(CatalogInt32(item.label));
  }
  return MakeCatalogSource(std::move(c), false);
}

}  // namespace mindrecord
