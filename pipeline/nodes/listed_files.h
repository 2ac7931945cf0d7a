// Helpers of the sources that read a dataset's list files and the files
// they name (celeba_source, image_list_source, imdb_source, catalog_source):
// list files read whole (at most 1 GiB), split into numbered lines and
// whitespace tokens, folders listed, and a listed file read as one row's
// bytes or decoded image.
// Thread safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord {

// The bytes of list file `path`; NotFound "WHO: PATH is missing" when it is
// not a regular file, InvalidArgument past 1 GiB.
Result<std::string> ReadListFile(const std::string& path, const std::string& who);

// The lines of `text` ('\n'-separated; the last one may lack it), each with
// its 1-based number.
std::vector<std::pair<size_t, std::string_view>> NumberedLines(std::string_view text);

// The whitespace-separated tokens of `line`.
std::vector<std::string_view> WhitespaceTokens(std::string_view line);

// A path a list file gives, relative to the folder the list's paths are
// under: leading '/' dropped (as std::filesystem::path::relative_path does).
// False when a component of it is "..": it would leave that folder.
// (String operations: a std::filesystem::path per line cost ~1.5 us, seconds
// for a list of millions.)
bool ListedRelativePath(std::string_view listed, std::string_view* rel);

// The names of the folders (`dirs`) or regular files in `dir`, sorted by
// byte order; NotFound "WHO: DIR is not a folder" when it is not one.
Result<std::vector<std::string>> SortedFolderEntries(const std::string& dir, bool dirs, const std::string& who);

// The bytes of the file at `path`, one row's worth (at most
// kMaxDecompressedRowBytes, else InvalidArgument naming it).
Result<std::string> ReadRowFile(const std::string& path);

// A listed image: its bytes (uint8 1-D), or with `decode` HWC RGB uint8; a
// file that does not decode is an error naming it.
Result<Tensor> ReadImageFile(const std::string& path, bool decode);

}  // namespace mindrecord
