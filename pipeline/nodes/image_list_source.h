// The "image_list" source: image files listed by a dataset's own layout, with an
// int32 label each (MindSpore's OmniglotDataset and Places365Dataset):
//   "omniglot"   dataset_dir/images_background (background) or
//                images_evaluation / ALPHABET / CHARACTER / every file: a
//                class per character folder, labelled by its place among
//                all "/alphabet/character" names sorted; files by name.
//   "places365"  dataset_dir/categories_places365.txt must exist; the list
//                places365_{train_standard,train_challenge,val}.txt (usage
//                train-standard, train-challenge, val) holds "path label"
//                pairs, the images under data_256_standard, data_large_...,
//                val_256 or val_large (small or not); list order.
//   "food101"    dataset_dir/meta/{train,test}.txt lines CLASS/ID (usage
//                train, test, all: train then test), the images
//                images/CLASS/ID.jpg; the label is CLASS, a string (the
//                class folders under images/ are the classes).
// Columns: "image" (the file's bytes, or with `decode` HWC RGB uint8) and
// "label" (int32, MindSpore's uint32; food101: a string). A list line that does not parse, a
// listed path with "..", a missing folder: errors naming the file (and
// line); an image that does not decode is that row's error.
//
// The leaf: {"node": "source", "kind": "image_list", "columns": ["image",
// "label"], "rows": N, "args": {"layout": L, "dataset_dir": D, "decode": B,
// ...its layout's args: background (bool); usage, small}}; `rows` must be
// what CountImageList gives. Its rows are read by a catalog source
// (catalog_source.h).
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// The rows the leaf's args list.
Result<uint64_t> CountImageList(const nlohmann::json& args);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenImageListSource(const nlohmann::json& node);

}  // namespace mindrecord
