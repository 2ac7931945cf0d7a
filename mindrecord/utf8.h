// UTF-8 validation of text read from files (text and CSV sources).
#pragma once

#include <string_view>

namespace mindrecord {

// Whether `s` is well-formed UTF-8: no overlong forms, surrogates, or code
// points past U+10FFFF. Thread safety: a pure function.
bool IsUtf8(std::string_view s);

}  // namespace mindrecord
