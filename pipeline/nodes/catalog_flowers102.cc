// Flowers102Dataset's images (catalog_layouts.h): jpg/image_NNNNN.jpg for
// the 1-based image ids of setid.mat's trnid (usage train), valid (valid)
// and tstid (test; all: train, test, valid, as MindSpore's), each labelled
// by imagelabels.mat's labels[id] - 1 (0-101); task Segmentation adds
// segmim/segmim_NNNNN.jpg.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/mat_file.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

// A .mat variable of whole numbers from 1 to `max`.
Result<std::vector<int64_t>> MatIds(const std::string& path, const char* name, int64_t max) {
  constexpr uint64_t kMaxIds = uint64_t{1} << 24;
  MR_ASSIGN_OR_RETURN(MatArray a, ReadMatArray(path, name, kMaxIds));
  std::vector<int64_t> out;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const double v = a.values[i];
    if (!(v >= 1 && v <= static_cast<double>(max)) || v != std::floor(v))
      return Status::Corruption("Flowers102Dataset: " + path + ": " + name + "[" + std::to_string(i) + "] is " +
                                std::to_string(v) + ", not a whole number from 1 to " + std::to_string(max));
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

}  // namespace

Result<Catalog> ListFlowers102(const nlohmann::json& args) {
  const std::string who = "Flowers102Dataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"task", "usage"}));
  MR_ASSIGN_OR_RETURN(std::string task, CatalogStringArg(args, "task", "Classification"));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  if (task != "Classification" && task != "Segmentation")
    return Status::InvalidArgument(who + ": task must be 'Classification' or 'Segmentation', got '" + task + "'");
  std::vector<const char*> sets;
  if (usage == "train" || usage == "all") sets.push_back("trnid");
  if (usage == "test" || usage == "all") sets.push_back("tstid");
  if (usage == "valid" || usage == "all") sets.push_back("valid");
  if (sets.empty())
    return Status::InvalidArgument(who + ": usage must be 'train', 'valid', 'test' or 'all', got '" + usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  MR_ASSIGN_OR_RETURN(auto labels, MatIds((dir / "imagelabels.mat").string(), "labels", INT32_MAX));
  const bool segmentation = task == "Segmentation";
  Catalog c;
  c.columns = segmentation ? std::vector<std::string>{"image", "segmentation", "label"}
                           : std::vector<std::string>{"image", "label"};
  c.file_columns = segmentation ? 2 : 1;
  for (const char* set : sets) {
    MR_ASSIGN_OR_RETURN(auto ids, MatIds((dir / "setid.mat").string(), set, static_cast<int64_t>(labels.size())));
    for (int64_t id : ids) {
      char name[32];
      std::snprintf(name, sizeof name, "image_%05lld.jpg", static_cast<long long>(id));
      c.paths.push_back((dir / "jpg" / name).string());
      if (segmentation) {
        std::snprintf(name, sizeof name, "segmim_%05lld.jpg", static_cast<long long>(id));
        c.paths.push_back((dir / "segmim" / name).string());
      }
      c.values.push_back(CatalogInt32(static_cast<int32_t>(labels[static_cast<size_t>(id - 1)] - 1)));
    }
  }
  return c;
}

}  // namespace mindrecord
