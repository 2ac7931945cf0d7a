// RawSource: a raw-format dataset folder (ImageFolder, CIFAR-10/100, MNIST,
// VOC, COCO) as a leaf's Source, with MindSpore 2.x's built-in loaders'
// columns. It is built on the converters' own parsers (writers/convert): the
// converter's planner lists and checks the folder once at Open, and each row
// is the converter's row for that item, turned into MindSpore's columns. So
// a raw folder read here and the same folder converted by `mindrecord
// convert` and read through MindDataset hold the same values.
//
// The plan node ("raw"):
//   format        "imagefolder" | "cifar10" | "cifar100" | "mnist" | "emnist" | "voc" | "coco"
//   name          emnist: the split's name (byclass, bymerge, balanced, letters,
//                 digits, mnist): files emnist-NAME-{train,test}-*-idx?-ubyte
//   dataset_dir   the folder (coco: the image folder)
//   usage         cifar/mnist: "train" | "test" | "all" (MindSpore's order:
//                 files by name, so CIFAR-10 train then test, MNIST and
//                 CIFAR-100 test then train);
//                 voc: the ImageSets list name (default "train")
//   decode        imagefolder/voc/coco: the image column decoded to HWC RGB
//                 uint8 (false: the file's bytes)
//   extensions    imagefolder: file extensions kept (".JPEG"; exact match)
//   class_indexing imagefolder: folder -> label; voc: class -> label
//   task          voc: "Detection" | "Segmentation"; coco: "Detection"
//   annotation_file coco: the annotation JSON
// Column dtypes: MindSpore's uint32 labels are int32 here (the pipeline has
// no uint32 tensor); values are the same.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// Thread safety: as Source (the converters' row builders are thread-safe).
class RawSource : public Source {
 public:
  // From a "raw" node (see above); the node's keys were checked by
  // NormalizeRawLeaf.
  static Result<std::unique_ptr<RawSource>> Open(const nlohmann::json& node);
  ~RawSource() override;

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return rows_.size(); }
  DatasetLayout Layout() const override;
  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override;
  std::string Where(uint64_t id) const override;

  struct Impl;

 private:
  RawSource() = default;
  std::vector<std::string> names_;
  // Per row: (the converter split it comes from, the item in that split).
  std::vector<std::pair<uint32_t, uint64_t>> rows_;
  std::unique_ptr<Impl> impl_;
};

// Checks a "raw" leaf's keys and values and fills in the defaults, naming
// what is wrong ("plan: PATH: ...").
Result<nlohmann::json> NormalizeRawLeaf(const nlohmann::json& j, const std::string& path);

}  // namespace mindrecord
