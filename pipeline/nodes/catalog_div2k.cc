// DIV2KDataset's image pairs (catalog_layouts.h): every .png of
// DIV2K_{train,valid}_HR/ (usage train, valid; all: train then valid),
// sorted by name, with its low-resolution image by downgrade and scale:
// bicubic / unknown x2-4 DIV2K_U_LR_{bicubic,unknown}/XS/STEMxS.png, bicubic
// x8 DIV2K_U_LR_x8/STEMx8.png, mild / difficult / wild x4
// DIV2K_U_LR_{mild,difficult,wild}/STEMx4{m,d,w}.png. A missing
// low-resolution image is an error naming it.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListDiv2k(const nlohmann::json& args) {
  const std::string who = "DIV2KDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage", "downgrade", "scale"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "train"));
  MR_ASSIGN_OR_RETURN(std::string downgrade, CatalogStringArg(args, "downgrade", "bicubic"));
  const nlohmann::json sj = args.value("scale", nlohmann::json(2));
  const int scale = sj.is_number_integer() ? sj.get<int>() : 0;
  if (scale != 2 && scale != 3 && scale != 4 && scale != 8)
    return Status::InvalidArgument(who + ": scale must be 2, 3, 4 or 8, got " + sj.dump());
  std::vector<std::string> splits;
  if (usage == "train" || usage == "valid") splits = {usage};
  else if (usage == "all") splits = {"train", "valid"};
  else return Status::InvalidArgument(who + ": usage must be 'train', 'valid' or 'all', got '" + usage + "'");
  std::string suffix;
  if (downgrade == "bicubic" || downgrade == "unknown") {
    if (scale == 8 && downgrade != "bicubic")
      return Status::InvalidArgument(who + ": scale equal to 8 is allowed only in bicubic downgrade");
    suffix = "x" + std::to_string(scale);
  } else if (downgrade == "mild" || downgrade == "difficult" || downgrade == "wild") {
    if (scale != 4) return Status::InvalidArgument(who + ": " + downgrade + " downgrade requires scale equal to 4");
    suffix = std::string("x4") + downgrade[0];
  } else {
    return Status::InvalidArgument(who + ": downgrade must be 'bicubic', 'unknown', 'mild', 'difficult' or 'wild', got '" +
                                   downgrade + "'");
  }
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.columns = {"hr_image", "lr_image"};
  c.file_columns = 2;
  for (const auto& split : splits) {
    const fs::path hr = dir / ("DIV2K_" + split + "_HR");
    fs::path lr;
    if (scale == 8) lr = dir / ("DIV2K_" + split + "_LR_x8");
    else if (downgrade == "bicubic" || downgrade == "unknown")
      lr = dir / ("DIV2K_" + split + "_LR_" + downgrade) / ("X" + std::to_string(scale));
    else lr = dir / ("DIV2K_" + split + "_LR_" + downgrade);
    std::error_code ec;
    if (!fs::is_directory(lr, ec)) return Status::NotFound(who + ": " + lr.string() + " is not a folder");
    MR_ASSIGN_OR_RETURN(auto names, SortedFolderEntries(hr.string(), false, who));
    for (const auto& name : names) {
      if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".png") != 0) continue;
      const fs::path low = lr / (name.substr(0, name.size() - 4) + suffix + ".png");
      if (!fs::is_regular_file(low, ec))
        return Status::NotFound(who + ": " + low.string() + ", the low-resolution image of " + (hr / name).string() +
                                ", is missing");
      c.paths.push_back((hr / name).string());
      c.paths.push_back(low.string());
    }
  }
  return c;
}

}  // namespace mindrecord
