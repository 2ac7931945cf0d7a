// VOC annotation XML parser: the input is Annotations/a.xml of a one-image
// VOC tree (ImageSets/Main/train.txt lists "a", JPEGImages/a.jpg is a valid
// 8x8 JPEG); planned for detection and the row built.
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

namespace {
const std::string& TinyJpeg() {
  static const std::string jpeg = [] {
    uint8_t px[8 * 8 * 3] = {};
    return *convert::EncodePixels(px, 8, 8, 3, convert::EncodeMode::kJpeg);
  }();
  return jpeg;
}
}  // namespace

MINDRECORD_FUZZ_TARGET(voc) {
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "ImageSets" / "Main" / "train.txt", "a\n");
  fuzz::WriteFile(dir / "JPEGImages" / "a.jpg", TinyJpeg());
  fuzz::WriteFile(dir / "Annotations" / "a.xml", std::string_view(reinterpret_cast<const char*>(data), size));
  convert::ConvertOptions o;
  convert::ConvertContext ctx(o);
  fuzz::DrivePlans(convert::PlanVoc(dir.string(), ctx), 1);
  return 0;
}
