#include "pipeline/nodes/imdb_source.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/row_vectors.h"

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

class ImdbSource : public Source {
 public:
  explicit ImdbSource(std::vector<ImdbItem> items) : items_(std::move(items)) {}

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return items_.size(); }
  DatasetLayout Layout() const override { return DatasetLayout::Uniform(items_.size(), 1); }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= items_.size())
        return Status::InvalidArgument("row " + std::to_string(ids[k]) + " of " + std::to_string(items_.size()));
      const ImdbItem& item = items_[ids[k]];
      std::vector<Tensor> cols = TakeRowVector();  // given back by the batch it goes into
      Result<std::string> text = ReadText(item.path);
      if (!text.ok()) {
        MR_RETURN_IF_ERROR(fn(k, text.status(), {}, 0));
        continue;
      }
      const uint64_t bytes = text->size() + sizeof(int32_t);
      cols.push_back(Tensor::FromString(TensorType::kString, std::move(text).value()));
      Tensor label = Tensor::Make(TensorType::kInt32, {});
      *label.mutable_data_as<int32_t>() = item.label;
      cols.push_back(std::move(label));
      MR_RETURN_IF_ERROR(fn(k, Status::OK(), std::move(cols), bytes));
    }
    return Status::OK();
  }

  std::string Where(uint64_t id) const override {
    std::string where = "row " + std::to_string(id);
    if (id < items_.size()) where += " ('" + items_[id].path + "')";
    return where;
  }

  std::vector<std::string> files() const override {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& i : items_) out.push_back(i.path);
    return out;
  }

 private:
  static Result<std::string> ReadText(const std::string& path) {
    MR_ASSIGN_OR_RETURN(std::string bytes, ReadRowFile(path));
    std::string line(LastLine(bytes));
    if (!IsUtf8(line)) return Status::Corruption(path + ": the review is not UTF-8 text");
    return line;
  }

  std::vector<ImdbItem> items_;
  std::vector<std::string> names_ = {"text", "label"};
};

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
  return std::unique_ptr<Source>(new ImdbSource(std::move(items)));
}

}  // namespace mindrecord
