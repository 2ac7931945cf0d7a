// The listers of CatalogSource (catalog_source.h), one per dataset layout,
// each in its own file (catalog_NAME.cc). A lister reads the layout's list
// files under args.dataset_dir and checks its own args; a list that does not
// parse, a listed name that would leave the dataset's folder: Corruption
// naming the file and line.
// Thread safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/catalog_source.h"

namespace mindrecord {

// LFWDataset: task people / pairs, usage 10fold / train / test / all,
// image_set original / funneled / deepfunneled.
Result<Catalog> ListLfw(const nlohmann::json& args);

// LSUNDataset: usage train / valid / test / all, classes (a list; empty:
// all ten).
Result<Catalog> ListLsun(const nlohmann::json& args);
// DIV2KDataset: usage train / valid / all, downgrade, scale.
Result<Catalog> ListDiv2k(const nlohmann::json& args);
// FlickrDataset: annotation_file (a path).
Result<Catalog> ListFlickr(const nlohmann::json& args);
// KITTIDataset: usage train / test.
Result<Catalog> ListKitti(const nlohmann::json& args);
// WIDERFaceDataset: usage train / valid / test / all.
Result<Catalog> ListWiderFace(const nlohmann::json& args);
// ManifestDataset: dataset_file, usage, class_indexing (an object).
Result<Catalog> ListManifest(const nlohmann::json& args);
// SBUDataset.
Result<Catalog> ListSbu(const nlohmann::json& args);
// RenderedSST2Dataset: usage train / val / test / all.
Result<Catalog> ListRenderedSst2(const nlohmann::json& args);
// Multi30kDataset: usage train / valid / test / all, language_pair.
Result<Catalog> ListMulti30k(const nlohmann::json& args);

// QMnistDataset: usage train / test / test10k / test50k / nist / all,
// compat (bool).
Result<Catalog> ListQmnist(const nlohmann::json& args);
// STL10Dataset: usage train / test / unlabeled / train+unlabeled / all.
Result<Catalog> ListStl10(const nlohmann::json& args);
// USPSDataset: usage train / test / all.
Result<Catalog> ListUsps(const nlohmann::json& args);
// SemeionDataset.
Result<Catalog> ListSemeion(const nlohmann::json& args);
// IWSLT2016Dataset / IWSLT2017Dataset: year (2016, 2017), usage train /
// valid / test / all, language_pair, valid_set, test_set.
Result<Catalog> ListIwslt(const nlohmann::json& args);
// CityscapesDataset: usage, quality_mode fine / coarse, task instance /
// semantic / polygon / color.
Result<Catalog> ListCityscapes(const nlohmann::json& args);
// FakeImageDataset: num_images, image_size, num_classes, base_seed.
Result<Catalog> ListFakeImage(const nlohmann::json& args);
// Flowers102Dataset: task Classification / Segmentation, usage train /
// valid / test / all.
Result<Catalog> ListFlowers102(const nlohmann::json& args);
// Caltech101Dataset: target_type category / annotation / all.
Result<Catalog> ListCaltech101(const nlohmann::json& args);
// SVHNDataset: usage train / test / extra / all.
Result<Catalog> ListSvhn(const nlohmann::json& args);
// SBDataset: task Boundaries / Segmentation, usage train / val /
// train_noval / all.
Result<Catalog> ListSb(const nlohmann::json& args);
// PhotoTourDataset: name, usage train / test.
Result<Catalog> ListPhotoTour(const nlohmann::json& args);
// SQuADDataset: usage train / dev / all.
Result<Catalog> ListSquad(const nlohmann::json& args);

// Helpers shared by the listers.
// An error unless args holds only `allowed` keys (besides layout,
// dataset_dir, decode).
Status CatalogArgsOnly(const nlohmann::json& args, std::initializer_list<const char*> allowed);
// args[key] as a string (`fallback` when absent); an error naming the
// layout when it is not a string.
Result<std::string> CatalogStringArg(const nlohmann::json& args, const char* key, const char* fallback);
// A name that stays in its folder: not empty, ".", "..", no '/', '\\' or NUL.
bool CatalogSafeName(std::string_view name);
// `s` as a whole non-negative decimal integer at most `max`; Corruption
// "WHO: WHERE: 'S' is not ..." otherwise.
Result<int64_t> CatalogCount(std::string_view s, int64_t max, const std::string& who, const std::string& where);
// A 0-d int32 tensor.
Tensor CatalogInt32(int32_t v);
// Tensors of `shape` holding `v` (prod(shape) values).
Tensor CatalogInt32s(Shape shape, const std::vector<int32_t>& v);
Tensor CatalogFloats(Shape shape, const std::vector<float>& v);
// `s` as a whole decimal number (strtod's syntax, finite); Corruption
// naming WHO and WHERE otherwise.
Result<double> CatalogNumber(std::string_view s, const std::string& who, const std::string& where);
// `line` without a trailing '\r' (lists written on Windows).
std::string_view CatalogChomp(std::string_view line);

}  // namespace mindrecord
