// Caltech101Dataset's images (catalog_layouts.h): the category folders of
// 101_ObjectCategories sorted by name (BACKGROUND_Google left out), each
// labelled by its place, as MindSpore's; a folder of N entries holds
// image_0001.jpg .. image_N.jpg (MindSpore numbers them by the count too).
// target_type category gives [image, category], annotation [image,
// annotation], all [image, category, annotation]; the annotation is the
// obj_contour variable (float64 [2, points]: x then y) of
// Annotations/FOLDER/annotation_NNNN.mat, FOLDER the category's name but for
// Faces (Faces_2), Faces_easy (Faces_3), Motorbikes (Motorbikes_16) and
// airplanes (Airplanes_Side_2).
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/nodes/mat_file.h"

namespace mindrecord {

namespace fs = std::filesystem;

Result<Catalog> ListCaltech101(const nlohmann::json& args) {
  const std::string who = "Caltech101Dataset";
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"target_type"}));
  MR_ASSIGN_OR_RETURN(std::string target, CatalogStringArg(args, "target_type", "category"));
  if (target != "category" && target != "annotation" && target != "all")
    return Status::InvalidArgument(who + ": target_type must be 'category', 'annotation' or 'all', got '" + target +
                                   "'");
  const bool category = target != "annotation", annotation = target != "category";
  const fs::path dir = args["dataset_dir"].get<std::string>();
  const fs::path images = dir / "101_ObjectCategories", annotations = dir / "Annotations";
  MR_ASSIGN_OR_RETURN(auto names, SortedFolderEntries(images.string(), true, who));
  names.erase(std::remove(names.begin(), names.end(), "BACKGROUND_Google"), names.end());
  Catalog c;
  c.columns = {"image"};
  c.file_columns = annotation ? 2 : 1;
  if (annotation) {
    c.columns.push_back("annotation");
    c.file_readers = {nullptr, [](const std::string& path) -> Result<Tensor> {
      constexpr uint64_t kMaxPoints = uint64_t{1} << 20;
      MR_ASSIGN_OR_RETURN(MatArray a, ReadMatArray(path, "obj_contour", 2 * kMaxPoints));
      if (a.dims.size() != 2 || a.dims[0] != 2)
        return Status::Corruption(path + ": obj_contour is not a 2 x N array of points");
      // MATLAB's column-major [2, N] -> row-major [2, N]: x of every point, then y.
      const int64_t n = a.dims[1];
      Tensor t = Tensor::Make(TensorType::kFloat64, {2, n});
      auto* out = t.mutable_data_as<double>();
      for (int64_t p = 0; p < n; ++p) {
        out[p] = a.values[static_cast<size_t>(2 * p)];
        out[n + p] = a.values[static_cast<size_t>(2 * p + 1)];
      }
      return t;
    }};
  }
  if (category) c.columns.push_back("category");
  if (annotation && category) c.order = {0, 2, 1};  // MindSpore's: image, category, annotation
  nlohmann::json indexing = nlohmann::json::object();
  for (size_t label = 0; label < names.size(); ++label) {
    const std::string& name = names[label];
    indexing[name] = label;
    std::string folder = name;
    if (name == "Faces") folder = "Faces_2";
    else if (name == "Faces_easy") folder = "Faces_3";
    else if (name == "Motorbikes") folder = "Motorbikes_16";
    else if (name == "airplanes") folder = "Airplanes_Side_2";
    std::error_code ec;
    size_t n = 0;
    for (fs::directory_iterator it(images / name, ec), end; !ec && it != end; it.increment(ec)) ++n;
    if (ec) return Status::IOError(who + ": cannot list " + (images / name).string() + ": " + ec.message());
    for (size_t i = 1; i <= n; ++i) {
      char file[40];
      std::snprintf(file, sizeof file, "image_%04zu.jpg", i);
      c.paths.push_back((images / name / file).string());
      if (annotation) {
        std::snprintf(file, sizeof file, "annotation_%04zu.mat", i);
        c.paths.push_back((annotations / folder / file).string());
      }
      if (category) {  // int64, as MindSpore's (a Python int)
        Tensor t = Tensor::Make(TensorType::kInt64, {});
        *t.mutable_data_as<int64_t>() = static_cast<int64_t>(label);
        c.values.push_back(std::move(t));
      }
    }
  }
  c.meta["class_indexing"] = indexing;
  return c;
}

}  // namespace mindrecord
