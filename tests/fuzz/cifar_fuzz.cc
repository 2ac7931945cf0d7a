// CIFAR parsers: the first byte picks CIFAR-10 or -100 (bit 0) and the
// binary or python-pickle distribution (bit 1); the rest is the one train
// file. Planned and the first rows built (raw pixels).
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(cifar) {
  if (size < 1) return 0;
  const bool cifar100 = data[0] & 1, pickle = data[0] & 2;
  const auto dir = fuzz::FreshScratch();
  const char* name = cifar100 ? (pickle ? "train" : "train.bin") : (pickle ? "data_batch_1" : "data_batch_1.bin");
  fuzz::WriteFile(dir / name, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  for (auto on_error : {convert::OnError::kFail, convert::OnError::kSkip}) {
    convert::ConvertOptions o;
    o.on_error = on_error;
    o.encode = convert::EncodeMode::kRaw;
    convert::ConvertContext ctx(o);
    fuzz::DrivePlans(cifar100 ? convert::PlanCifar100(dir.string(), ctx) : convert::PlanCifar10(dir.string(), ctx), 64);
  }
  return 0;
}
