// COCO annotation JSON parser: the input is the annotation file; planned for
// every task and the rows built (images are looked up in the scratch folder,
// which holds img.jpg; names leading outside it are not read). Panoptic PNGs
// come from the default folder beside the JSON, which holds p.png.
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
  return 0;
}
