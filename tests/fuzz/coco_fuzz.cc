// COCO annotation JSON parser: the input is the annotation file; planned for
// every task and the rows built (images are looked up in the scratch folder,
// which holds img.jpg; names leading outside it are not read). Panoptic PNGs
// come from the default folder beside the JSON, which holds p.png. Then the
// same file through CocoDataset's source (pipeline/nodes/raw_source.h), every
// task's rows read.
#include "pipeline/nodes/raw_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(coco) {
  static const std::string jpeg = [] {
    uint8_t px[8 * 8 * 3] = {};
    return *convert::EncodePixels(px, 8, 8, 3, convert::EncodeMode::kJpeg);
  }();
  const auto dir = fuzz::FreshScratch();
  const auto images = dir / "images";
  static const std::string png = [] {
    uint8_t px[4 * 4 * 3] = {};
    return *convert::EncodePixels(px, 4, 4, 3, convert::EncodeMode::kPng);
  }();
  fuzz::WriteFile(images / "img.jpg", jpeg);
  fuzz::WriteFile(dir / "ann" / "p.png", png);
  fuzz::WriteFile(dir / "ann.json", std::string_view(reinterpret_cast<const char*>(data), size));
  for (const char* task : {"detection", "keypoint", "panoptic", "captioning"}) {
    convert::ConvertOptions o;
    o.task = task;
    o.annotations = (dir / "ann.json").string();
    o.on_error = convert::OnError::kSkip;
    convert::ConvertContext ctx(o);
    fuzz::DrivePlans(convert::PlanCoco(images.string(), ctx), 16, &images);
  }
  for (const char* task : {"Detection", "Stuff", "Keypoint", "Panoptic"}) {
    const nlohmann::json node = {{"node", "raw"}, {"format", "coco"}, {"dataset_dir", images.string()},
                                 {"annotation_file", (dir / "ann.json").string()}, {"task", task}};
    auto src = RawSource::Open(node);
    if (!src.ok()) continue;
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < std::min<uint64_t>((*src)->num_rows(), 16); ++i) {
      // Where() names the row's image: "row N ('path')"; none outside the scratch folder is read.
      const std::string where = (*src)->Where(i);
      const size_t a = where.find("('"), b = where.rfind("')");
      if (a != std::string::npos && b != std::string::npos && b > a && fuzz::Inside(images, where.substr(a + 2, b - a - 2)))
        ids.push_back(i);
    }
    (void)(*src)->Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  }
  return 0;
}
