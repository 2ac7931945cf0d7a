// MindSpore 2.x's file functions of mindspore.dataset.vision (read_file,
// write_file): a whole file as a 1-D uint8 tensor and back. Errors name the
// function as MindSpore does ("ReadFile: ...", "WriteFile: ...") and the file.
// Thread safety: the functions are reentrant; files are read and written
// through `fs` (FileSystem::Default() unless a test injects one).
#pragma once

#include <string>

#include "mindrecord/file.h"
#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

// OK when `filename` names a regular file (symbolic links followed):
// NotFound "<op>: Invalid file path, <filename> does not exist." or
// InvalidArgument "... is not a regular file." otherwise.
Status CheckRegularFile(const std::string& filename, const char* op);

// The bytes of the regular file `filename` as a 1-D uint8 tensor of its size
// (MindSpore's ReadFile). `op` names the caller in errors.
Result<Tensor> ReadWholeFile(const std::string& filename, const char* op = "ReadFile",
                             FileSystem* fs = FileSystem::Default());

// Writes `size` bytes as the whole of `filename`: created when missing,
// replaced when it exists (it must then be a regular file). The bytes go to a
// hidden file beside it that is renamed over it, so a failed write leaves the
// old file (or none). Errors name `op` and the file.
Status WriteWholeFile(const std::string& filename, const uint8_t* data, size_t size, const char* op,
                      FileSystem* fs = FileSystem::Default());

// MindSpore's WriteFile: `data` must be uint8 and 1-D (an empty tensor of any
// rank is written as an empty file, as MindSpore checks the rank only of
// non-empty data).
Status WriteFile(const std::string& filename, const Tensor& data, FileSystem* fs = FileSystem::Default());

}  // namespace mindrecord::ops
