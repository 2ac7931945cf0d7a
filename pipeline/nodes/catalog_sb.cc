// SBDataset's images and targets (catalog_layouts.h), the Semantic
// Boundaries Dataset: the ids of train.txt, val.txt or train_noval.txt
// (usage; all: train then val, as MindSpore's), a line each, with
// img/ID.jpg and cls/ID.mat, whose GTcls struct gives the target: task
// Boundaries its 20 category boundary maps (sparse logical H x W each) as
// bool [20, H, W], Segmentation its class map as uint8 [H, W]. The .mat file
// is read through libmatio when its row is.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/nodes/mat_file.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kSbMaxValues = uint64_t{1} << 26;   // 20 maps of 1.8 M pixels
constexpr uint64_t kSbMaxBytes = uint64_t{1} << 30;    // the GTcls struct as declared

Result<Tensor> SbTarget(const std::string& path, bool boundaries) {
  MR_ASSIGN_OR_RETURN(auto arrays, ReadMatStructField(path, "GTcls", boundaries ? "Boundaries" : "Segmentation",
                                                      kSbMaxValues, kSbMaxBytes));
  if (arrays.empty() || arrays[0].dims.size() != 2)
    return Status::Corruption(path + ": GTcls's " + (boundaries ? "Boundaries" : "Segmentation") +
                              " is not 2-D maps");
  const int64_t h = arrays[0].dims[0], w = arrays[0].dims[1];
  for (const auto& a : arrays)
    if (a.dims != arrays[0].dims) return Status::Corruption(path + ": GTcls.Boundaries' maps differ in size");
  if (!boundaries && arrays.size() != 1) return Status::Corruption(path + ": GTcls.Segmentation is not one map");
  const auto maps = static_cast<int64_t>(arrays.size());
  Tensor t = boundaries ? Tensor::Make(TensorType::kBool, {maps, h, w}) : Tensor::Make(TensorType::kUInt8, {h, w});
  uint8_t* out = t.MutableData();
  for (int64_t m = 0; m < maps; ++m) {
    const auto& v = arrays[static_cast<size_t>(m)].values;
    for (int64_t r = 0; r < h; ++r)
      for (int64_t c = 0; c < w; ++c) {  // MATLAB's column-major -> row-major
        const double x = v[static_cast<size_t>(c * h + r)];
        if (!boundaries && (x < 0 || x > 255 || x != static_cast<double>(static_cast<uint8_t>(x))))
          return Status::Corruption(path + ": GTcls.Segmentation holds " + std::to_string(x) + ", not a class id");
        out[(m * h + r) * w + c] = boundaries ? (x != 0) : static_cast<uint8_t>(x);
      }
  }
  return t;
}

}  // namespace

Result<Catalog> ListSb(const nlohmann::json& args) {
  const std::string who = "SBDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"task", "usage"}));
  MR_ASSIGN_OR_RETURN(std::string task, CatalogStringArg(args, "task", "Boundaries"));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  if (task != "Boundaries" && task != "Segmentation")
    return Status::InvalidArgument(who + ": task must be 'Boundaries' or 'Segmentation', got '" + task + "'");
  std::vector<std::string> lists;
  if (usage == "all") lists = {"train", "val"};
  else if (usage == "train" || usage == "val" || usage == "train_noval") lists = {usage};
  else return Status::InvalidArgument(who + ": usage must be 'train', 'val', 'train_noval' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"image", "task"};
  c.file_columns = 2;
  const bool boundaries = task == "Boundaries";
  c.file_readers = {nullptr, [boundaries](const std::string& path) { return SbTarget(path, boundaries); }};
  for (const auto& list : lists) {
    const std::string path = (dir / (list + ".txt")).string();
    MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, who));
    for (const auto& [number, line] : NumberedLines(text)) {
      const auto tok = WhitespaceTokens(line);
      if (tok.empty()) continue;
      const std::string where = path + ":" + std::to_string(number);
      if (tok.size() != 1 || !CatalogSafeName(tok[0]))
        return Status::Corruption(who + ": " + where + ": expected an image id (a file name without a path)");
      const std::string id(tok[0]);
      c.paths.push_back((dir / "img" / (id + ".jpg")).string());
      c.paths.push_back((dir / "cls" / (id + ".mat")).string());
    }
  }
  return c;
}

}  // namespace mindrecord
