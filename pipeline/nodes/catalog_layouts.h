// The listers of CatalogSource (catalog_source.h), one per dataset layout,
// each in its own file (catalog_NAME.cc). A lister reads the layout's list
// files under args.dataset_dir and checks its own args; a list that does not
// parse, a listed name that would leave the dataset's folder: Corruption
// naming the file and line.
// Thread safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/catalog_source.h"

namespace mindrecord {

// LFWDataset: task people / pairs, usage 10fold / train / test / all,
// image_set original / funneled / deepfunneled.
Result<Catalog> ListLfw(const nlohmann::json& args);

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

}  // namespace mindrecord
