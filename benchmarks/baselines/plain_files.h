// Plain-files baseline: one file per sample in class folders (ImageFolder
// layout, ROOT/class_XX/NNNNNNN.ext), read whole with open + fstat + read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord::bench {

// ROOT/class_<label % 100, two digits>/<index, seven digits><ext>.
std::string PlainFilePath(const std::string& root, uint64_t index, int64_t label, const std::string& ext);

// Creates the parent folder when missing. No fsync (see the report).
Status WriteWholeFile(const std::string& path, std::string_view data);
// Replaces *out with the file's bytes (one read for files that fit).
Status ReadWholeFile(const std::string& path, std::string* out);

// Every regular file under `root`, sorted (what an ImageFolder scan finds).
std::vector<std::string> ListFiles(const std::string& root);

// Reads each file to the end in 1 MiB chunks and drops the bytes: what
// `cat FILES > /dev/null` does. Returns the bytes read.
Result<uint64_t> CatFiles(const std::vector<std::string>& paths);

}  // namespace mindrecord::bench
