// Header JSON: parse and validate; a header that parses must serialize to
// text that parses again and serializes identically.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "mindrecord/header.h"
#include "tests/fuzz/fuzz_target.h"

MINDRECORD_FUZZ_TARGET(header) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto h = mindrecord::ShardHeader::Parse(text, "fuzz");
  if (!h.ok()) return 0;
  (void)h->num_rows();
  const std::string once = h->Serialize();
  auto again = mindrecord::ShardHeader::Parse(once, "fuzz (serialized)");
  if (!again.ok()) {
    std::fprintf(stderr, "serialized header does not parse: %s\n%s\n", again.status().ToString().c_str(), once.c_str());
    std::abort();
  }
  if (again->Serialize() != once) {
    std::fprintf(stderr, "serialization is not stable:\n%s\n%s\n", once.c_str(), again->Serialize().c_str());
    std::abort();
  }
  return 0;
}
