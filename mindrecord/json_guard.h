// A pre-parse check of JSON and msgpack read from untrusted files (shard
// headers, append journals, commit records, raw rows): nesting depth and element count are bounded
// before the parser runs, since a parsed document's memory grows with its
// element count and its recursive destruction with its depth (300,000 nested
// arrays crashed the process with a stack overflow).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mindrecord/status.h"

namespace mindrecord {

struct JsonLimits {
  int max_depth = 64;               // nested arrays and objects
  uint64_t max_elements = 2000000;  // containers plus list/object members
};

// Corruption naming `what` when `text` nests deeper or holds more elements
// than `limits` allow. Scans the text once, strings skipped; says nothing
// about whether the text is otherwise valid JSON (the parser does that).
Status CheckJsonShape(std::string_view text, const std::string& what, const JsonLimits& limits = {});

// The same bounds for a msgpack document (a row's raw part), plus: every
// container's claimed length must fit the bytes left (each element takes at
// least one byte). Walks the framing without recursion or allocation.
Status CheckMsgpackShape(std::string_view bytes, const std::string& what, const JsonLimits& limits);

}  // namespace mindrecord
