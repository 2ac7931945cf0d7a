// TFRecord parser: the input is the .tfrecord file (framing, CRCs,
// tf.train.Example protobufs); the feature spec inferred, then the rows built.
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(tfrecord) {
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "in.tfrecord", std::string_view(reinterpret_cast<const char*>(data), size));
  for (auto on_error : {convert::OnError::kFail, convert::OnError::kSkip}) {
    convert::ConvertOptions o;
    o.on_error = on_error;
    o.infer_records = 16;
    convert::ConvertContext ctx(o);
    fuzz::DrivePlans(convert::PlanTfRecord((dir / "in.tfrecord").string(), ctx), 64);
  }
  return 0;
}
