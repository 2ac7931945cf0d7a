// CSV parser: the input is the .csv file (quoting, delimiters, ragged rows);
// column types inferred, then the rows built.
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"

using namespace mindrecord;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "in.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  for (auto on_error : {convert::OnError::kFail, convert::OnError::kSkip}) {
    convert::ConvertOptions o;
    o.on_error = on_error;
    convert::ConvertContext ctx(o);
    fuzz::DrivePlans(convert::PlanCsv((dir / "in.csv").string(), ctx), 64);
  }
  return 0;
}
