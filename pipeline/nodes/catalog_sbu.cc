// SBUDataset's captioned photos (catalog_layouts.h): the lines of
// SBU_captioned_photo_dataset_urls.txt and ..._captions.txt, in step; a
// photo's file in sbu_images/ is its URL past its first 23 characters
// with '/' as '_' (http://static.flickr.com/1/a.jpg: m_1_a.jpg). Pairs whose photo is not there are left out (the
// dataset's downloads are partial), as MindSpore's; rows in the lists'
// order; the caption without trailing spaces.
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListSbu(const nlohmann::json& args) {
  const std::string who = "SBUDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {}));
  const fs::path dir = args["dataset_dir"].get<std::string>();
  const std::string url_path = (dir / "SBU_captioned_photo_dataset_urls.txt").string();
  const std::string caption_path = (dir / "SBU_captioned_photo_dataset_captions.txt").string();
  const fs::path images = dir / "sbu_images";
  MR_ASSIGN_OR_RETURN(std::string urls, ReadListFile(url_path, who));
  MR_ASSIGN_OR_RETURN(std::string captions, ReadListFile(caption_path, who));
  std::error_code ec;
  if (!fs::is_directory(images, ec)) return Status::NotFound(who + ": " + images.string() + " is not a folder");
  const auto u = NumberedLines(urls), k = NumberedLines(captions);
  if (u.size() != k.size())
    return Status::Corruption(who + ": " + url_path + " has " + std::to_string(u.size()) + " lines, " + caption_path +
                              " " + std::to_string(k.size()));
  constexpr size_t kCut = 23;  // MindSpore's name: the URL past "http://static.flickr.co"
  Catalog c;
  c.columns = {"image", "caption"};
  c.file_columns = 1;
  for (size_t i = 0; i < u.size(); ++i) {
    const std::string_view url = CatalogChomp(u[i].second);
    std::string_view caption = CatalogChomp(k[i].second);
    if (url.empty() && caption.empty()) continue;
    const std::string where = url_path + ":" + std::to_string(u[i].first);
    if (url.size() <= kCut || caption.empty())
      return Status::Corruption(who + ": " + where + ": a URL without its caption, or a caption without its URL");
    std::string name(url.substr(kCut));
    for (char& ch : name)
      if (ch == '/') ch = '_';
    if (!CatalogSafeName(name))
      return Status::Corruption(who + ": " + where + ": the URL gives no file name in sbu_images");
    const fs::path image = images / name;
    if (!fs::is_regular_file(image, ec)) continue;
    while (!caption.empty() && caption.back() == ' ') caption.remove_suffix(1);
    c.paths.push_back(image.string());
    c.values.push_back(Tensor::FromString(TensorType::kString, std::string(caption)));
  }
  return c;
}

}  // namespace mindrecord
