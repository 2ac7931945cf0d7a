// What a remote dataset's server and AWS files say, parsed: Content-Range
// values, S3 XML error bodies (pugixml) and AWS INI files. First byte picks
// the parser; a parsed Content-Range must describe a range inside its total.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "readers/http_client.h"
#include "readers/remote_url.h"
#include "tests/fuzz/fuzz_target.h"

MINDRECORD_FUZZ_TARGET(remote) {
  if (size < 1) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto cr = mindrecord::ParseContentRange(text);
      if (cr && !(cr->begin < cr->end && cr->end <= cr->total)) {
        std::fprintf(stderr, "Content-Range parsed outside its total\n");
        std::abort();
      }
      break;
    }
    case 1: {
      const std::string msg = mindrecord::ParseS3Error(text);
      if (msg.size() > 300) {
        std::fprintf(stderr, "S3 error message longer than its cap\n");
        std::abort();
      }
      break;
    }
    default:
      (void)mindrecord::AwsIniValue(text, "default", "region");
      (void)mindrecord::AwsIniValue(text, "profile x", "aws_access_key_id");
  }
  return 0;
}
