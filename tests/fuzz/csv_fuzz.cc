// CSV parser: the input is the .csv file (quoting, delimiters, ragged rows);
// column types inferred, then the rows built.
#include "tests/fuzz/fuzz_util.h"
#include "writers/convert/sources.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(csv) {
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
