// TextFileSource: the lines of text files as rows (MindSpore's
// TextFileDataset): one column "text", a string per non-empty line (split at
// '\n', the line's other bytes kept, '\r' included, as MindSpore's reader
// keeps them), files in the order given, each file one shard of the layout
// (so "files" shuffling shuffles whole files). The files are scanned once at
// open for where their lines start (12 bytes per line are kept); lines are
// read by position with pread. A line that is not UTF-8, or longer than
// kMaxDecompressedRowBytes, is a row error naming the file and byte offset.
//
// The leaf: {"node": "source", "kind": "textfile", "columns": ["text"],
// "rows": N, "args": {"files": [...], "empty_lines": false}}; `rows` must be
// the files' line count (TextFileDataset counts them with CountTextFileLines
// first). empty_lines: every line a row, empty ones too (EnWik9Dataset).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/row_scan_cache.h"
#include "pipeline/nodes/source.h"

namespace mindrecord {

// Non-empty lines (all lines with `empty_lines`) per file, in order;
// NotFound / IOError naming a file.
Result<std::vector<uint64_t>> CountTextFileLines(const std::vector<std::string>& files, bool empty_lines = false);

// Thread safety: as Source.
Result<std::unique_ptr<Source>> OpenTextFileSource(const nlohmann::json& node);

// The line scan of text files, for other sources whose rows are lines
// (clue_source.h): its key in row_scan_cache.h and the scan.
const char* TextLineScanKey(bool empty_lines);
std::function<Status(const RandomAccessFile&, FileRows*)> TextLineScan(bool empty_lines);

}  // namespace mindrecord
