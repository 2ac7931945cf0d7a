#include "pipeline/nodes/listed_files.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "mindrecord/file.h"
#include "mindrecord/limits.h"
#include "writers/convert/image_codec.h"

namespace mindrecord {

Result<std::string> ReadListFile(const std::string& path, const std::string& who) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::NotFound(who + ": " + path + " is missing");
  MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(path, false));
  if (file->size() > (uint64_t{1} << 30)) return Status::InvalidArgument(who + ": " + path + " is larger than 1 GiB");
  std::string bytes(static_cast<size_t>(file->size()), '\0');
  MR_RETURN_IF_ERROR(file->ReadAt(0, bytes.size(), bytes.data()));
  return bytes;
}

std::vector<std::pair<size_t, std::string_view>> NumberedLines(std::string_view text) {
  std::vector<std::pair<size_t, std::string_view>> out;
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(++number, text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// The C locale's white space: std::isspace follows the process's locale
// (Python sets it from the environment), and is a call per byte.
inline bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::vector<std::string_view> WhitespaceTokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ListedRelativePath(std::string_view listed, std::string_view* rel) {
  const size_t start = listed.find_first_not_of('/');
  *rel = start == std::string_view::npos ? std::string_view() : listed.substr(start);
  return !HasParentComponent(*rel);
}

Result<std::vector<std::string>> SortedFolderEntries(const std::string& dir, bool dirs, const std::string& who) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound(who + ": " + dir + " is not a folder");
  std::vector<std::string> names;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code fe;
    if (dirs ? it->is_directory(fe) : it->is_regular_file(fe)) names.push_back(it->path().filename().string());
  }
  if (ec) return Status::IOError(who + ": cannot list " + dir + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> ReadRowFile(const std::string& path) {
  MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(path, false));
  if (file->size() > kMaxDecompressedRowBytes)
    return Status::InvalidArgument(path + ": " + std::to_string(file->size()) + " bytes, more than a row may hold (" +
                                   std::to_string(kMaxDecompressedRowBytes) + ")");
  std::string bytes(static_cast<size_t>(file->size()), '\0');
  MR_RETURN_IF_ERROR(file->ReadAt(0, bytes.size(), bytes.data()));
  return bytes;
}

Result<Tensor> ReadImageFile(const std::string& path, bool decode) {
  MR_ASSIGN_OR_RETURN(std::string bytes, ReadRowFile(path));
  if (!decode) return Tensor::FromString(TensorType::kBytes, std::move(bytes));
  int h = 0, w = 0;
  Result<std::string> px = convert::DecodeImageFileToRgb(bytes, &h, &w);
  if (!px.ok()) return Status(px.status().code(), path + ": " + px.status().message());
  Tensor t = Tensor::Make(TensorType::kUInt8, {h, w, 3});
  std::memcpy(t.MutableData(), px->data(), px->size());
  return t;
}

}  // namespace mindrecord
