#include <cstdio>

#include "cli/command.h"

namespace mindrecord::cli {

int ReportStatus(const char* verb, const Status& status) {
  if (status.ok()) return kExitOk;
  std::fprintf(stderr, "mindrecord %s: error: %s\n", verb, status.message().c_str());
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitData;
}

}  // namespace mindrecord::cli
