// MNIST idx parser: the input is the images file (idx3), the file
// separator, then the labels file (idx1); planned as the train split and
// the first rows built (raw pixels, no JPEG encoding).
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(mnist) {
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "train-images-idx3-ubyte", parts[0]);
  fuzz::WriteFile(dir / "train-labels-idx1-ubyte", parts[1]);
  for (auto on_error : {convert::OnError::kFail, convert::OnError::kSkip}) {
    convert::ConvertOptions o;
    o.on_error = on_error;
    o.encode = convert::EncodeMode::kRaw;
    convert::ConvertContext ctx(o);
    fuzz::DrivePlans(convert::PlanMnist(dir.string(), ctx), 64);
  }
  return 0;
}
