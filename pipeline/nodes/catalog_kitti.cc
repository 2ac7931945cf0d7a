// KITTIDataset's object labels (catalog_layouts.h): N images in
// data_object_image_2/{training,testing}/image_2 (usage train, test) named
// 000000.png .. N-1 (MindSpore numbers them by the folder's entry count);
// for train each image's data_object_label_2/training/label_2/ID.txt, a line
// per object: "class truncated occluded alpha x1 y1 x2 y2 h w l x y z
// rotation_y" (more fields are ignored). An image whose label file is empty
// is left out, as MindSpore's. The label is the class's place among all
// class names of the label files, sorted.
#include <cstdio>
#include <filesystem>
#include <map>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

struct KittiObject {
  std::string cls;
  float f[14];  // truncated, occluded, alpha, bbox[4], dimensions[3], location[3], rotation_y
};

}  // namespace

Result<Catalog> ListKitti(const nlohmann::json& args) {
  const std::string who = "KITTIDataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "train"));
  if (usage != "train" && usage != "test")
    return Status::InvalidArgument(who + ": usage must be 'train' or 'test', got '" + usage + "'");
  const bool train = usage == "train";
  const fs::path dir = args["dataset_dir"].get<std::string>();
  const fs::path images = dir / "data_object_image_2" / (train ? "training" : "testing") / "image_2";
  const fs::path labels = dir / "data_object_label_2" / "training" / "label_2";
  std::error_code ec;
  if (!fs::is_directory(images, ec)) return Status::NotFound(who + ": " + images.string() + " is not a folder");
  size_t n = 0;
  for (fs::directory_iterator it(images, ec), end; !ec && it != end; it.increment(ec)) ++n;
  if (ec) return Status::IOError(who + ": cannot list " + images.string() + ": " + ec.message());
  Catalog c;
  c.file_columns = 1;
  if (!train) {
    c.columns = {"image"};
    for (size_t i = 0; i < n; ++i) {
      char id[32];
      std::snprintf(id, sizeof id, "%06zu.png", i);
      c.paths.push_back((images / id).string());
    }
    return c;
  }
  c.columns = {"image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"};
  std::vector<std::pair<std::string, std::vector<KittiObject>>> rows;
  std::map<std::string, int32_t> classes;
  for (size_t i = 0; i < n; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "%06zu", i);
    const std::string label_path = (labels / (std::string(id) + ".txt")).string();
    MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(label_path, who));
    std::vector<KittiObject> objects;
    for (const auto& [number, line] : NumberedLines(text)) {
      const auto tok = WhitespaceTokens(line);
      if (tok.empty()) continue;
      const std::string where = label_path + ":" + std::to_string(number);
      if (tok.size() < 15)
        return Status::Corruption(who + ": " + where + ": " + std::to_string(tok.size()) +
                                  " fields, an object has 15 (class and 14 numbers)");
      KittiObject o;
      o.cls = std::string(tok[0]);
      for (int k = 0; k < 14; ++k) {
        MR_ASSIGN_OR_RETURN(double v, CatalogNumber(tok[k + 1], who, where));
        o.f[k] = static_cast<float>(v);
      }
      classes.emplace(o.cls, 0);
      objects.push_back(std::move(o));
    }
    if (!objects.empty()) rows.emplace_back((images / (std::string(id) + ".png")).string(), std::move(objects));
  }
  int32_t next = 0;
  for (auto& [name, index] : classes) index = next++;
  for (const auto& [path, objects] : rows) {
    const auto m = static_cast<int64_t>(objects.size());
    std::vector<int32_t> label, occluded;
    std::vector<float> truncated, alpha, bbox, dims, loc, rot;
    for (const auto& o : objects) {
      label.push_back(classes[o.cls]);
      truncated.push_back(o.f[0]);
      occluded.push_back(static_cast<int32_t>(o.f[1]));
      alpha.push_back(o.f[2]);
      bbox.insert(bbox.end(), o.f + 3, o.f + 7);
      dims.insert(dims.end(), o.f + 7, o.f + 10);
      loc.insert(loc.end(), o.f + 10, o.f + 13);
      rot.push_back(o.f[13]);
    }
    c.paths.push_back(path);
    c.values.push_back(CatalogInt32s({m, 1}, label));
    c.values.push_back(CatalogFloats({m, 1}, truncated));
    c.values.push_back(CatalogInt32s({m, 1}, occluded));
    c.values.push_back(CatalogFloats({m, 1}, alpha));
    c.values.push_back(CatalogFloats({m, 4}, bbox));
    c.values.push_back(CatalogFloats({m, 3}, dims));
    c.values.push_back(CatalogFloats({m, 3}, loc));
    c.values.push_back(CatalogFloats({m, 1}, rot));
  }
  nlohmann::json indexing = nlohmann::json::object();
  for (const auto& [name, index] : classes) indexing[name] = index;
  c.meta["class_indexing"] = indexing;
  return c;
}

}  // namespace mindrecord
